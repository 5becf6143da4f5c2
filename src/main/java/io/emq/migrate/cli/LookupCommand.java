package io.emq.migrate.cli;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.v1.Bytes;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;

/** {@code emq-migrate lookup --target URI --queue Q (--v1-id ID | --job-id ID | --all) [--json]}: the identity mapping. */
public final class LookupCommand {
    private LookupCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "target", true, "the v2 server or cluster")
                .addOption(WireVersionOption.option())
                .addOption(null, "queue", true, "the v2 queue")
                .addOption(null, "v1-id", true, "a v1 job id")
                .addOption(null, "job-id", true, "a branded v2 job id")
                .addOption(null, "all", false, "the whole mapping")
                .addOption(null, "json", false, "print a JSON array of {\"v1\": …, \"v2\": …}");
        Optional<CommandLine> parsed = CommandLines.parse("lookup", "--target URI --queue Q (--v1-id ID | --job-id ID | --all)",
                options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        long modes = List.of("v1-id", "job-id", "all").stream().filter(line::hasOption).count();
        if (!line.hasOption("queue") || modes != 1) {
            err.println("emq-migrate lookup: give --queue Q and exactly one of --v1-id ID, --job-id ID, --all");
            return ExitCodes.USAGE;
        }
        if (line.hasOption("job-id") && !BrandedId.isValid(line.getOptionValue("job-id"))) {
            err.println("emq-migrate lookup: --job-id " + line.getOptionValue("job-id") + " is not a branded id ("
                    + ((BrandedId.Invalid) BrandedId.parse(line.getOptionValue("job-id"))).reason() + ")");
            return ExitCodes.USAGE;
        }
        return Servers.withTarget("lookup", line.getOptionValue("target"), WireVersionOption.of(line), err, wire -> {
            String queue = line.getOptionValue("queue");
            Journal journal = new Journal(wire, queue);
            List<Map<String, String>> pairs = new ArrayList<>();
            if (line.hasOption("all")) {
                Journals.mapping(wire, queue).forEach(e -> pairs.add(pair(e.getKey(), e.getValue())));
            } else if (line.hasOption("v1-id")) {
                byte[] v1 = line.getOptionValue("v1-id").getBytes(StandardCharsets.UTF_8);
                journal.lookupV1(List.of(v1)).get(0).ifPresent(id -> pairs.add(pair(v1, id.toString())));
            } else {
                BrandedId id = BrandedId.of(line.getOptionValue("job-id"));
                journal.lookupV2(id).ifPresent(v1 -> pairs.add(pair(v1, id.toString())));
            }
            if (line.hasOption("json")) {
                Json.print(pairs, out);
            } else {
                Table t = new Table("V1", "V2");
                pairs.forEach(p -> t.row(p.get("v1"), p.get("v2")));
                t.print(out);
            }
            return pairs.isEmpty() && !line.hasOption("all") ? ExitCodes.REFUSED : ExitCodes.OK;
        });
    }

    private static Map<String, String> pair(byte[] v1, String v2) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("v1", Bytes.of(v1).display());
        m.put("v2", v2);
        return m;
    }
}
