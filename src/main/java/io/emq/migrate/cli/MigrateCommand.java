package io.emq.migrate.cli;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.CompletedArchive;
import io.emq.migrate.migrate.JobLanes;
import io.emq.migrate.migrate.JournalLease;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.QueueCounts;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.VersionFence;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code emq-migrate migrate --source URI [--target URI] (--queue Q... | --all)}: runs the pending
 * steps of each queue and prints a summary (jobs this run wrote per v2 state and the queue's jobs in v2 over all runs,
 * refusals, time, jobs/s of the queues that ended well, and each
 * retired queue's pause window: how long its v1 queue was paused).
 */
final class MigrateCommand implements Command {
    /** The most queues {@code --parallel} runs at once. */
    static final int MAX_PARALLEL = 64;
    /** The most queues a note of the summary names one by one. */
    static final int NAMED = 5;

    public void options(Options options) {
        DiscoverCommand.prefixOption(options);
        options.addOption(Cli.valued("queue", "Q", "a v1 queue to migrate (repeatable; PREFIX:QUEUE when ambiguous)"))
                .addOption(null, "all", false, "migrate every queue discovered under the prefixes")
                .addOption(Cli.valued("payload", "POLICY", "envelope (default: name, data and v1 provenance) or data (the v1 bytes)"))
                .addOption(Cli.valued("rename", "OLD=NEW", "migrate v1 queue OLD as v2 queue NEW (repeatable)"))
                .addOption(null, "keep-branded-ids", false, "keep v1 ids that are already JOB branded ids")
                .addOption(Cli.valued("wait-for-locks", "DURATION", "wait up to DURATION (e.g. 2m) for live v1 locks to lapse"))
                .addOption(Cli.valued("archive-completed", "FILE", "write completed v1 jobs to this JSON Lines FILE first"))
                .addOption(null, "no-retire", false, "stop after verify; keep the v1 source")
                .addOption(null, "accept-anomalies", false, "migrate queues with anomalies as the plan describes")
                .addOption(null, "accept-order-drift", false, "retire a queue whose v2 order breaks v1's (jobs v1 moved ahead"
                        + " while it served) instead of refusing it; migrate prints where")
                .addOption(null, "drop-cron-schedulers", false, "drop cron schedulers, which have no v2 form")
                .addOption(null, "drop-legacy-repeatables", false, "drop legacy repeatables, which have no v2 form")
                .addOption(null, "drop-bounded-schedulers", false, "drop every schedulers with a limit or an end date, which have no v2 form")
                .addOption(Cli.valued("lease", "DURATION", "how long the queue lock outlives a crashed migrator (default 15s)"))
                .addOption(Cli.valued("parallel", "N", "migrate N queues at once, each under its own lease (default 1);"
                        + " every queue finishes a step before any queue starts the next, so flows across queues still"
                        + " find their partners"))
                .addOption(laneOption())
                .addOption(laneFromOption());
    }

    public int run(Invocation in) {
        List<String> queues = in.values("queue");
        if (queues.isEmpty() == !in.has("all")) {
            throw CliException.usage(queues.isEmpty() ? "give --queue Q (one or more) or --all" : "give --queue Q (one or more) or --all, not both");
        }
        MigrationOptions options = migrationOptions(in);
        int parallel = in.number("parallel", 1, 1, MAX_PARALLEL);
        Checkpoints checkpoints = crashTestCheckpoints();
        Endpoint source = in.require(Side.SOURCE);
        Endpoint target = in.targetOrSource();
        List<String> prefixes = DiscoverCommand.prefixes(in);
        int connections = Migrator.connections(parallel);
        UnifiedJedis sourceClient = in.open(source, Side.SOURCE, connections);
        UnifiedJedis targetClient = target.equals(source) ? sourceClient : in.open(target, Side.TARGET, connections);
        VersionFence.verify(targetClient, in.wireVersion());
        refuseUnfit(in, ServerChecks.of(source, sourceClient, target, targetClient));
        Migrator migrator = new Migrator(Wire.unfenced(sourceClient), Wire.fencedOnFirstCall(targetClient, in.wireVersion()),
                source.describe(), options, checkpoints).parallel(parallel);
        // the queues first: a run refused as a whole (none found, a name found under none of the prefixes...) is refused
        // alone, before the claim note (no write follows) and before the question, which then says what it is about
        Migrator.Selection selection = ofTheSource(source, () -> Scanning.scanning(sourceClient, prefixes, in,
                scanned -> migrator.select(prefixes, queues, scanned)));
        in.noteClaim(targetClient, "migrate");
        boolean asks = options.retire() && !in.has("yes");
        // for the progress total and the question; with --all (thousands of queues, a read each) only when asked
        long jobs = queues.isEmpty() && !asks ? 0 : jobs(sourceClient, selection.queues());
        if (options.retire()) {
            int count = selection.queues().size();
            in.confirm("migrate", "moves " + Sizes.count(count) + " v1 queue" + (count == 1 ? "" : "s") + " (" + Sizes.count(jobs)
                    + " jobs, completed ones aside) and retires the v1 source of each queue it verifies: its v1 keys are deleted"
                    + " (add --no-retire to stop before that)");
        }
        List<MigrationResult> results;
        try (MigrationProgress progress = new MigrationProgress(in, jobs, migrator)) {
            Thread interrupted = new Thread(() -> in.note("emq-migrate migrate: interrupted at " + progress.inFlight()
                    + "; nothing is lost: " + (migrator.releaseLeases() ? "its lease is released: run the same command"
                    + " again and it resumes there" : "run the same command again once this run's lease lapses (--lease, "
                    + options.lease().toMillis() + " ms) and it resumes there")));
            Runtime.getRuntime().addShutdownHook(interrupted);
            try {
                results = migrator.listener(progress).migrate(selection);
                if (results.stream().allMatch(MigrationResult::ok)) {
                    progress.finished();
                }
            } finally {
                Runtime.getRuntime().removeShutdownHook(interrupted);
            }
        }
        if (in.json()) {
            Json.print(Map.of("queues", results.stream().map(MigrateCommand::toJson).toList()), in.out());
        } else {
            summary(results, in.out());
        }
        return results.stream().allMatch(MigrationResult::ok) ? ExitCodes.OK : ExitCodes.REFUSED;
    }

    /**
     * Refuses a server that may evict keys without a TTL, or a replica ({@link ServerChecks}), before anything is written;
     * notes one it cannot read. The servers in turn: the source's problems before the target's note.
     */
    private static void refuseUnfit(Invocation in, List<ServerChecks> servers) {
        for (ServerChecks checks : servers) {
            if (!checks.problems().isEmpty()) {
                throw CliException.refused(String.join("; and ", checks.problems()) + "; then migrate: nothing was written");
            }
            checks.note().ifPresent(note -> in.note("emq-migrate migrate: " + note));
        }
    }

    /**
     * {@code reads}, which read the source alone (the queues' selection): a server error they meet is the source's, and
     * says so ({@link Invocation.ServerProblem}: its address and what to check, as when it was opened).
     */
    private static <T> T ofTheSource(Endpoint source, Supplier<T> reads) {
        try {
            return reads.get();
        } catch (JedisException e) {
            throw new Invocation.ServerProblem(source, Side.SOURCE, e);
        }
    }

    /** The v1 jobs the queues list (completed ones aside). */
    private static long jobs(UnifiedJedis source, List<QueueRef> queues) {
        long jobs = 0;
        for (QueueRef q : queues) {
            for (Map.Entry<V1State, Long> e : QueueCounts.read(source, q).jobs().entrySet()) {
                jobs += e.getKey() == V1State.COMPLETED ? 0 : e.getValue();
            }
        }
        return jobs;
    }

    static MigrationOptions migrationOptions(Invocation in) {
        PayloadPolicy payload = PayloadPolicy.parse(in.value("payload", "envelope"))
                .orElseThrow(() -> CliException.usage("--payload must be envelope or data, not '" + in.value("payload", "") + "'"));
        Duration wait = in.duration("wait-for-locks", Duration.ZERO);
        Duration lease = in.duration("lease", MigrationOptions.DEFAULT_LEASE);
        JournalLease.problem(lease).ifPresent(problem -> {
            throw CliException.usage("--lease: " + problem);
        });
        Optional<Path> archive = in.has("archive-completed") ? Optional.of(in.outputFile("archive-completed")) : Optional.empty();
        archive.flatMap(CompletedArchive::notAnArchive).ifPresent(why -> {
            throw CliException.usage("--archive-completed: " + why);
        });
        return new MigrationOptions(payload, PlanCommand.renames(in), in.has("keep-branded-ids"), wait, archive, !in.has("no-retire"),
                in.has("accept-anomalies"), in.has("drop-cron-schedulers"), in.has("drop-legacy-repeatables"), in.has("drop-bounded-schedulers"), lease, lane(in), laneFrom(in),
                in.has("accept-order-drift"));
    }

    /** {@code --lane GROUP}, shared by plan and migrate: a branded group id, or empty for the flat pending set. */
    static Optional<BrandedId> lane(Invocation in) {
        return in.value("lane").map(l -> {
            if (!BrandedId.isValid(l)) {
                throw CliException.usage("--lane must be a branded group id (three letters and eleven base62"
                        + " characters, e.g. GRP0000000001A), not '" + l + "'");
            }
            return BrandedId.of(l);
        });
    }

    /** {@code --lane-from FIELD}, shared by plan and migrate: name or group (opts.group.id). */
    static Optional<String> laneFrom(Invocation in) {
        return in.value("lane-from").map(f -> {
            if (!JobLanes.FIELDS.contains(f)) {
                throw CliException.usage("--lane-from takes name (the v1 job name) or group (opts.group.id), not '" + f + "'");
            }
            return f;
        });
    }

    static Option laneFromOption() {
        return Cli.valued("lane-from", "FIELD", "one lane per value of a job field: name (the v1 job name) or group"
                + " (opts.group.id, as BullMQ Pro writes it); jobs without a value go to --lane (else to the lane of the"
                + " empty value); each value's lane is GRP + a hash of it, listed in the journal");
    }

    static Option laneOption() {
        return Cli.valued("lane", "GROUP", "migrate the pending jobs into this lane (a branded group id, e.g."
                + " GRP0000000001A), served by lanes consumers such as the reference EchoMQ.Consumer; default:"
                + " the flat pending set");
    }

    private static Map<String, Object> toJson(MigrationResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v1", r.v1Queue());
        m.put("name", r.v2Queue());
        m.put("outcome", r.outcome().wireName());
        m.put("moved", r.moved());
        m.put("refusal", r.refusalKind().map(kind -> Map.of("kind", kind.wireName(), "reason", r.message())).orElse(null));
        m.put("millis", r.millis());
        m.put("jobs", r.jobs());
        m.put("inV2", r.inV2().orElse(null));
        m.put("jobsPerSecond", Math.round(r.jobsPerSecond()));
        m.put("pauseWindowMs", r.pauseWindowMs().orElse(null));
        m.put("orderDrift", r.orderDrift().orElse(null));
        m.put("withoutChangeFeed", r.withoutFeed().orElse(null));
        return m;
    }

    /** The crash point a crash test names in {@code EMQ_CRASH_AT} (none when unset); a bad one is a usage error. */
    private static Checkpoints crashTestCheckpoints() {
        try {
            return Checkpoints.fromEnvironment();
        } catch (IllegalArgumentException bad) {
            throw CliException.usage("EMQ_CRASH_AT: " + bad.getMessage());
        }
    }

    /** Queues as a note names them: each of a few, else the first {@link #NAMED} and how many more. */
    private static String named(List<String> queues) {
        return queues.size() <= NAMED ? String.join(", ", queues)
                : String.join(", ", queues.subList(0, NAMED)) + " and " + Sizes.count(queues.size() - NAMED) + " more queue"
                + (queues.size() - NAMED == 1 ? "" : "s");
    }

    /**
     * One row per queue: what this run wrote into v2 by state, and what the queue's migration holds there over all its runs
     * (so a re-run, which writes only what changed, is not read as "nothing migrated"); then the run's total, which counts
     * the queues that ended well only (a refused or failed queue's rows are a copy, named apart). Queues run side by
     * side (step by step), so time is the run's.
     */
    static void summary(List<MigrationResult> results, PrintStream out) {
        out.println();
        Table t = new Table("V1 QUEUE", "V2 QUEUE", "OUTCOME", "PENDING", "SCHEDULED", "DEAD", "AWAITING", "IN V2");
        List<String> notes = new ArrayList<>();
        List<String> copies = new ArrayList<>();
        long jobs = 0;
        long held = 0;
        long millis = 0;
        for (MigrationResult r : results) {
            t.row(r.v1Queue(), r.v2Queue(), r.outcome().wireName(), r.moved(V2State.PENDING), r.moved(V2State.SCHEDULED),
                    r.moved(V2State.DEAD), r.moved(V2State.AWAITING_CHILDREN), r.inV2().orElse(null));
            if (!r.message().isEmpty()) {
                notes.add(r.v1Queue() + " " + r.outcome().wireName() + r.refusalKind().map(k -> " (" + k.wireName() + ")").orElse("") + ": " + r.message());
            }
            if (r.ok()) {
                jobs += r.jobs();
                held += r.inV2().orElse(0L);
            } else if (r.inV2().orElse(0L) > 0) {
                copies.add(r.v1Queue() + " (" + r.outcome().wireName() + ", " + Sizes.count(r.inV2().get()) + " in v2)");
            }
            millis = Math.max(millis, r.millis());
        }
        t.print(out);
        out.println("(PENDING to AWAITING: the jobs this run wrote into v2, a re-run writes only what changed; IN V2: the jobs"
                + " the queue's migration wrote into v2 over all its runs)");
        notes.forEach(n -> out.println("  " + n));
        long ok = results.stream().filter(MigrationResult::ok).count();
        out.printf("%d of %d queues done; %s jobs moved in %d ms (%d jobs/s)%s%s%n", ok, results.size(), Sizes.count(jobs),
                millis, millis == 0 ? jobs : Math.round(jobs * 1000.0 / millis), jobs > held ? ", " + Sizes.count(jobs - held)
                + " of them writes of jobs v1 moved while it served (written again, or finished by v1 and taken back out): the queues hold " + Sizes.count(held) + " in v2" : "",
                copies.isEmpty() ? "" : "; not counted, a copy"
                + " until their migration finishes (a re-run resumes it, `abandon` removes it): " + String.join(", ", copies));
        results.forEach(r -> r.pauseWindowMs().ifPresent(ms -> out.printf("%s: v1 paused %d ms (the pause window; v1 served"
                + " through the copy)%n", r.v1Queue(), ms)));
        Map<String, List<String>> feedless = new LinkedHashMap<>(); // queues by why they went without the feed: one line a reason
        results.forEach(r -> r.withoutFeed().ifPresent(why -> feedless.computeIfAbsent(why, w -> new ArrayList<>()).add(r.v1Queue())));
        feedless.forEach((why, queues) -> out.printf("%s: re-synced without the change feed (%s): each pass read every job"
                + " again, so the pause window grows with the queue (MIGRATION.md §3)%n", named(queues), why));
        results.forEach(r -> r.orderDrift().ifPresent(drift -> out.printf("%s: v2 holds jobs v1 moved while it served in"
                + " another order than v1's: %s (MIGRATION.md §3, \"Order\")%n", r.v1Queue(), drift)));
    }
}
