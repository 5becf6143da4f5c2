package io.emq.migrate.cli;

import io.emq.migrate.drain.Drain;
import io.emq.migrate.drain.DrainOptions;
import io.emq.migrate.drain.DrainReport;
import io.emq.migrate.drain.ShadowQueue;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.drain.ExecHandler;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.JobHandler;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code emq-migrate drain --target URI --queue Q [--workers N] [--handler validate|noop|exec CMD]
 * [--json] [--until-empty-schedule] [--dry-run] [--resume] [--shadow] [--html FILE]}: serves a migrated
 * queue (or, with {@code --shadow}, a scratch copy of it) with the bundled consumer until it is empty
 * and, with the default {@code validate} handler, judges the drain against the queue's journal. Exit 0 when everything matched, 3 otherwise, 2 on bad
 * usage or an unreachable server.
 */
public final class DrainCommand {
    static final String SYNTAX = "--target URI --queue Q [--workers N] [--handler validate|noop|exec CMD] [--json]"
            + " [--until-empty-schedule] [--dry-run] [--resume] [--shadow] [--html FILE]";

    private DrainCommand() {
    }

    static Options options() {
        return new Options()
                .addOption(withArg("target", "URI", "the v2 server or cluster (redis://host:port, rediss://…, h1:p1,h2:p2)"))
                .addOption(withArg("queue", "Q", "the v2 queue to drain"))
                .addOption(withArg("workers", "N", "worker threads (default 1; with 1, serve order is checked globally)"))
                .addOption(withArg("handler", "NAME", "validate (default: complete each job and check it against the"
                        + " journal), noop (complete each job), or exec CMD (run /bin/sh -c CMD per job with its v2 payload on"
                        + " stdin and EMQ_QUEUE, EMQ_JOB_ID, EMQ_ATTEMPTS set; exit 0 completes, anything else retries)"))
                .addOption(null, "until-empty-schedule", false, "also wait for scheduled jobs due later")
                .addOption(null, "dry-run", false, "claim nothing: check pending and schedule against the journal")
                .addOption(null, "resume", false, "resume a paused queue before draining it")
                .addOption(null, "shadow", false, "drain a scratch copy of the queue on the same target, then delete the"
                        + " copy: the queue itself is only read (its production work is not consumed)")
                .addOption(withArg("html", "FILE", "also write a self-contained HTML report to FILE"))
                .addOption(null, "json", false, "print one JSON document");
    }

