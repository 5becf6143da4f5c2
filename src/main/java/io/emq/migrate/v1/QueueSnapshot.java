package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One v1 queue as read at one moment: every job's small facts in v1 serve order per state, the
 * anomalies found, schedulers, dedup keys, flow links, which queue-level keys exist (with their
 * actual types), and how every key of the queue classified ({@code keyClasses} by kind name,
 * {@code subkeys} per-job keys by kind).
 * Job bodies are not held; read them with {@link V1JobReader}.
 *
 * <p>Rebrand order ({@link #jobsInRankOrder()}): stalled/active jobs (oldest activation first,
 * as BullMQ's stall recovery re-queues them at the served end), then {@code paused} and
 * {@code wait} from their tails, then {@code prioritized} by score, then {@code delayed} by due
 * time and sequence, {@code waiting-children}, {@code failed} and {@code completed} by score, and
 * last the orphan hashes (state unknown) by id.
 */
public record QueueSnapshot(
        QueueRef queue,
        Map<QueueStructure, KeyType> structures,
        Map<String, String> meta,
        Map<V1State, Long> listed,
        Map<V1State, List<JobFacts>> jobsByState,
        List<Anomaly> anomalies,
        List<Scheduler> schedulers,
        List<DedupEntry> dedupKeys,
        List<FlowLink> flowLinks,
        List<FlowParent> flowParents,
        Map<String, Long> keyClasses,
        Map<JobSubKind, Long> subkeys,
        long legacyMarkers) {

    public QueueSnapshot {
        EnumMap<QueueStructure, KeyType> st = new EnumMap<>(QueueStructure.class);
        st.putAll(structures);
        structures = Collections.unmodifiableMap(st);
        EnumMap<JobSubKind, Long> sk = new EnumMap<>(JobSubKind.class);
        sk.putAll(subkeys);
        subkeys = Collections.unmodifiableMap(sk);
        meta = Collections.unmodifiableMap(meta);
        EnumMap<V1State, Long> l = new EnumMap<>(V1State.class);
        l.putAll(listed);
        listed = Collections.unmodifiableMap(l);
        EnumMap<V1State, List<JobFacts>> j = new EnumMap<>(V1State.class);
        jobsByState.forEach((k, v) -> j.put(k, List.copyOf(v)));
        jobsByState = Collections.unmodifiableMap(j);
        anomalies = List.copyOf(anomalies);
        schedulers = List.copyOf(schedulers);
        dedupKeys = List.copyOf(dedupKeys);
        flowLinks = List.copyOf(flowLinks);
        flowParents = List.copyOf(flowParents);
        keyClasses = Collections.unmodifiableMap(keyClasses);
    }

    /** The queue-level keys that exist, with their actual types (possibly wrong, see the anomalies). */
    public boolean has(QueueStructure structure) {
        return structures.get(structure) == structure.type();
    }

    /** {@code meta.paused} is set: v1 considers the queue paused. */
    public boolean paused() {
        return meta.containsKey("paused");
    }

    /** How many ids the structure of a state lists (markers excluded), whether or not their hashes exist. */
    public long listedCount(V1State state) {
        return listed.getOrDefault(state, 0L);
    }

    /** The jobs of one state, in v1 serve order. */
    public List<JobFacts> jobs(V1State state) {
        return jobsByState.getOrDefault(state, List.of());
    }

    /** Every job with a hash, in rebrand (rank) order: ranks 1, 2, 3, … */
    public List<JobFacts> jobsInRankOrder() {
        List<JobFacts> all = new ArrayList<>();
        for (V1State s : V1State.RANK_ORDER) {
            all.addAll(jobs(s));
        }
        return all;
    }

    public long jobCount() {
        return jobsByState.values().stream().mapToLong(List::size).sum();
    }

    public Optional<JobFacts> job(Bytes id) {
        return jobsByState.values().stream().flatMap(List::stream).filter(j -> j.id().equals(id)).findFirst();
    }

    public List<Anomaly> anomalies(AnomalyKind kind) {
        return anomalies.stream().filter(a -> a.kind() == kind).toList();
    }
}
