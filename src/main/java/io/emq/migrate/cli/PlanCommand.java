package io.emq.migrate.cli;

import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.PayloadPolicy;
import io.emq.migrate.v1.plan.PlanOptions;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.QueuePlan;
import io.emq.migrate.v1.plan.RebrandEntry;
import io.emq.migrate.v1.plan.V2Fate;
import io.emq.migrate.v1.plan.V2KeyEstimate;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;

/**
 * {@code emq-migrate plan --source URI [--queue Q]... [--all]}: the dry run. Per queue: jobs per
 * v1 state, what each becomes in v2, anomalies, refusals with the option that lifts each, the
 * payload policy, the first rebranded ids, the v2 keys and their estimated memory. Reads only.
 * Exit 0 when nothing blocks, 3 when a queue is refused or has anomalies, 2 on bad usage or an
 * unreachable server.
 */
public final class PlanCommand {
    private PlanCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = DiscoverCommand.sourceOptions()
                .addOption(Option.builder().longOpt("queue").hasArg().argName("Q").desc("a v1 queue to plan (repeatable)").get())
                .addOption(null, "all", false, "plan every v1 queue found")
                .addOption(null, "json", false, "print one JSON document")
                .addOption(Option.builder().longOpt("html").hasArg().argName("FILE")
                        .desc("also write a self-contained HTML report (tables and a chart per queue)").get())
                .addOption(Option.builder().longOpt("payload").hasArg().argName("POLICY")
                        .desc("envelope (default) or data: how v1 data becomes the v2 payload").get())
                .addOption(Option.builder().longOpt("rename").hasArg().argName("OLD=NEW")
                        .desc("give a v1 queue whose name is not a valid v2 name a new name (repeatable)").get())
                .addOption(null, "wait-for-locks", false, "lift live-lock refusals: the migration waits for the locks")
                .addOption(null, "accept-anomalies", false, "lift anomaly refusals: apply each anomaly's stated treatment")
                .addOption(null, "drop-cron-schedulers", false, "lift cron-scheduler refusals: drop them, named in the journal")
                .addOption(null, "drop-legacy-repeatables", false, "lift legacy-repeatable refusals: drop them, named in the journal")
                .addOption(Option.builder().longOpt("preview").hasArg().argName("N")
                        .desc("how many rebranded ids to show per queue (default " + PlanOptions.DEFAULT_PREVIEW + ")").get());
        Optional<CommandLine> parsed = CommandLines.parse("plan", "--source URI (--queue Q... | --all) [options]", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        Optional<PlanOptions> planOptions = planOptions(line, err);
        if (planOptions.isEmpty()) {
            return ExitCodes.USAGE;
        }
        String[] named = line.getOptionValues("queue");
        if (named == null && !line.hasOption("all")) {
            err.println("emq-migrate plan: name the queues with --queue Q (repeatable) or plan them all with --all");
            return ExitCodes.USAGE;
        }
        List<String> prefixes = DiscoverCommand.prefixes(line);
        String source = line.getOptionValue("source");
        return Servers.withSource("plan", source, err, jedis -> {
            DiscoveryResult found = Scanning.discover(jedis, prefixes, err);
            List<QueueRef> chosen = new ArrayList<>();
            for (QueueRef q : found.queues()) {
                if (named == null || Set.of(named).contains(q.name().display())) {
                    chosen.add(q);
                }
            }
            if (named != null) {
                for (String n : named) {
                    if (chosen.stream().noneMatch(q -> q.name().display().equals(n))) {
                        err.println("emq-migrate plan: no v1 queue '" + n + "' under " + String.join(", ", prefixes)
                                + " (run discover to list them)");
                        return ExitCodes.USAGE;
                    }
                }
            }
            QueueSnapshotReader reader = new QueueSnapshotReader(jedis, new QueueBases(found.queues()));
            Planner planner = new Planner(planOptions.get());
            boolean json = line.hasOption("json");
            boolean blocked = false;
            List<Map<String, Object>> rendered = new ArrayList<>();
            PlanHtml html = line.hasOption("html") ? new PlanHtml(source) : null;
            for (QueueRef q : chosen) { // one queue's snapshot in memory at a time
                QueuePlan plan = planner.plan(reader.read(q));
                blocked |= plan.blocked();
                if (html != null) {
                    html.add(plan);
                }
                if (json) {
                    rendered.add(PlanDocument.queue(plan));
                } else {
                    text(plan, out);
                }
            }
            if (json) {
                Json.print(PlanDocument.of(source, found, rendered, blocked), out);
            } else {
                out.println(found.foreignKeys() + " foreign keys under the prefixes and " + found.keysOutsidePrefixes()
                        + " keys outside them: untouched. This was a dry run; nothing was written.");
            }
            if (html != null) {
                Path file = Path.of(line.getOptionValue("html"));
                html.write(file, blocked);
                err.println("wrote " + file.toAbsolutePath());
            }
            return blocked ? ExitCodes.REFUSED : ExitCodes.OK;
        });
    }

