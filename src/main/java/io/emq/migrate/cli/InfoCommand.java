package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.StepCatalog;
import io.emq.migrate.migrate.StepStatus;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;

/** {@code emq-migrate info --target URI [--queue Q] [--json]}: each queue's state and steps, like {@code flyway info}. */
public final class InfoCommand {
    private InfoCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "target", true, "the v2 server or cluster")
                .addOption(WireVersionOption.option())
                .addOption(null, "queue", true, "one v2 queue (default: every queue with a journal)")
                .addOption(null, "json", false, "print one JSON document");
        Optional<CommandLine> parsed = CommandLines.parse("info", "--target URI [--queue Q]", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        return Servers.withTarget("info", line.getOptionValue("target"), WireVersionOption.of(line), err, wire -> {
            List<String> queues = line.hasOption("queue") ? List.of(line.getOptionValue("queue")) : Journals.queues(wire);
            List<Map<String, Object>> docs = new ArrayList<>();
            for (String q : queues) {
                Journal journal = new Journal(wire, q);
                List<StepStatus> steps = StepStatus.of(StepCatalog.load(), journal.history());
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("name", q);
                doc.put("state", journal.state().map(Journal.State::wireName).orElse("none"));
                doc.put("source", journal.get("v1_queue").orElse(null));
                doc.put("policy", journal.get("policy").orElse(null));
                doc.put("hwm", journal.highWaterMark());
                doc.put("steps", steps.stream().map(InfoCommand::step).toList());
                docs.add(doc);
                if (!line.hasOption("json")) {
                    print(doc, steps, out);
                }
            }
            if (line.hasOption("json")) {
                Json.print(Map.of("queues", docs), out);
            } else if (docs.isEmpty()) {
                out.println("no migration journals on this target");
            }
            return ExitCodes.OK;
        });
    }

    private static Map<String, Object> step(StepStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", s.version());
        m.put("description", s.description());
        m.put("status", s.status());
        s.row().ifPresent(r -> {
            m.put("installedOn", r.installedOn());
            m.put("installedBy", r.installedBy());
            m.put("executionMs", r.executionMs());
            m.put("checksum", r.checksum());
            m.put("counts", r.counts());
            if (r.error() != null) {
                m.put("error", r.error());
            }
        });
        return m;
    }

    private static void print(Map<String, Object> doc, List<StepStatus> steps, PrintStream out) {
        out.printf("queue %s  state %s  source %s  payload %s  ids minted %s%n", doc.get("name"), doc.get("state"),
                doc.get("source"), doc.get("policy"), doc.get("hwm"));
        Table t = new Table("VERSION", "DESCRIPTION", "STATUS", "INSTALLED ON", "MS", "COUNTS");
        for (StepStatus s : steps) {
            t.row("V" + s.version(), s.description(), s.status(), s.row().map(r -> r.installedOn()).orElse(null),
                    s.row().map(r -> r.executionMs()).orElse(null),
                    s.row().map(r -> r.error() != null ? r.error() : r.counts().toString()).orElse(null));
        }
        t.print(out);
        out.println();
    }
}
