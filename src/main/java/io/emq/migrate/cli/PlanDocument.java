package io.emq.migrate.cli;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.migrate.PauseWindow;
import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.DedupEntry;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.FlowLink;
import io.emq.migrate.v1.FlowParent;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobLayout;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.Scheduler;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.QueuePlan;
import io.emq.migrate.v1.plan.RebrandEntry;
import io.emq.migrate.v1.plan.SchedulerNames;
import io.emq.migrate.v1.plan.V2Fate;
import io.emq.migrate.v1.plan.V2KeyEstimate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The {@code plan --json} document: a tree of maps and lists in a stable field order. */
final class PlanDocument {
    /** Which consumers will see a queue's migrated pending jobs: the flat pending set's, or the lane's. */
    static String servedBy(Optional<BrandedId> lane, Optional<String> laneFrom) {
        if (laneFrom.isPresent()) {
            return "one lane per value of the job's " + laneFrom.get() + " (GRP + a hash of the value, on the ring):"
                    + " lanes consumers, the reference EchoMQ.Consumer and emq-migrate drain (which claims through the lanes)";
        }
        return lane.map(g -> "lane " + g + " (emq:{q}:g:" + g + ":pending, on the ring): lanes consumers, the reference"
                + " EchoMQ.Consumer and emq-migrate drain (which claims through the lanes)")
                .orElse("the flat pending set: Jobs.claim / claim_batch and batch consumers (emq-migrate drain);"
                        + " the reference EchoMQ.Consumer claims only through lanes (migrate --lane GROUP; MIGRATION.md,"
                        + " cutting over to the reference consumer)");
    }

    private PlanDocument() {
    }

