package io.emq.migrate.cli;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.QueueCounts;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.V1State;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;

/** {@code emq-migrate discover --source URI [--prefix P]... [--json]}: the v1 queues with their counts. Reads only. */
public final class DiscoverCommand {
    static final String DEFAULT_PREFIX = "bull";

    private DiscoverCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = sourceOptions().addOption(null, "json", false, "print one JSON document");
        Optional<CommandLine> parsed = CommandLines.parse("discover", "--source URI [--prefix P]... [--json]", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        List<String> prefixes = prefixes(line);
        return Servers.withSource("discover", line.getOptionValue("source"), err, jedis -> {
            DiscoveryResult found = Scanning.discover(jedis, prefixes, err);
            List<QueueCounts> counts = new ArrayList<>();
            for (QueueRef q : found.queues()) {
                counts.add(QueueCounts.read(jedis, q));
            }
            if (line.hasOption("json")) {
                Json.print(json(line.getOptionValue("source"), found, counts), out);
            } else {
                text(found, counts, out);
            }
            return ExitCodes.OK;
        });
    }

    static Options sourceOptions() {
        return new Options()
                .addOption(Option.builder().longOpt("source").hasArg().argName("URI").required()
                        .desc("the v1 server, redis://[user[:pass]@]host:port[/db]").get())
                .addOption(Option.builder().longOpt("prefix").hasArg().argName("P")
                        .desc("a v1 key prefix (repeatable; default " + DEFAULT_PREFIX + ")").get());
    }

    static List<String> prefixes(CommandLine line) {
        String[] given = line.getOptionValues("prefix");
        return given == null ? List.of(DEFAULT_PREFIX) : List.of(given);
    }

    private static Map<String, Object> json(String source, DiscoveryResult found, List<QueueCounts> counts) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("source", io.emq.migrate.wire.Endpoint.redact(source));
        doc.put("prefixes", found.prefixes());
        List<Map<String, Object>> queues = new ArrayList<>();
        for (QueueCounts c : counts) {
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("name", c.queue().name().display());
            q.put("prefix", c.queue().prefix().display());
            q.put("jobs", jobs(c.jobs()));
            q.put("paused", c.paused());
            q.put("version", c.version());
            queues.add(q);
        }
        doc.put("queues", queues);
        doc.put("keysUnderPrefixes", found.keysUnderPrefixes());
        doc.put("foreignKeys", found.foreignKeys());
        doc.put("foreignSample", found.foreignSample().stream().map(Bytes::display).toList());
        doc.put("keysOutsidePrefixes", found.keysOutsidePrefixes());
        return doc;
    }

    static Map<String, Long> jobs(Map<V1State, Long> counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (V1State s : V1State.LISTED) {
            out.put(s.wireName(), counts.getOrDefault(s, 0L));
        }
        return out;
    }

    private static void text(DiscoveryResult found, List<QueueCounts> counts, PrintStream out) {
        out.println("v1 queues under " + String.join(", ", found.prefixes()) + ": " + counts.size());
        if (!counts.isEmpty()) {
            List<String> header = new ArrayList<>(List.of("PREFIX", "QUEUE"));
            V1State.LISTED.forEach(s -> header.add(s.wireName().toUpperCase()));
            header.add("META.PAUSED");
            header.add("VERSION");
            Table table = new Table(header.toArray(new String[0]));
            for (QueueCounts c : counts) {
                List<Object> row = new ArrayList<>(List.of(c.queue().prefix().display(), c.queue().name().display()));
                V1State.LISTED.forEach(s -> row.add(c.jobs().get(s)));
                row.add(c.paused() ? "yes" : "no");
                row.add(c.version());
                table.row(row.toArray());
            }
            table.print(out);
        }
        out.println(found.keysUnderPrefixes() + " keys under the prefixes; " + found.foreignKeys()
                + " belong to no queue (foreign, untouched)" + (found.foreignSample().isEmpty() ? ""
                : ": " + String.join(", ", found.foreignSample().stream().map(Bytes::display).toList())));
        out.println(found.keysOutsidePrefixes() + " keys outside the prefixes (untouched)");
    }
}