    private static Optional<PlanOptions> planOptions(CommandLine line, PrintStream err) {
        Optional<PayloadPolicy> payload = PayloadPolicy.parse(line.getOptionValue("payload", PayloadPolicy.ENVELOPE.wireName()));
        if (payload.isEmpty()) {
            err.println("emq-migrate plan: --payload must be envelope or data, not '" + line.getOptionValue("payload") + "'");
            return Optional.empty();
        }
        Map<String, String> renames = new LinkedHashMap<>();
        for (String r : Optional.ofNullable(line.getOptionValues("rename")).orElse(new String[0])) {
            int eq = r.lastIndexOf('=');
            if (eq <= 0 || eq == r.length() - 1) {
                err.println("emq-migrate plan: --rename takes OLD=NEW, not '" + r + "'");
                return Optional.empty();
            }
            renames.put(r.substring(0, eq), r.substring(eq + 1));
        }
        int preview;
        try {
            preview = Integer.parseInt(line.getOptionValue("preview", Integer.toString(PlanOptions.DEFAULT_PREVIEW)));
        } catch (NumberFormatException e) {
            err.println("emq-migrate plan: --preview takes a number, not '" + line.getOptionValue("preview") + "'");
            return Optional.empty();
        }
        return Optional.of(new PlanOptions(payload.get(), renames, line.hasOption("wait-for-locks"),
                line.hasOption("accept-anomalies"), line.hasOption("drop-cron-schedulers"),
                line.hasOption("drop-legacy-repeatables"), Math.max(0, preview)));
    }

    private static void text(QueuePlan plan, PrintStream out) {
        QueueSnapshot snap = plan.snapshot();
        out.println("== queue " + snap.queue().display() + " -> v2 "
                + plan.v2Name().map(n -> "emq:{" + n + "}").orElse("(refused name)")
                + (snap.paused() ? "  [paused]" : "") + (plan.blocked() ? "  BLOCKED" : "  ready"));
        Table states = new Table("V1 STATE", "LISTED", "JOBS", "BECOMES");
        for (V1State s : V1State.LISTED) {
            states.row(s.wireName(), snap.listedCount(s), snap.jobs(s).size(), plan.mapping().get(s).description());
        }
        if (!snap.jobs(V1State.UNKNOWN).isEmpty()) {
            states.row("unknown (orphans)", 0, snap.jobs(V1State.UNKNOWN).size(), plan.mapping().get(V1State.UNKNOWN).description());
        }
        states.print(out);
        StringBuilder fates = new StringBuilder("v2:");
        for (V2Fate f : V2Fate.values()) {
            fates.append(' ').append(f.wireName()).append('=').append(plan.fates().getOrDefault(f, 0L));
        }
        out.println(fates);
        out.println("payload policy: " + plan.payload().wireName() + " (" + plan.payload().description() + ")");
        out.println("served by: " + PlanDocument.SERVED_BY);
        out.println("job layouts: " + PlanDocument.layouts(snap) + (snap.legacyMarkers() > 0
                ? "; " + snap.legacyMarkers() + " BullMQ 4.x 0: marker(s) in wait, not jobs" : ""));
        if (!plan.anomalies().isEmpty()) {
            Table t = new Table("ANOMALY", "KEY", "REASON", "TREATMENT");
            for (Anomaly a : plan.anomalies()) {
                t.row(a.kind().wireName(), a.key().display(), a.reason(), a.kind().disposition().wireName());
            }
            snap.anomalyCounts().forEach((kind, n) -> {
                long listed = snap.anomalies(kind).size();
                if (n > listed) {
                    t.row(kind.wireName(), "(" + (n - listed) + " more)", "not listed: " + n + " in all",
                            kind.disposition().wireName());
                }
            });
            t.print(out);
        }
        if (!plan.refusals().isEmpty()) {
            Table t = new Table("REFUSAL", "JOBS", "LIFTED BY", "REASON");
            for (PlannedRefusal r : plan.refusals()) {
                t.row(r.refusal().kind().wireName(), r.refusal().jobs().size(),
                        r.refusal().kind().option() + (r.lifted() ? " (given)" : ""), r.refusal().reason());
            }
            t.print(out);
        }
        if (!plan.preview().isEmpty()) {
            Table t = new Table("RANK", "V1 ID", "V2 ID", "V1 STATE", "BECOMES");
            for (RebrandEntry e : plan.preview()) {
                t.row(e.rank(), e.v1Id().display(), e.v2Id(), e.v1State().wireName(), e.fate().wireName());
            }
            t.print(out);
        }
        Table keys = new Table("V2 KEY", "TYPE", "COUNT", "EST. BYTES");
        for (V2KeyEstimate k : plan.v2Keys()) {
            keys.row(k.key(), k.type(), k.count(), k.bytes());
        }
        keys.print(out);
        out.println("estimated v2 memory: " + plan.estimatedBytes() + " bytes; dropped with the source: " + plan.dropped());
        out.println();
    }
}
