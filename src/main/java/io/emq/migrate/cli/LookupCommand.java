package io.emq.migrate.cli;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;

/** {@code emq-migrate lookup --target URI --queue Q (--v1-id ID | --job-id ID | --all) [--json]}: the identity mapping. */
final class LookupCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue"))
                .addOption(Cli.valued("v1-id", "ID", "a v1 job id"))
                .addOption(Cli.valued("job-id", "ID", "a branded v2 job id"))
                .addOption(null, "all", false, "the whole mapping");
    }

    public int run(Invocation in) {
        long modes = List.of("v1-id", "job-id", "all").stream().filter(in::has).count();
        if (modes != 1) {
            throw CliException.usage("give exactly one of --v1-id ID, --job-id ID, --all");
        }
        String queue = in.queue();
        if (in.has("job-id") && !BrandedId.isValid(in.value("job-id", ""))) {
            throw CliException.usage("--job-id " + in.value("job-id", "") + " is not a branded id ("
                    + ((BrandedId.Invalid) BrandedId.parse(in.value("job-id", ""))).reason() + ")");
        }
        Wire wire = in.readableTarget(in.require(Side.TARGET));
        Journal journal = Migrated.journal(wire, queue);
        List<Map<String, String>> pairs = new ArrayList<>();
        if (in.has("all")) {
            Journals.mapping(wire, queue).forEach(e -> pairs.add(pair(e.getKey(), e.getValue())));
        } else if (in.has("v1-id")) {
            byte[] v1 = in.value("v1-id", "").getBytes(StandardCharsets.UTF_8);
            journal.ids().lookupV1(List.of(v1)).get(0).ifPresent(id -> pairs.add(pair(v1, id.toString())));
        } else {
            BrandedId id = BrandedId.of(in.value("job-id", ""));
            journal.ids().lookupV2(id).ifPresent(v1 -> pairs.add(pair(v1, id.toString())));
        }
        if (in.json()) {
            Json.print(pairs, in.out());
        } else if (pairs.isEmpty()) {
            in.out().println(in.has("all") ? "the mapping of " + queue + " is empty: it migrated no jobs"
                    : "no mapping for that id in " + queue);
        } else {
            Table t = new Table("V1", "V2");
            pairs.forEach(p -> t.row(p.get("v1"), p.get("v2")));
            t.print(in.out());
        }
        return pairs.isEmpty() && !in.has("all") ? ExitCodes.REFUSED : ExitCodes.OK;
    }

    private static Map<String, String> pair(byte[] v1, String v2) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("v1", Bytes.of(v1).display());
        m.put("v2", v2);
        return m;
    }
}
