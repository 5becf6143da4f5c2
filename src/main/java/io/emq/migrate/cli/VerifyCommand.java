package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.Verifier;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.wire.Endpoint;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code emq-migrate verify --source URI --target URI --queue Q [--json]}: re-checks a migrated queue
 * with reads only: counts per structure, a digest per job (payload bytes, attempts, state), every
 * written key parses; and, while the v1 source still exists, every v1 job has its row.
 */
public final class VerifyCommand {
    private VerifyCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "source", true, "the v1 server (omit after the source was retired)")
                .addOption(null, "target", true, "the v2 server or cluster")
                .addOption(WireVersionOption.option())
                .addOption(null, "queue", true, "the v2 queue")
                .addOption(null, "accept-anomalies", false, "as given to migrate: orphan hashes were migrated")
                .addOption(null, "json", false, "print one JSON document");
        Optional<CommandLine> parsed = CommandLines.parse("verify", "--source URI --target URI --queue Q", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        if (!line.hasOption("queue")) {
            err.println("emq-migrate verify: --queue Q is required");
            return ExitCodes.USAGE;
        }
        Optional<Endpoint> source = line.hasOption("source")
                ? Servers.endpoint("verify", "source", line.getOptionValue("source"), "SOURCE", err) : Optional.empty();
        if (line.hasOption("source") && source.isEmpty()) {
            return ExitCodes.USAGE;
        }
        MigrationOptions migrated = MigrationOptions.defaults().withAcceptAnomalies(line.hasOption("accept-anomalies"));
        return Servers.withTarget("verify", line.getOptionValue("target"), WireVersionOption.of(line), err, wire -> {
            String queue = line.getOptionValue("queue");
            Journal journal = new Journal(wire, queue);
            Optional<QueueSnapshot> snapshot = Optional.empty();
            boolean retired = journal.state().map(s -> s == Journal.State.RETIRED).orElse(false);
            if (source.isPresent() && !retired && journal.get("v1_prefix").isPresent()) {
                try (UnifiedJedis client = source.get().open()) {
                    snapshot = Optional.of(snapshot(client, journal));
                } catch (JedisException e) {
                    err.println(Servers.unreachable("verify", source.get(), "SOURCE", e));
                    return ExitCodes.USAGE;
                }
            }
            Verifier.Report report = new Verifier(wire, queue).verify(snapshot, migrated);
            print(report, snapshot.isPresent(), retired, line.hasOption("json"), out);
            return report.passed() ? ExitCodes.OK : ExitCodes.REFUSED;
        });
    }

    private static QueueSnapshot snapshot(UnifiedJedis client, Journal journal) {
        String prefix = journal.get("v1_prefix").orElseThrow();
        QueueRef queue = QueueRef.of(prefix, journal.get("v1_name").orElseThrow());
        List<QueueRef> all = new Discovery(client).discover(List.of(prefix)).queues();
        return new QueueSnapshotReader(client, new QueueBases(all)).read(queue);
    }

    private static void print(Verifier.Report r, boolean sourceChecked, boolean retired, boolean json, PrintStream out) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("name", r.queue());
            doc.put("passed", r.passed());
            doc.put("expected", r.expected());
            doc.put("found", r.found());
            doc.put("jobsChecked", r.jobsChecked());
            doc.put("keysChecked", r.keysChecked());
            doc.put("sourceChecked", sourceChecked);
            doc.put("problems", r.problems());
            doc.put("problemCount", r.problemCount());
            Json.print(doc, out);
            return;
        }
        Table t = new Table("STRUCTURE", "JOURNAL", "FOUND");
        for (String s : List.of("pending", "scheduled", "dead", "awaiting_children")) {
            t.row(s, r.expected().getOrDefault(s, 0L), r.found().getOrDefault(s, r.expected().getOrDefault(s, 0L)));
        }
        t.print(out);
        out.printf("%d jobs checked (state, attempts, payload digest), %d keys parsed; source %s%n", r.jobsChecked(),
                r.keysChecked(), sourceChecked ? "compared" : retired ? "retired (not compared)" : "not given");
        r.problems().forEach(p -> out.println("  PROBLEM " + p));
        out.println(r.passed() ? "VERIFIED " + r.queue() : "FAILED " + r.queue() + ": " + r.problemCount() + " problems");
    }
}
