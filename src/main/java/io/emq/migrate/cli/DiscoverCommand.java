package io.emq.migrate.cli;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.QueueCounts;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.VersionFence;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;

/** {@code emq-migrate discover --source URI [--prefix P]... [--json]}: the v1 queues with their counts. Reads only. */
final class DiscoverCommand implements Command {
    static final String DEFAULT_PREFIX = "bull";

    public void options(Options options) {
        prefixOption(options);
    }

    static void prefixOption(Options options) {
        options.addOption(Cli.valued("prefix", "P", "a v1 key prefix (repeatable; default " + DEFAULT_PREFIX + ")"));
    }

    public int run(Invocation in) {
        List<String> prefixes = prefixes(in);
        Endpoint source = in.require(Side.SOURCE);
        UnifiedJedis jedis = in.open(source, Side.SOURCE, 8);
        DiscoveryResult found = Scanning.discover(jedis, prefixes, in);
        List<QueueCounts> counts = new ArrayList<>();
        for (QueueRef q : found.queues()) {
            counts.add(QueueCounts.read(jedis, q));
        }
        String none = counts.isEmpty() ? none(found, source.describe(), VersionFence.heldBy(jedis)) : "";
        if (in.json()) {
            if (counts.isEmpty()) { // the text's line, where a script's log keeps it
                in.note("emq-migrate discover: " + none);
            }
            Json.print(json(source.describe(), found, counts), in.out());
        } else {
            text(found, counts, none, in.out());
        }
        return ExitCodes.OK;
    }

    static List<String> prefixes(Invocation in) {
        List<String> given = in.values("prefix");
        return given.isEmpty() ? List.of(DEFAULT_PREFIX) : given.stream().distinct().toList();
    }

    /** "prefix bull" or "prefixes bull, echo". */
    static String under(List<String> prefixes) {
        return (prefixes.size() == 1 ? "prefix " : "prefixes ") + String.join(", ", prefixes);
    }

    private static Map<String, Object> json(String source, DiscoveryResult found, List<QueueCounts> counts) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("source", source);
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
        doc.put("otherPrefixes", found.otherPrefixes());
        return doc;
    }

    static Map<String, Long> jobs(Map<V1State, Long> counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (V1State s : V1State.LISTED) {
            out.put(s.wireName(), counts.getOrDefault(s, 0L));
        }
        return out;
    }

    /** What a discovery that found no queue on {@code source} says, and whether that is a v2 server. */
    private static String none(DiscoveryResult found, String source, boolean v2) {
        return "no v1 queues under " + under(found.prefixes()) + " on " + source + (v2 ? ", which holds " + VersionFence.KEY
                + " as a v2 server does (is it the target?)" : "") + "; check --prefix, and --source (its database, /N)";
    }

    private static void text(DiscoveryResult found, List<QueueCounts> counts, String none, PrintStream out) {
        if (counts.isEmpty()) {
            out.println(none);
        } else {
            out.println("v1 queues under " + String.join(", ", found.prefixes()) + ": " + counts.size());
            List<String> header = new ArrayList<>(List.of("PREFIX", "QUEUE"));
            V1State.LISTED.forEach(s -> header.add(s.wireName().toUpperCase()));
            header.add("META.PAUSED");
            header.add("VERSION");
            Table table = new Table(header.toArray(new String[0]));
            for (QueueCounts c : counts) {
                String name = c.queue().name().display();
                List<Object> row = new ArrayList<>(List.of(c.queue().prefix().display(), name.isEmpty() ? "'' (empty)" : name));
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
        out.println(found.keysOutsidePrefixes() + " keys outside the prefixes (untouched)" + (found.otherPrefixes().isEmpty() ? ""
                : "; some look like v1 queues under " + under(found.otherPrefixes()) + ": pass "
                + String.join(" ", found.otherPrefixes().stream().map(p -> "--prefix " + p).toList()) + " to list them"));
    }
}
