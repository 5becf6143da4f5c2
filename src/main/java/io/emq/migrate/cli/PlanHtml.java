package io.emq.migrate.cli;

import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.QueuePlan;
import io.emq.migrate.v1.plan.RebrandEntry;
import io.emq.migrate.v1.plan.V2Fate;
import io.emq.migrate.v1.plan.V2KeyEstimate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code plan --html FILE}: one section per queue with a chart of its jobs as v1 lists them and as
 * v2 will hold them, the state mapping, anomalies and refusals. Each queue is rendered as it is
 * planned, so no plan is kept after its section is written.
 */
final class PlanHtml {
    private static final List<String> CHART = List.of("pending", "scheduled", "dead", "awaiting_children", "counted",
            "held", "nothing");

    private final HtmlReport page;
    private final List<List<String>> verdicts = new ArrayList<>();
    private final Map<String, Long> v1Total = new LinkedHashMap<>();
    private final Map<String, Long> v2Total = new LinkedHashMap<>();
    /** Whether a server blocks the migration (it may evict keys without a TTL, it is a replica); whether a queue added is blocked. */
    private final boolean serversBlock;
    private boolean queuesBlock;

    /** {@code source}: the server as {@code Endpoint.describe()} names it (never a password). */
    PlanHtml(String source, List<String> serverProblems) {
        page = new HtmlReport("emq-migrate plan");
        page.paragraph("source " + source + "; a dry run: nothing was written.");
        serverProblems.forEach(problem -> page.paragraph("BLOCKED: " + problem + "; migrate refuses it as it is"));
        serversBlock = !serverProblems.isEmpty();
    }

    /** A warning that blocks nothing (the target may run short of memory), as a paragraph where the page has come to. */
    void warning(String text) {
        page.paragraph("WARNING: " + text);
    }

