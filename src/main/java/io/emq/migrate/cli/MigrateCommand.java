package io.emq.migrate.cli;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.v1.plan.PayloadPolicy;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code emq-migrate migrate --source URI [--target URI] (--queue Q... | --all)}: runs the pending
 * steps of each queue and prints a summary (jobs moved per v2 state, refusals, time, jobs/s).
 */
public final class MigrateCommand {
    private MigrateCommand() {
    }

    static Options options() {
        return new Options()
                .addOption(null, "source", true, "the v1 server (redis://host:port)")
                .addOption(null, "target", true, "the v2 server or cluster (default: the source)")
                .addOption(null, "queue", true, "a v1 queue to migrate (repeatable; PREFIX:QUEUE when ambiguous)")
                .addOption(null, "all", false, "migrate every queue discovered under the prefixes")
                .addOption(null, "prefix", true, "v1 key prefix (repeatable, default bull)")
                .addOption(null, "payload", true, "envelope (default: name, data and v1 provenance) or data (the v1 bytes)")
                .addOption(null, "rename", true, "OLD=NEW: migrate v1 queue OLD as v2 queue NEW (repeatable)")
                .addOption(null, "keep-branded-ids", false, "keep v1 ids that are already JOB branded ids")
                .addOption(null, "wait-for-locks", true, "wait up to DURATION (e.g. 2m) for live v1 locks to lapse")
                .addOption(null, "archive-completed", true, "write completed v1 jobs to this JSON Lines FILE first")
                .addOption(null, "no-retire", false, "stop after verify; keep the v1 source")
                .addOption(null, "accept-anomalies", false, "migrate queues with anomalies as the plan describes")
                .addOption(null, "drop-cron-schedulers", false, "drop cron schedulers, which have no v2 form")
                .addOption(null, "drop-legacy-repeatables", false, "drop legacy repeatables, which have no v2 form")
                .addOption(null, "lease", true, "how long the queue lock outlives a crashed migrator (default 15s)")
                .addOption(null, "json", false, "print one JSON document");
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Optional<CommandLine> parsed = CommandLines.parse("migrate", "--source URI [--target URI] (--queue Q... | --all)",
                options(), args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        List<String> queues = values(line, "queue");
        if (queues.isEmpty() == !line.hasOption("all")) {
            err.println("emq-migrate migrate: give --queue Q (one or more) or --all, not both");
            return ExitCodes.USAGE;
        }
        Optional<MigrationOptions> options = migrationOptions(line, err);
        Optional<Endpoint> source = Servers.endpoint("migrate", "source", line.getOptionValue("source"), "SOURCE", err);
        if (options.isEmpty() || source.isEmpty()) {
            return ExitCodes.USAGE;
        }
        Optional<Endpoint> target = line.hasOption("target")
                ? Servers.endpoint("migrate", "target", line.getOptionValue("target"), "TARGET", err) : source;
        if (target.isEmpty()) {
            return ExitCodes.USAGE;
        }
        List<String> prefixes = line.hasOption("prefix") ? values(line, "prefix") : List.of("bull");
        boolean json = line.hasOption("json");
        Endpoint current = source.get();
        String role = "SOURCE";
        try (UnifiedJedis sourceClient = source.get().open();
             UnifiedJedis targetClient = target.get().equals(source.get()) ? null : target.get().open()) {
            Wire sourceWire = Wire.source(sourceClient);
            current = target.get();
            role = "TARGET";
            Wire targetWire = Wire.open(targetClient == null ? sourceClient : targetClient);
            Migrator migrator = new Migrator(sourceWire, targetWire, source.get().describe(), options.get(),
                    Checkpoints.fromEnvironment());
            List<MigrationResult> results;
            try (MigrationProgress progress = MigrationProgress.on(out, err, queues.size(), json)) {
                results = migrator.listener(progress).migrate(prefixes, queues);
            }
            if (json) {
                Json.print(Map.of("queues", results.stream().map(MigrateCommand::toJson).toList()), out);
            } else {
                summary(results, out);
            }
            return results.stream().allMatch(MigrationResult::ok) ? ExitCodes.OK : ExitCodes.REFUSED;
        } catch (MigrationRefused e) {
            err.println("emq-migrate migrate: " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (EmqWireException.VersionFence e) {
            err.println("emq-migrate migrate: " + e.getMessage());
            return ExitCodes.REFUSED;
        } catch (JedisException e) {
            err.println(Servers.unreachable("migrate", current, role, e));
            return ExitCodes.USAGE;
        }
    }

    static List<String> values(CommandLine line, String option) {
        String[] v = line.getOptionValues(option);
        return v == null ? List.of() : List.of(v);
    }

    static Optional<MigrationOptions> migrationOptions(CommandLine line, PrintStream err) {
        Optional<PayloadPolicy> payload = PayloadPolicy.parse(line.getOptionValue("payload", "envelope"));
        if (payload.isEmpty()) {
            err.println("emq-migrate migrate: --payload must be envelope or data");
            return Optional.empty();
        }
        Map<String, String> renames = new LinkedHashMap<>();
        for (String r : values(line, "rename")) {
            int eq = r.indexOf('=');
            if (eq <= 0 || eq == r.length() - 1) {
                err.println("emq-migrate migrate: --rename takes OLD=NEW, got '" + r + "'");
                return Optional.empty();
            }
            renames.put(r.substring(0, eq), r.substring(eq + 1));
        }
        Optional<Duration> wait = duration(line, "wait-for-locks", Duration.ZERO, err);
        Optional<Duration> lease = duration(line, "lease", MigrationOptions.DEFAULT_LEASE, err);
        if (wait.isEmpty() || lease.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> tooShort = Journal.leaseProblem(lease.get());
        if (tooShort.isPresent()) {
            err.println("emq-migrate migrate: --lease: " + tooShort.get());
            return Optional.empty();
        }
        return Optional.of(new MigrationOptions(payload.get(), renames, line.hasOption("keep-branded-ids"), wait.get(),
                Optional.ofNullable(line.getOptionValue("archive-completed")).map(Path::of), !line.hasOption("no-retire"),
                line.hasOption("accept-anomalies"), line.hasOption("drop-cron-schedulers"),
                line.hasOption("drop-legacy-repeatables"), lease.get()));
    }

    private static Optional<Duration> duration(CommandLine line, String option, Duration otherwise, PrintStream err) {
        if (!line.hasOption(option)) {
            return Optional.of(otherwise);
        }
        Optional<Duration> d = Durations.parse(line.getOptionValue(option));
        if (d.isEmpty()) {
            err.println("emq-migrate migrate: --" + option + " takes a duration like 500ms, 30s, 2m");
        }
        return d;
    }

    private static Map<String, Object> toJson(MigrationResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v1", r.v1Queue());
        m.put("name", r.v2Queue());
        m.put("outcome", r.outcome());
        m.put("moved", r.moved());
        m.put("refusal", r.refusalKind().isEmpty() ? null : Map.of("kind", r.refusalKind(), "reason", r.message()));
        m.put("millis", r.millis());
        m.put("jobs", r.jobs());
        m.put("jobsPerSecond", Math.round(r.jobsPerSecond()));
        return m;
    }

    /** One row per queue, then the run's total: queues run side by side (step by step), so time is the run's. */
    private static void summary(List<MigrationResult> results, PrintStream out) {
        out.println();
        Table t = new Table("V1 QUEUE", "V2 QUEUE", "OUTCOME", "PENDING", "SCHEDULED", "DEAD", "AWAITING");
        List<String> notes = new ArrayList<>();
        long jobs = 0;
        long millis = 0;
        for (MigrationResult r : results) {
            t.row(r.v1Queue(), r.v2Queue(), r.outcome(), r.moved().getOrDefault("pending", 0L),
                    r.moved().getOrDefault("scheduled", 0L), r.moved().getOrDefault("dead", 0L),
                    r.moved().getOrDefault("awaiting_children", 0L));
            if (!r.message().isEmpty()) {
                notes.add(r.v1Queue() + " " + r.outcome() + " (" + r.refusalKind() + "): " + r.message());
            }
            jobs += r.jobs();
            millis = Math.max(millis, r.millis());
        }
        t.print(out);
        notes.forEach(n -> out.println("  " + n));
        long ok = results.stream().filter(MigrationResult::ok).count();
        out.printf("%d of %d queues done; %d jobs moved in %d ms (%d jobs/s)%n", ok, results.size(), jobs, millis,
                millis == 0 ? jobs : Math.round(jobs * 1000.0 / millis));
    }
}