    private static Option withArg(String name, String arg, String description) {
        return Option.builder().longOpt(name).hasArg().argName(arg).desc(description).get();
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Optional<CommandLine> parsed = CommandLines.parse("drain", SYNTAX, options(), args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        String queue = line.getOptionValue("queue");
        if (queue == null || !Names.isQueueName(queue)) {
            err.println("emq-migrate drain: --queue Q is required and must be a v2 queue name ([A-Za-z0-9._-], not emq)");
            return ExitCodes.USAGE;
        }
        Optional<Integer> workers = workers(line, err);
        Optional<JobHandler> handler = handler(line, err);
        Optional<Endpoint> target = Servers.endpoint("drain", "target", line.getOptionValue("target"), "TARGET", err);
        if (workers.isEmpty() || handler.isEmpty() || target.isEmpty()) {
            return ExitCodes.USAGE;
        }
        String handlerName = line.getOptionValue("handler", "validate").startsWith("exec") ? "exec"
                : line.getOptionValue("handler", "validate");
        boolean dryRun = line.hasOption("dry-run");
        DrainOptions options = DrainOptions.defaults().withWorkers(workers.get())
                .withUntilEmptySchedule(line.hasOption("until-empty-schedule"));
        if (line.hasOption("shadow") && (dryRun || line.hasOption("resume"))) {
            err.println("emq-migrate drain: --shadow drains a copy (already claimable); it goes with neither --dry-run"
                    + " nor --resume");
            return ExitCodes.USAGE;
        }
        try (UnifiedJedis client = Clients.open(target.get(), workers.get() + 4)) {
            if (line.hasOption("shadow")) {
                if (!new Drain(Wire.source(client), queue).journaled()) {
                    err.println("emq-migrate drain: no journal " + Keys.migrationJournal(queue) + " on " + target.get().describe()
                            + ": queue '" + queue + "' was not migrated there, so there is nothing to shadow and validate");
                    return ExitCodes.REFUSED;
                }
                return drainShadow(client, queue, options, handler.get(), handlerName, line, target.get(), out, err);
            }
            Drain drain = new Drain(dryRun ? Wire.source(client) : Wire.open(client), queue);
            if (!drain.journaled() && (dryRun || handlerName.equals("validate"))) {
                err.println("emq-migrate drain: no journal " + Keys.migrationJournal(queue) + " on " + target.get().describe()
                        + ": queue '" + queue + "' was not migrated there, so there is nothing to validate against"
                        + " (check --target and --queue; --handler noop drains a queue without a journal)");
                return ExitCodes.REFUSED;
            }
            Optional<String> paused = drain.pausedBecause();
            if (paused.isPresent() && !dryRun) {
                if (!line.hasOption("resume")) {
                    err.println("emq-migrate drain: queue '" + queue + "' is paused: " + paused.get() + ". Nothing was"
                            + " claimed. Add --resume to resume it and drain it (or resume it yourself: HDEL "
                            + Keys.queue(queue).meta() + " paused).");
                    return ExitCodes.REFUSED;
                }
                drain.resume();
                err.println("resumed queue '" + queue + "', which was paused: " + paused.get());
            }
            DrainReport report = dryRun ? drain.dryRun() : drainWithProgress(drain, options, handler.get(), err);
            render(report, handlerName, line, target.get(), out, err);
            return exitCode(report, handlerName);
        } catch (EmqWireException.VersionFence e) {
            err.println("emq-migrate drain: " + e.getMessage());
            return ExitCodes.REFUSED;
        } catch (JedisException e) {
            err.println(Servers.unreachable("drain", target.get(), "TARGET", e));
            return ExitCodes.USAGE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("emq-migrate drain: interrupted");
            return ExitCodes.REFUSED;
        }
    }

    /** Copies the queue, drains and judges the copy, deletes it; the queue is only read. */
    private static int drainShadow(UnifiedJedis client, String queue, DrainOptions options, JobHandler handler,
                                   String handlerName, CommandLine line, Endpoint target, PrintStream out, PrintStream err)
            throws InterruptedException {
        Wire wire = Wire.open(client);
        try (ShadowQueue shadow = ShadowQueue.copyOf(client, queue)) {
            err.println("copied queue '" + queue + "' into the scratch queue '" + shadow.name() + "' (" + shadow.keys()
                    + " keys); draining the copy");
            Jobs.on(wire, shadow.name()).resume();
            DrainReport report = drainWithProgress(Drain.ofShadow(wire, queue, shadow), options, handler, err);
            render(report, handlerName, line, target, out, err);
            err.println("deleted the scratch queue '" + shadow.name() + "'; queue '" + queue + "' was only read");
            return exitCode(report, handlerName);
        }
    }

    private static DrainReport drainWithProgress(Drain drain, DrainOptions options, JobHandler handler, PrintStream err)
            throws InterruptedException {
        try (Progress progress = Progress.start("drain " + drain.queue(), drain.backlog(options), "jobs", err)) {
            return drain.run(options, handler, new ConsumerListener() {
                @Override
                public void completed(Delivery job) {
                    progress.advance(1);
                }

                @Override
                public void dead(Delivery job, Throwable cause) {
                    progress.advance(1);
                }
            });
        }
    }

    private static void render(DrainReport report, String handlerName, CommandLine line, Endpoint target, PrintStream out,
                               PrintStream err) {
        if (line.hasOption("json")) {
            Json.print(DrainOutput.json(report, handlerName, target.describe()), out);
        } else {
            DrainOutput.text(report, handlerName, out);
        }
        if (line.hasOption("html")) {
            Path file = Path.of(line.getOptionValue("html"));
            DrainOutput.html(report, handlerName, target.describe(), file);
            err.println("wrote " + file.toAbsolutePath());
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

    private static Optional<Integer> workers(CommandLine line, PrintStream err) {
        String text = line.getOptionValue("workers", "1");
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= 256) {
                return Optional.of(n);
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        err.println("emq-migrate drain: --workers takes a number from 1 to 256, got '" + text + "'");
        return Optional.empty();
    }

    /** validate and noop complete each job; exec takes the command as the one argument after it, or in the same one. */
    private static Optional<JobHandler> handler(CommandLine line, PrintStream err) {
        String name = line.getOptionValue("handler", "validate");
        List<String> rest = line.getArgList();
        if (name.startsWith("exec ")) {
            rest = List.of(name.substring(5));
            name = "exec";
        }
        switch (name) {
            case "validate", "noop" -> {
                if (rest.isEmpty()) {
                    return Optional.of(job -> { });
                }
            }
            case "exec" -> {
                if (rest.size() == 1 && !rest.get(0).isBlank()) {
                    return Optional.of(new ExecHandler(rest.get(0)));
                }
                err.println("emq-migrate drain: --handler exec takes one command, quoted: --handler exec 'CMD ARGS'");
                return Optional.empty();
            }
            default -> {
                err.println("emq-migrate drain: --handler must be validate, noop or exec CMD, got '" + name + "'");
                return Optional.empty();
            }
        }
        err.println("emq-migrate drain: unexpected arguments " + rest);
        return Optional.empty();
    }
}