    /** The whole document, from queues already rendered by {@link #queue}. */
    static Map<String, Object> of(String source, DiscoveryResult found, List<Map<String, Object>> queues, List<String> serverProblems,
                                  List<String> warnings, boolean blocked) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("source", source);
        doc.put("prefixes", found.prefixes());
        doc.put("dryRun", true);
        doc.put("blocked", blocked);
        doc.put("serverProblems", serverProblems);
        doc.put("warnings", warnings);
        doc.put("queues", queues);
        doc.put("foreignKeys", found.foreignKeys());
        doc.put("foreignSample", found.foreignSample().stream().map(Bytes::display).toList());
        doc.put("keysOutsidePrefixes", found.keysOutsidePrefixes());
        return doc;
    }

    static Map<String, Object> queue(QueuePlan plan, PauseWindow.Estimate window, String servedBy) {
        QueueSnapshot snap = plan.snapshot();
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("name", snap.queue().name().display());
        q.put("prefix", snap.queue().prefix().display());
        q.put("v2Name", plan.v2Name().orElse(null));
        q.put("blocked", plan.blocked());
        q.put("paused", snap.paused());
        q.put("retired", snap.retired());
        q.put("version", snap.meta().get("version"));
        q.put("jobs", DiscoverCommand.jobs(snap.listed()));
        Map<String, Object> mapping = new LinkedHashMap<>();
        for (V1State s : V1State.LISTED) {
            mapping.put(s.wireName(), Map.of("jobs", snap.jobs(s).size(), "becomes", plan.mapping().get(s).wireName()));
        }
        if (!snap.jobs(V1State.UNKNOWN).isEmpty()) {
            mapping.put(V1State.UNKNOWN.wireName(), Map.of("jobs", snap.jobs(V1State.UNKNOWN).size(), "becomes",
                    plan.mapping().get(V1State.UNKNOWN).wireName()));
        }
        q.put("mapping", mapping);
        Map<String, Long> v2 = new LinkedHashMap<>();
        for (V2Fate f : V2Fate.values()) {
            v2.put(f.wireName(), plan.fates().getOrDefault(f, 0L));
        }
        q.put("v2", v2);
        q.put("settings", plan.settings().stream().map(setting -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("field", setting.field());
            m.put("v1", setting.v1Value());
            m.put("carried", setting.carried());
            m.put("note", setting.note());
            return m;
        }).toList());
        q.put("anomalies", anomalies(snap.anomalies()));
        Map<String, Long> anomalyCounts = new LinkedHashMap<>();
        snap.anomalyCounts().forEach((kind, n) -> anomalyCounts.put(kind.wireName(), n));
        q.put("anomalyCounts", anomalyCounts); // all of them; "anomalies" lists at most 1000 of each kind
        q.put("refusals", refusals(plan.refusals()));
        q.put("payload", payload(plan));
        q.put("servedBy", servedBy);
        q.put("layouts", layouts(plan));
        q.put("rebrandPreview", preview(plan.preview()));
        q.put("keptBrandedIds", plan.keptIds());
        q.put("v2Keys", v2Keys(plan.v2Keys()));
        q.put("estimatedBytes", plan.estimatedBytes());
        q.put("estimatedPauseMs", window.ms());
        q.put("changeFeed", window.withoutFeed().isEmpty());
        window.withoutFeed().ifPresent(why -> q.put("withoutChangeFeed", why));
        window.readInFull().ifPresent(why -> q.put("pauseReadsEveryJob", why));
        q.put("dropped", plan.dropped());
        q.put("activeLocks", locks(snap));
        q.put("schedulers", schedulers(snap.schedulers()));
        q.put("dedup", dedup(snap.dedupKeys()));
        q.put("flows", flows(snap.flowLinks(), snap.flowParents()));
        q.put("keys", snap.keyClasses());
        q.put("legacyMarkers", snap.legacyMarkers());
        return q;
    }

    private static List<Map<String, Object>> anomalies(List<Anomaly> anomalies) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Anomaly a : anomalies) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", a.key().display());
            m.put("kind", a.kind().wireName());
            m.put("reason", a.reason());
            m.put("disposition", a.kind().disposition().wireName());
            m.put("treatment", a.kind().treatment());
            out.add(m);
        }
        return out;
    }

    private static List<Map<String, Object>> refusals(List<PlannedRefusal> refusals) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (PlannedRefusal r : refusals) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", r.refusal().kind().wireName());
            m.put("reason", r.refusal().reason());
            m.put("jobs", r.refusal().jobs().stream().map(Bytes::display).toList());
            m.put("option", r.refusal().kind().option());
            m.put("lifted", r.lifted());
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> payload(QueuePlan plan) {
        List<JobFacts> jobs = plan.snapshot().jobsInRankOrder();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", plan.payload().wireName());
        m.put("description", plan.payload().description());
        m.put("bytes", jobs.stream().mapToLong(j -> Math.max(0, j.payloadBytes())).sum());
        m.put("largest", jobs.stream().mapToLong(JobFacts::payloadBytes).max().orElse(0));
        m.put("nonJson", jobs.stream().filter(j -> j.payloadBytes() >= 0 && !j.payloadJson()).count());
        return m;
    }

    /** How many jobs have each writer's shape (Node, the v1 Elixir app, BullMQ 4.x field names). */
    static Map<String, Long> layouts(QueuePlan plan) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (JobLayout l : JobLayout.values()) {
            out.put(l.wireName(), plan.layouts().get(l));
        }
        return out;
    }

    private static List<Map<String, Object>> preview(List<RebrandEntry> preview) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (RebrandEntry e : preview) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rank", e.rank());
            m.put("v1Id", e.v1Id().display());
            m.put("v2Id", e.v2Id());
            m.put("v1State", e.v1State().wireName());
            m.put("becomes", e.fate().wireName());
            out.add(m);
        }
        return out;
    }

    private static List<Map<String, Object>> v2Keys(List<V2KeyEstimate> keys) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (V2KeyEstimate k : keys) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", k.key());
            m.put("type", k.type());
            m.put("count", k.count());
            m.put("estimatedBytes", k.bytes());
            out.add(m);
        }
        return out;
    }

    private static List<Map<String, Object>> locks(QueueSnapshot snap) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (JobFacts j : snap.jobs(V1State.ACTIVE)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", j.id().display());
            m.put("lockTtlMs", j.lockTtlMs());
            m.put("live", j.hasLiveLock());
            m.put("attempts", j.attempts());
            out.add(m);
        }
        return out;
    }

    private static List<Map<String, Object>> schedulers(List<Scheduler> schedulers) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Scheduler s : schedulers) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", s.id().display());
            m.put("kind", s.kind().wireName());
            m.put("everyMs", s.everyMs() < 0 ? null : s.everyMs());
            m.put("pattern", s.pattern());
            m.put("tz", s.tz());
            m.put("jobName", s.jobName());
            m.put("nextRunMs", s.nextRunMs() < 0 ? null : s.nextRunMs());
            m.put("iterations", s.iterations());
            m.put("v2Name", s.kind() == Scheduler.Kind.EVERY ? SchedulerNames.v2Name(s.id()) : null);
            out.add(m);
        }
        return out;
    }

    /** The dedup keys by id: the key scan meets them in an order of the server's (it moves as its table grows or shrinks). */
    private static List<Map<String, Object>> dedup(List<DedupEntry> entries) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (DedupEntry d : entries.stream().sorted(java.util.Comparator.comparing(DedupEntry::dedupId)).toList()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", d.dedupId().display());
            m.put("job", d.jobId().display());
            m.put("pttlMs", d.pttlMs());
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> flows(List<FlowLink> links, List<FlowParent> parents) {
        List<Map<String, Object>> l = new ArrayList<>();
        for (FlowLink f : links) {
            l.add(Map.of("child", f.childId().display(), "parentKey", f.parentKey().display(), "crossQueue", f.crossQueue(),
                    "onFailure", f.onFailure().name().toLowerCase(java.util.Locale.ROOT), "v2ParentPolicy", f.onFailure().v2Policy()));
        }
        List<Map<String, Object>> p = new ArrayList<>();
        for (FlowParent f : parents) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", f.id().display());
            m.put("pendingChildren", f.pendingChildren());
            m.put("crossQueuePending", f.crossQueuePending());
            m.put("processed", f.processed());
            m.put("failed", f.failed());
            m.put("unsuccessful", f.unsuccessful());
            p.add(m);
        }
        return Map.of("links", l, "parents", p);
    }
}
