package io.emq.migrate.cli;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Expectation;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.Options;

/**
 * {@code emq-migrate lookup --target URI --queue Q (--v1-id ID | --v1-base64 B64 | --job-id ID | --all) [--json]}: the
 * identity mapping. {@code --v1-base64} names a v1 id by its bytes, as {@code --json} gives them ({@code v1Base64}) for an id
 * that is not UTF-8: no text on a command line spells it.
 */
final class LookupCommand implements Command {
    private static final int PER_READ = 1000;
    private static final String NO_ROW = "none";
    private static final String GONE = "gone";
    private static final byte[] STATE = "state".getBytes(StandardCharsets.UTF_8);

    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue"))
                .addOption(Cli.valued("v1-id", "ID", "a v1 job id"))
                .addOption(Cli.valued("v1-base64", "B64", "a v1 job id by its bytes in base64 (an id that is not UTF-8)"))
                .addOption(Cli.valued("job-id", "ID", "a branded v2 job id"))
                .addOption(null, "all", false, "the whole mapping");
    }

    public int run(Invocation in) {
        long modes = List.of("v1-id", "v1-base64", "job-id", "all").stream().filter(in::has).count();
        if (modes != 1) {
            throw CliException.usage("give exactly one of --v1-id ID, --v1-base64 B64, --job-id ID, --all");
        }
        Optional<byte[]> v1 = in.has("v1-id") ? Optional.of(in.value("v1-id", "").getBytes(StandardCharsets.UTF_8))
                : in.has("v1-base64") ? Optional.of(base64(in.value("v1-base64", ""))) : Optional.empty();
        String queue = in.queue();
        if (in.has("job-id") && !BrandedId.isValid(in.value("job-id", ""))) {
            throw CliException.usage("--job-id " + in.value("job-id", "") + " is not a branded id ("
                    + ((BrandedId.Invalid) BrandedId.parse(in.value("job-id", ""))).reason() + ")");
        }
        Wire wire = in.readableTarget(in.require(Side.TARGET));
        Journal journal = Migrated.journal(wire, queue);
        List<Map.Entry<byte[], BrandedId>> found = new ArrayList<>();
        if (in.has("all")) {
            found.addAll(Journals.mapping(wire, queue));
        } else if (v1.isPresent()) {
            journal.ids().lookupV1(List.of(v1.get())).get(0).ifPresent(id -> found.add(Map.entry(v1.get(), id)));
        } else {
            BrandedId id = BrandedId.of(in.value("job-id", ""));
            journal.ids().lookupV2(id).ifPresent(bytes -> found.add(Map.entry(bytes, id)));
        }
        List<Map<String, String>> pairs = pairs(wire, queue, journal, found);
        if (in.json()) {
            Json.print(pairs, in.out());
        } else if (pairs.isEmpty()) {
            in.out().println(in.has("all") ? "the mapping of " + queue + " is empty: it migrated no jobs"
                    : "no mapping for " + v1.map(id -> "v1 id " + Bytes.of(id).display()).orElse("job id " + in.value("job-id", ""))
                    + " in " + queue);
        } else {
            Table t = new Table("V1", "V2", "MIGRATED AS", "V2 ROW NOW");
            pairs.forEach(p -> t.row(p.get("v1"), p.get("v2"), Optional.ofNullable(p.get("v2Row")).orElse(NO_ROW),
                    Optional.ofNullable(p.get("v2Now")).orElse(GONE)));
            t.print(in.out());
            if (pairs.stream().anyMatch(p -> p.get("v2Row") == null)) {
                in.out().println(NO_ROW + ": the id was minted, but v2 got no row of the job: v1 finished or removed it before the"
                        + " cutover (a worker, or a client call such as a job's remove or a scheduler's upsert), or it was"
                        + " completed in v1 and counted (metrics:completed)");
            }
            if (pairs.stream().anyMatch(p -> p.get("v2Row") != null && p.get("v2Now") == null)) {
                in.out().println(GONE + ": the row the migration wrote is gone from the target now: v2 served the job (completed"
                        + " and removed), or it was removed");
            }
        }
        return pairs.isEmpty() && !in.has("all") ? ExitCodes.REFUSED : ExitCodes.OK;
    }

    private static byte[] base64(String text) {
        try {
            return java.util.Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--v1-base64 " + text + " is not base64 (" + e.getMessage() + ")");
        }
    }

    /**
     * Each v1 id and its branded id, with the state of the v2 row the migration wrote ({@code v2Row}, as its journal
     * expects it: {@code null} when it wrote none) and the state the row holds now ({@code v2Now}: {@code null} when the
     * target holds no row of that id), read {@link #PER_READ} at a time.
     */
    private static List<Map<String, String>> pairs(Wire wire, String queue, Journal journal, List<Map.Entry<byte[], BrandedId>> found) {
        Keys keys = Keys.queue(queue);
        List<Map<String, String>> out = new ArrayList<>(found.size());
        for (int from = 0; from < found.size(); from += PER_READ) {
            List<Map.Entry<byte[], BrandedId>> some = found.subList(from, Math.min(found.size(), from + PER_READ));
            Map<BrandedId, Expectation> rows = journal.expectations().of(some.stream().map(Map.Entry::getValue).toList());
            List<List<byte[]>> now = wire.hmget(some.stream().map(e -> keys.job(e.getValue()).getBytes(StandardCharsets.UTF_8)).toList(),
                    List.of(STATE));
            for (int i = 0; i < some.size(); i++) {
                Map.Entry<byte[], BrandedId> e = some.get(i);
                Map<String, String> m = new LinkedHashMap<>();
                m.put("v1", Bytes.of(e.getKey()).display());
                if (!Bytes.of(e.getKey()).isUtf8()) { // its display escapes bytes as a text id may spell them: the bytes tell
                    m.put("v1Base64", java.util.Base64.getEncoder().encodeToString(e.getKey()));
                }
                m.put("v2", e.getValue().toString());
                m.put("v2Row", Optional.ofNullable(rows.get(e.getValue())).map(Expectation::state).orElse(null));
                m.put("v2Now", Optional.ofNullable(now.get(i).get(0)).map(v -> new String(v, StandardCharsets.UTF_8)).orElse(null));
                out.add(m);
            }
        }
        return out;
    }
}
