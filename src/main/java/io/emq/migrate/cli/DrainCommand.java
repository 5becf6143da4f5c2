package io.emq.migrate.cli;

import io.emq.migrate.drain.Drain;
import io.emq.migrate.drain.DrainOptions;
import io.emq.migrate.drain.DrainReport;
import io.emq.migrate.drain.DrainStopped;
import io.emq.migrate.drain.ExecHandler;
import io.emq.migrate.drain.ShadowQueue;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.StructureType;
import io.emq.migrate.migrate.ConnectionLoss;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.JobHandler;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.cli.Options;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * {@code emq-migrate drain --target URI --queue Q [--workers N] [--handler validate|noop|exec CMD]
 * [--json] [--until-empty-schedule] [--dry-run] [--resume] [--html FILE]}: serves a migrated queue
 * with the bundled consumer until it is empty and, with the default {@code validate} handler, judges
 * the drain against the queue's journal. Exit 0 when everything matched, 3 otherwise, 2 on bad
 * usage or an unreachable server.
 */
final class DrainCommand implements Command {
    /** The most distinct errors a drain tells on standard error (each once). */
    static final int MOST_ERRORS_TOLD = 5;

    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue to drain"))
                .addOption(Cli.valued("workers", "N", "worker threads (default 1; with 1, serve order is checked globally)"))
                .addOption(Cli.valued("handler", "NAME", "validate (default: complete each job and check it against the"
                        + " journal), noop (complete each job), or exec CMD (run /bin/sh -c CMD per job with its v2 payload on"
                        + " stdin and EMQ_QUEUE, EMQ_JOB_ID, EMQ_ATTEMPTS set; exit 0 completes, anything else retries)"))
                .addOption(null, "until-empty-schedule", false, "also wait for scheduled jobs due later")
                .addOption(null, "dry-run", false, "claim nothing: check pending and schedule against the journal")
                .addOption(null, "resume", false, "resume a paused queue before draining it")
                .addOption(null, "lanes", false, "claim through the queue's lanes (lane_claim over the ring, one job per"
                        + " turn, as the reference EchoMQ.Consumer does); serve order is then checked per lane")
                .addOption(null, "shadow", false, "drain a scratch copy of the queue on the same target, then delete the"
                        + " copy: the queue itself is only read (its production work is not consumed)")
                .addOption(Cli.valued("html", "FILE", "also write a self-contained HTML report to FILE"));
    }

    public int run(Invocation in) throws InterruptedException {
        String queue = in.queue();
        int workers = in.number("workers", 1, 1, 256);
        JobHandler handler = handler(in);
        Path htmlFile = in.has("html") ? in.outputFile("html") : null;
        String handlerName = in.value("handler", "validate").startsWith("exec") ? "exec" : in.value("handler", "validate");
        boolean dryRun = in.has("dry-run");
        boolean shadow = in.has("shadow");
        if (shadow && (dryRun || in.has("resume"))) {
            throw CliException.usage("--shadow drains a copy (already claimable); it goes with neither --dry-run nor --resume");
        }
        Endpoint target = in.require(Side.TARGET);
        if (dryRun || shadow || handlerName.equals("validate")) {
            Migrated.journal(in.readableTarget(target), queue);
        }
        java.util.SortedSet<BrandedId> migratedLanes = new Journal(in.readableTarget(target), queue).lanes();
        if (!migratedLanes.isEmpty() && !in.has("lanes")) {
            in.note("queue '" + queue + "' was migrated into lane" + (migratedLanes.size() == 1 ? " " : "s ")
                    + String.join(", ", migratedLanes.stream().map(BrandedId::toString).toList())
                    + ": the drain claims through the lanes, as a lanes consumer will");
        }
        DrainOptions options = DrainOptions.defaults().withWorkers(workers)
                .withUntilEmptySchedule(in.has("until-empty-schedule")).withLanes(in.has("lanes") || !migratedLanes.isEmpty());
        Wire wire = dryRun ? in.readableTarget(target) : in.writableTarget(target, workers + 4);
        if (in.has("lanes") && migratedLanes.isEmpty()) {
            noteAFlatQueue(wire, queue, in);
        }
        if (shadow) {
            return drainShadow(wire, queue, options, handler, handlerName, htmlFile, target, in);
        }
        Drain drain = new Drain(wire, queue);
        StaleCopy.Check stale = new StaleCopy(in).of(new Journal(wire, queue));
        if (stale.stale()) {
            throw CliException.refused(stale.refusal().get() + ". Nothing was claimed");
        }
        stale.unchecked().ifPresent(why -> in.note("emq-migrate drain: not checked whether another migration retired the v1 queue"
                + " since this one stopped (its copy would then be stale): " + why));
        Optional<String> paused = drain.pausedBecause();
        if (paused.isPresent() && !dryRun) {
            Drain.MigrationStop stop = drain.migrationStop();
            if (!in.has("resume")) {
                throw CliException.refused("queue '" + queue + "' is paused: " + paused.get() + ". Nothing was claimed"
                        + resumeHint(stop, queue));
            }
            switch (stop) {
                case BEFORE_VERIFIED -> throw CliException.refused("queue '" + queue + "' is paused: " + paused.get() + ". Nothing"
                        + " was claimed: --resume would serve what was copied so far while v1 serves the same jobs");
                case INSIDE_RETIREMENT -> in.confirm("drain --resume " + queue, "consumes the jobs of a migration stopped inside"
                        + " its retirement, before it finished (run migrate again first: it ends the retirement and resumes the"
                        + " v2 queue itself)");
                case AT_VERIFIED -> in.confirm("drain --resume " + queue, "consumes every job of a migration stopped at verified"
                        + " (--no-retire), whose v1 source holds the same jobs: v1 would run them too" + stale.unchecked().map(why ->
                        "; and whether another migration retired v1 since (into another target, whose copy would run them too) was"
                        + " not checked: " + why).orElse(" (no other migration retired it since: checked)"));
                case NONE -> { }
            }
            drain.resume();
            in.note("resumed queue '" + queue + "', which was paused: " + paused.get());
        }
        if (dryRun) {
            DrainReport report = drain.dryRun();
            render(report, handlerName, htmlFile, target, in);
            return exitCode(report, handlerName);
        }
        try (DrainInterruption interruption = DrainInterruption.of(drain, handler, options.lease(), in)) {
            try {
                DrainReport report = drainWithProgress(drain, options, handler, target, in);
                render(report, handlerName, htmlFile, target, in);
                return exitCode(report, handlerName);
            } catch (DrainStopped stopped) { // said before the interruption closes: its hook lets the process exit then
                if (interruption.gaveUp()) { // its hook said where the drain stopped, and stopped its handlers
                    return ExitCodes.INTERRUPTED;
                }
                in.note("emq-migrate drain: interrupted; queue '" + queue + "': " + Sizes.count(stopped.completed()) + " jobs"
                        + " completed by this drain (it claimed nothing more and finished the jobs it held), "
                        + Sizes.count(stopped.left()) + " left; run drain again and it continues" + stopped.unrecorded().map(why ->
                        ", but the migrated jobs this drain served could not be recorded in the journal (" + why + "): the next"
                        + " drain reports them never claimed").orElse(" (the jobs this drain served are recorded in the journal,"
                        + " and counted served by it)"));
                return ExitCodes.INTERRUPTED;
            }
        }
    }

    /**
     * What a refusal of a paused queue says of {@code --resume}: for a queue no migration paused, that it (or clearing
     * the pause by hand) serves it; for a copy whose v1 source still holds the same jobs (stopped at verified, or
     * inside its retirement), only that {@code --resume} serves it anyway once confirmed, never the hand-made way round
     * the confirmation; nothing before verified, where {@code --resume} is refused too.
     */
    private static String resumeHint(Drain.MigrationStop stop, String queue) {
        return switch (stop) {
            case NONE -> ". Add --resume to resume it and drain it (or resume it yourself: HDEL " + Keys.queue(queue).meta()
                    + " paused).";
            case AT_VERIFIED -> "; --resume serves it anyway, once confirmed, while v1 holds the same jobs.";
            case INSIDE_RETIREMENT -> "; --resume serves it anyway, once confirmed, before its retirement finished.";
            case BEFORE_VERIFIED -> ".";
        };
    }

    /**
     * Says why a {@code --lanes} drain will find none of the jobs of a queue migrated into the flat pending set (no
     * {@code --lane} nor {@code --lane-from}) whose ring is empty: a lanes consumer claims through the ring only.
     */
    private static void noteAFlatQueue(Wire wire, String queue, Invocation in) {
        Keys keys = Keys.queue(queue);
        long flat = wire.client().zcard(keys.pending());
        if (flat > 0 && wire.client().llen(keys.structure(StructureType.RING)) == 0) {
            in.note("queue '" + queue + "' was migrated into the flat pending set (" + flat + " jobs there) and has no lanes (its"
                    + " ring is empty): a consumer that claims through lanes, as this drain does with --lanes, never sees those"
                    + " jobs; migrate with --lane GROUP or --lane-from name|group for a lanes consumer (abandon this migration"
                    + " first, before its retirement), or drain without --lanes for a flat one");
        }
    }

    /**
     * Copies the queue, drains and judges the copy, deletes it; the queue is only read. Stopped (Ctrl-C, SIGTERM) while it
     * copies or drains, it deletes the copy as it exits, or names it and how to delete it when it cannot.
     */
    private static int drainShadow(Wire wire, String queue, DrainOptions options, JobHandler handler, String handlerName,
                                   Path htmlFile, Endpoint target, Invocation in) throws InterruptedException {
        ShadowQueue.found(wire.client(), queue).forEach((name, keys) -> in.note("emq-migrate drain: the scratch queue '" + name
                + "' (" + Sizes.count(keys) + " keys) of an earlier shadow drain of '" + queue + "' is on " + target.describe()
                + ": that drain was killed before it could delete it, or runs now. Unless one runs now, delete it: "
                + deleteCommand(name)));
        ShadowQueue shadow = ShadowQueue.of(wire.client(), queue);
        Thread interrupted = new Thread(() -> in.note("emq-migrate drain: interrupted; " + discarded(shadow, queue, target)));
        Runtime.getRuntime().addShutdownHook(interrupted);
        try (shadow) {
            in.note("copying queue '" + queue + "' into the scratch queue '" + shadow.name() + "'");
            shadow.copy();
            in.note("copied queue '" + queue + "' into the scratch queue '" + shadow.name() + "' (" + shadow.keys()
                    + " keys); draining the copy");
            Jobs.on(wire, shadow.name()).resume();
            DrainReport report = drainWithProgress(Drain.ofShadow(wire, queue, shadow), options, handler, target, in);
            render(report, handlerName, htmlFile, target, in);
            in.note("deleted the scratch queue '" + shadow.name() + "'; queue '" + queue + "' was only read");
            return exitCode(report, handlerName);
        } finally {
            Runtime.getRuntime().removeShutdownHook(interrupted);
        }
    }

    /** Deletes the scratch copy of a stopped shadow drain: what became of it, and when it could not, how to delete it. */
    private static String discarded(ShadowQueue shadow, String queue, Endpoint target) {
        String why;
        try {
            if (shadow.discard()) {
                return "deleted the scratch queue '" + shadow.name() + "'; queue '" + queue + "' was only read";
            }
            why = "the drain kept writing to it";
        } catch (RuntimeException unreachable) {
            why = unreachable.getMessage();
        }
        return "the scratch queue '" + shadow.name() + "' could not be deleted (" + why + "): its keys are left on "
                + target.describe() + ", unpaused; queue '" + queue + "' was only read. Delete them: " + deleteCommand(shadow.name());
    }

    /** The shell command that deletes every key of the scratch queue {@code name}. */
    private static String deleteCommand(String name) {
        return "redis-cli -u URI --scan --pattern '" + Keys.queue(name).base() + "*' | xargs redis-cli -u URI unlink (URI: the"
                + " target's; add -c to the second for a cluster)";
    }

    private static void render(DrainReport report, String handlerName, Path htmlFile, Endpoint target, Invocation in) {
        if (in.json()) {
            Json.print(DrainOutput.json(report, handlerName, target.describe()), in.out());
        } else {
            DrainOutput.text(report, handlerName, in.out());
        }
        if (htmlFile != null) {
            DrainOutput.html(report, handlerName, target.describe(), htmlFile);
            in.note("wrote " + htmlFile.toAbsolutePath());
        }
    }

    private static DrainReport drainWithProgress(Drain drain, DrainOptions options, JobHandler handler, Endpoint target, Invocation in)
            throws InterruptedException {
        try (Progress progress = in.progress("drain " + drain.queue(), drain.backlog(options), "jobs")) {
            return drain.run(options, handler, new ConsumerListener() {
                /** The errors told so far, each kind once: the consumer retries a refused call every beat. */
                private final Set<String> told = ConcurrentHashMap.newKeySet();

                @Override
                public void completed(Delivery job) {
                    progress.advance(1);
                }

                @Override
                public void dead(Delivery job, Throwable cause) {
                    progress.advance(1);
                }

                @Override
                public void error(Throwable error) {
                    String said = error instanceof JedisConnectionException lost
                            ? ConnectionLoss.of(lost, "the target " + target.describe()) + ", which the drain tries again on a new connection"
                            : "the server refused a call, which the drain retries until it is taken (" + error.getMessage() + "); a server"
                            + " out of memory, a read-only replica or one that cannot save to disk refuses until it is fixed";
                    // one script's refusal and another's differ only in the script's SHA-1 and line
                    if (told.size() < MOST_ERRORS_TOLD && told.add(said.replaceAll("[0-9a-f]{40}", "").replaceAll("[0-9]+", ""))) {
                        in.note("emq-migrate drain: " + said + "; Ctrl-C stops the drain, and the jobs it holds go back to pending"
                                + " when their lease lapses");
                    }
                }
            });
        }
    }

    /** validate and dry runs: the verdict; exec: no job dead-lettered; noop: always 0. */
    static int exitCode(DrainReport report, String handler) {
        if (DrainOutput.verdictApplies(report, handler)) {
            return report.passed() ? ExitCodes.OK : ExitCodes.REFUSED;
        }
        boolean dead = report.stats().map(s -> s.dead() > 0).orElse(false);
        return handler.startsWith("exec") && dead ? ExitCodes.REFUSED : ExitCodes.OK;
    }

    /** validate and noop complete each job; exec takes the command as the one argument after it, or in the same one. */
    private static JobHandler handler(Invocation in) {
        String name = in.value("handler", "validate");
        List<String> rest = in.arguments();
        if (name.startsWith("exec ")) {
            rest = List.of(name.substring(5));
            name = "exec";
        }
        switch (name) {
            case "validate", "noop" -> {
                if (rest.isEmpty()) {
                    return job -> { };
                }
            }
            case "exec" -> {
                if (rest.size() == 1 && !rest.get(0).isBlank()) {
                    return new ExecHandler(rest.get(0));
                }
                throw CliException.usage("--handler exec takes one command, quoted: --handler exec 'CMD ARGS'");
            }
            default -> throw CliException.usage("--handler must be validate, noop or exec CMD, not '" + name + "'");
        }
        throw CliException.usage("unexpected argument '" + rest.get(0) + "'");
    }
}