    void add(QueuePlan plan) {
        QueueSnapshot snap = plan.snapshot();
        queuesBlock |= plan.blocked();
        page.section(snap.queue().display() + " → " + plan.v2Name().map(n -> "emq:{" + n + "}").orElse("(refused name)")
                + (snap.paused() && !snap.retired() ? " [paused]" : "") + ": " + PlanCommand.verdict(plan));
        page.chart(CHART, "v1 (listed)", v1AsV2(snap), "v2 (planned)", fates(plan));
        v1AsV2(snap).forEach((state, n) -> v1Total.merge(state, n, Long::sum));
        fates(plan).forEach((state, n) -> v2Total.merge(state, n, Long::sum));
        List<List<String>> states = new ArrayList<>();
        for (V1State s : V1State.LISTED) {
            states.add(List.of(s.wireName(), Long.toString(snap.listedCount(s)), Long.toString(snap.jobs(s).size()),
                    plan.mapping().get(s).description()));
        }
        page.table(List.of("V1 STATE", "LISTED", "JOBS", "BECOMES"), states);
        if (!plan.settings().isEmpty()) {
            page.table(List.of("V1 META", "VALUE", "IN V2"),
                    plan.settings().stream().map(setting -> List.of(setting.field(), setting.v1Value(), setting.inV2())).toList());
        }
        if (!plan.anomalies().isEmpty()) {
            List<List<String>> rows = new ArrayList<>();
            for (Anomaly a : plan.anomalies()) {
                rows.add(List.of(a.kind().wireName(), a.key().display(), a.reason(), plan.treatment(a.kind())));
            }
            snap.anomalyCounts().forEach((kind, n) -> {
                long listed = snap.anomalies(kind).size();
                if (n > listed) {
                    rows.add(List.of(kind.wireName(), "(" + (n - listed) + " more)", "not listed: " + n + " in all",
                            plan.treatment(kind)));
                }
            });
            page.table(List.of("ANOMALY", "KEY", "REASON", "TREATMENT"), rows);
        }
        if (!plan.refusals().isEmpty()) {
            List<List<String>> rows = new ArrayList<>();
            for (PlannedRefusal r : plan.refusals()) {
                rows.add(List.of(r.refusal().kind().wireName(), Integer.toString(r.refusal().jobs().size()),
                        r.refusal().kind().option() + (r.lifted() ? " (given)" : ""), r.refusal().reason()));
            }
            page.table(List.of("REFUSAL", "JOBS", "LIFTED BY", "REASON"), rows);
        }
        page.paragraph("payload policy: " + plan.payload().wireName() + " (" + plan.payload().description() + ")");
        if (!plan.preview().isEmpty()) {
            page.paragraph("rebrand preview: the first " + Sizes.count(plan.preview().size()) + " of "
                    + Sizes.count(snap.jobCount()) + " jobs in serve order");
            List<List<String>> rows = new ArrayList<>();
            for (RebrandEntry e : plan.preview()) {
                rows.add(java.util.Arrays.asList(Long.toString(e.rank()), e.v1Id().display(), e.v2Id(),
                        e.v1State().wireName(), e.fate().wireName()));
            }
            page.table(List.of("RANK", "V1 ID", "V2 ID", "V1 STATE", "BECOMES"), rows);
        }
        List<List<String>> keys = new ArrayList<>();
        for (V2KeyEstimate k : plan.v2Keys()) {
            if (k.count() > 0) {
                keys.add(List.of(k.key(), k.type(), Sizes.count(k.count()), Sizes.bytes(k.bytes())));
            }
        }
        if (!keys.isEmpty()) {
            page.table(List.of("V2 KEY", "TYPE", "COUNT", "EST. SIZE"), keys);
        }
        page.paragraph("estimated v2 memory: " + Sizes.bytes(plan.estimatedBytes()) + "; dropped with the source: "
                + Table.counts(plan.dropped()));
        String why = plan.refusals().stream().filter(r -> !r.lifted()).map(r -> r.refusal().kind().wireName() + " ("
                + r.refusal().kind().option() + ")").collect(java.util.stream.Collectors.joining(", "));
        verdicts.add(List.of(snap.queue().display(), plan.v2Name().orElse("(refused name)"), Sizes.count(snap.jobCount()),
                plan.blocked() ? "BLOCKED" : "ready", plan.blocked() ? (why.isEmpty() ? "anomalies (--accept-anomalies)"
                        : why + (plan.anomalies().isEmpty() ? "" : ", anomalies (--accept-anomalies)")) : "-"));
    }

    void write(Path file) {
        page.atTop(top -> top.section("Summary")
                .table(List.of("V1 QUEUE", "V2 QUEUE", "JOBS", "VERDICT", "BLOCKED BY (LIFTED BY)"), verdicts)
                .chart(CHART, "v1 (listed), all queues", v1Total, "v2 (planned), all queues", v2Total));
        List<String> why = new ArrayList<>();
        if (serversBlock) {
            why.add("a server above is not fit for a migration (each says why)");
        }
        if (queuesBlock) {
            why.add("a queue above has anomalies or refusals; each names the option that lifts it");
        }
        page.verdict(why.isEmpty() ? "ready: every queue above can be migrated as planned" : "BLOCKED: " + String.join("; ", why),
                why.isEmpty());
        page.write(file);
    }

    /** The v1 structures under the v2 state their jobs map to, so the two series compare. */
    private static Map<String, Long> v1AsV2(QueueSnapshot snap) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("pending", snap.listedCount(V1State.WAIT) + snap.listedCount(V1State.PAUSED)
                + snap.listedCount(V1State.ACTIVE) + snap.listedCount(V1State.PRIORITIZED));
        m.put("scheduled", snap.listedCount(V1State.DELAYED));
        m.put("dead", snap.listedCount(V1State.FAILED));
        m.put("awaiting_children", snap.listedCount(V1State.WAITING_CHILDREN));
        m.put("counted", snap.listedCount(V1State.COMPLETED));
        return m;
    }

    private static Map<String, Long> fates(QueuePlan plan) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (V2Fate f : V2Fate.values()) {
            m.put(f.wireName(), plan.fates().getOrDefault(f, 0L));
        }
        return m;
    }
}
