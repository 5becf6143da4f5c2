package io.emq.migrate.v1;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One v1 queue as read at one moment: every job's small facts in v1 serve order per state, the
 * anomalies found, schedulers, dedup keys, flow links, which queue-level keys exist (with their
 * actual types), and how every key of the queue classified ({@code keyClasses} by kind name,
 * {@code subkeys} per-job keys by kind).
 * Job bodies are not held; read them with {@link V1JobReader}.
 *
 * <p>The facts are held column by column ({@link StateJobs}: tens of bytes per job, so a queue of
 * millions fits a small heap); {@link #jobs} and {@link #jobsInRankOrder} are read-only views that
 * materialise a {@link JobFacts} on each {@code get}: iterate them, and keep only what you need.
 * Anomalies are kept up to {@value AnomalyLog#KEPT_PER_KIND} per kind; {@link #anomalyCount}
 * counts them all.
 *
 * <p>Rebrand order ({@link #jobsInRankOrder()}): stalled/active jobs (oldest activation first,
 * as BullMQ's stall recovery re-queues them at the served end), then {@code paused} and
 * {@code wait} from their tails, then {@code prioritized} by score, then {@code delayed} by due
 * time and sequence, {@code waiting-children}, {@code failed} and {@code completed} by score, and
 * last the orphan hashes (state unknown) by id.
 */
public final class QueueSnapshot {
    /** What a migration stamps on {@code meta.version} (and the add counter) when it retires a v1 queue. */
    public static final String TOMBSTONE = "echomq:2.0.0-migrated";
    /**
     * The anomalies a read of a live source shows where it met a v1 worker's move half-way: an id listed in two
     * places (read in {@code wait}, then in {@code active}), an active job whose lock went before it was read (the job
     * finished), a listed job whose hash went (a job finished and removed). Each writes the job's hash. And a lock or
     * logs list whose job the read met nowhere (a job added after the listings were read, its hash passed by the key
     * scan, then taken by a worker or given a log line): that key is written.
     */
    static final Set<AnomalyKind> MOVED_WHILE_READ = Set.of(AnomalyKind.LISTED_TWICE, AnomalyKind.EXPIRED_LOCK,
            AnomalyKind.MISSING_HASH, AnomalyKind.DANGLING_SUBKEY);
    /**
     * The anomalies a refresh finds again as a full read finds them, whatever was written since: those met only on jobs
     * every refresh reads again, the ones {@code active} lists (a stalled job, its lock run out: a write no feed tells)
     * and those listed without a hash (evicted, or deleted by hand: a job before without facts is read again, and a hash
     * deleted since is written), those of a listing's score, jobs in {@code paused} without {@code meta.paused} (the
     * v1 pause/resume wrappers strand them) and a structure of the wrong type or a hash at the bare key (left by the
     * pause/resume and stalled-check wrappers), which every refresh reads again.
     */
    static final Set<AnomalyKind> FOUND_AGAIN = Set.of(AnomalyKind.EXPIRED_LOCK, AnomalyKind.MISSING_HASH,
            AnomalyKind.BAD_DELAYED_SCORE, AnomalyKind.BAD_PRIORITIZED_SCORE, AnomalyKind.PAUSED_WITHOUT_FLAG,
            AnomalyKind.WRONG_TYPE, AnomalyKind.BARE_QUEUE_HASH);
    /**
     * The anomalies met in a job's hash: a refresh finds them again in each job it reads again, and carries them with the
     * facts of each job it keeps (its hash not written since: {@link FactAnomalies}), while the snapshot keeps every one
     * ({@link AnomalyLog#KEPT_PER_KIND}).
     */
    static final Set<AnomalyKind> CARRIED = Set.of(AnomalyKind.BAD_ATTEMPTS, AnomalyKind.HASH_WITHOUT_DATA,
            AnomalyKind.NON_JSON_DATA, AnomalyKind.NON_JSON_OPTS, AnomalyKind.DEFERRED_FAILURE);
    /**
     * The anomalies of keys of no v1 shape (an application's own key under the queue's prefix, a key of a newer BullMQ)
     * and of job schedulers' records the {@code repeat} zset no longer lists (left by an older BullMQ's removal of a
     * repeatable job): a refresh carries each as it was while its key was not written since (and, a record, its id is
     * not listed again), and the snapshot keeps every one; a key of that kind written since (or a new one) has the queue
     * read whole.
     */
    static final Set<AnomalyKind> KEPT_UNWRITTEN = Set.of(AnomalyKind.UNKNOWN_KEY, AnomalyKind.STALE_SCHEDULER);
    /**
     * The per-job keys left without their job's hash ({@code dangling-subkey}: the hash evicted or deleted by hand): a
     * refresh carries each as it was while no key of its job was written since ({@link #danglingUntouched}) and its id is
     * listed nowhere now, and types again one whose key was written ({@link #MOVED_WHILE_READ}), while the snapshot keeps
     * every one; a key of a job gone written since (or a new one) has the queue read whole.
     */
    static final Set<AnomalyKind> DANGLING = Set.of(AnomalyKind.DANGLING_SUBKEY);
    private final QueueRef queue;
    private final Map<QueueStructure, KeyType> structures;
    private final Map<String, String> meta;
    private final Map<V1State, Long> listed;
    private final Map<V1State, StateJobs> jobs;
    private final PayloadRead payloadRead;
    private final long[] rankBase = new long[V1State.values().length + 1];
    private final List<Anomaly> anomalies;
    private final Map<AnomalyKind, Long> anomalyCounts;
    private final List<Scheduler> schedulers;
    private final DedupKeys dedupKeys;
    private final List<FlowLink> flowLinks;
    private final List<FlowParent> flowParents;
    private final Map<String, Long> keyClasses;
    private final Map<JobSubKind, Long> subkeys;
    private final JobSubkeys jobSubkeys;
    private final long legacyMarkers;

    QueueSnapshot(QueueRef queue, Map<QueueStructure, KeyType> structures, Map<String, String> meta,
                  Map<V1State, Long> listed, Map<V1State, StateJobs> jobs, PayloadRead payloadRead, AnomalyLog anomalies,
                  List<Scheduler> schedulers, DedupKeys dedupKeys, List<FlowLink> flowLinks,
                  List<FlowParent> flowParents, Map<String, Long> keyClasses, Map<JobSubKind, Long> subkeys,
                  JobSubkeys jobSubkeys, long legacyMarkers) {
        this.queue = queue;
        EnumMap<QueueStructure, KeyType> st = new EnumMap<>(QueueStructure.class);
        st.putAll(structures);
        this.structures = Collections.unmodifiableMap(st);
        this.meta = Collections.unmodifiableMap(meta);
        EnumMap<V1State, Long> l = new EnumMap<>(V1State.class);
        l.putAll(listed);
        this.listed = Collections.unmodifiableMap(l);
        this.jobs = new EnumMap<>(jobs);
        this.payloadRead = payloadRead;
        long rank = 0;
        for (V1State s : V1State.RANK_ORDER) {
            rankBase[s.ordinal()] = rank;
            rank += stateSize(s);
        }
        this.anomalies = List.copyOf(anomalies.kept());
        this.anomalyCounts = Collections.unmodifiableMap(new EnumMap<>(anomalies.counts()));
        this.schedulers = List.copyOf(schedulers);
        this.dedupKeys = dedupKeys; // held compactly, not copied
        this.flowLinks = List.copyOf(flowLinks);
        this.flowParents = List.copyOf(flowParents);
        this.keyClasses = Collections.unmodifiableMap(keyClasses);
        EnumMap<JobSubKind, Long> sk = new EnumMap<>(JobSubKind.class);
        sk.putAll(subkeys);
        this.subkeys = Collections.unmodifiableMap(sk);
        this.jobSubkeys = jobSubkeys; // held compactly, not copied
        this.legacyMarkers = legacyMarkers;
    }

    public QueueRef queue() {
        return queue;
    }

    /** The queue-level keys that exist, with their actual types (possibly wrong, see the anomalies). */
    public Map<QueueStructure, KeyType> structures() {
        return structures;
    }

    public Map<String, String> meta() {
        return meta;
    }

    /** How many ids each state's structure lists (markers excluded). */
    public Map<V1State, Long> listed() {
        return listed;
    }

    public boolean has(QueueStructure structure) {
        return structures.get(structure) == structure.type();
    }

    /** {@code meta.paused} is set: v1 considers the queue paused. */
    public boolean paused() {
        return meta.containsKey("paused");
    }

    /** {@code meta.version} is the tombstone: a migration retired the queue (its jobs and lists are gone). */
    public boolean retired() {
        return TOMBSTONE.equals(meta.get("version"));
    }

    /** How many ids the structure of a state lists (markers excluded), whether or not their hashes exist. */
    public long listedCount(V1State state) {
        return listed.getOrDefault(state, 0L);
    }

    /** How many ids the structures list together (markers excluded). */
    public long listedCount() {
        return V1State.LISTED.stream().mapToLong(this::listedCount).sum();
    }

    /** Whether the payloads were read and digested ({@link PayloadRead#DIGESTED}). */
    public boolean payloadsDigested() {
        return payloadRead == PayloadRead.DIGESTED;
    }

    /** How the payloads were read. */
    public PayloadRead payloadRead() {
        return payloadRead;
    }

    /** The jobs of one state, in v1 serve order (a view; each {@code get} materialises one job). */
    public List<JobFacts> jobs(V1State state) {
        StateJobs s = jobs.get(state);
        return s == null ? List.of() : new StateView(s);
    }

    /** Every job with a hash, in rebrand (rank) order: ranks 1, 2, 3, … (a view, like {@link #jobs}). */
    public List<JobFacts> jobsInRankOrder() {
        return new RankOrderView();
    }

    public long jobCount() {
        return jobs.values().stream().mapToLong(StateJobs::size).sum();
    }

    /** The bytes of every listed id together (a listing's entries without a hash too). */
    public long listedIdBytes() {
        return jobs.values().stream().findFirst().map(s -> (long) s.ids().arena().bytes()).orElse(0L);
    }

    /** The job with this id ({@link #jobsWithIds}: a walk of every id held, for reports, retirement's copies again and tests). */
    public Optional<JobFacts> job(Bytes id) {
        return jobsWithIds(Set.of(id)).stream().findFirst();
    }

    /**
     * The jobs with one of these ids, in rank order: a walk of the ids held, each id's hash compared first, no job
     * built but those (a pass asks for the few a million-job queue's change feed names).
     */
    public List<JobFacts> jobsWithIds(Set<Bytes> ids) {
        List<JobFacts> found = new ArrayList<>();
        int[] hashes = ByteArena.hashesOf(ids);
        for (V1State state : V1State.RANK_ORDER) {
            StateJobs s = jobs.get(state);
            for (int i = 0; s != null && !ids.isEmpty() && i < s.size(); i++) {
                if (Arrays.binarySearch(hashes, s.idHash(i)) >= 0 && ids.contains(s.id(i))) {
                    found.add(s.facts(i, rankBase[state.ordinal()] + i + 1));
                }
            }
        }
        return found;
    }

    /**
     * How many dedup keys whose dedup id is {@code counted} name a job this snapshot does not hold (a dangling key: v1
     * refuses adds with its id, v2 will not), without building a job: the held ids' hashes, each beside its rank, sorted
     * (8 bytes a job), and a key's job id compared byte for byte only where its hash is held.
     */
    public long dedupKeysNamingNoJob(Predicate<Bytes> counted) {
        if (dedupKeys.isEmpty()) {
            return 0;
        }
        long[] byHash = new long[Math.toIntExact(jobCount())];
        int n = 0;
        for (V1State state : V1State.RANK_ORDER) {
            StateJobs s = jobs.get(state);
            for (int i = 0; s != null && i < s.size(); i++, n++) {
                byHash[n] = ((long) s.idHash(i) << 32) | n;
            }
        }
        Arrays.sort(byHash);
        ByteArena named = dedupKeys.jobIds();
        long dangling = 0;
        for (int d = 0; d < named.size(); d++) {
            if (!counted.test(dedupKeys.dedupIdAt(d))) {
                continue;
            }
            long hash = (long) named.hashAt(d) << 32;
            int at = Arrays.binarySearch(byHash, hash);
            boolean held = false;
            for (int k = at >= 0 ? at : -at - 1; !held && k < byHash.length && (byHash[k] & 0xffffffff00000000L) == hash; k++) {
                held = heldIdEquals((int) byHash[k], named, d);
            }
            dangling += held ? 0 : 1;
        }
        return dangling;
    }

    /** Whether the id of the job at 0-based position {@code rank} in rank order is entry {@code j} of {@code other}. */
    private boolean heldIdEquals(int rank, ByteArena other, int j) {
        V1State state = stateAt(rank);
        return jobs.get(state).idEquals((int) (rank - rankBase[state.ordinal()]), other, j);
    }

    /** The state that holds the job at 0-based position {@code rank} in rank order. */
    private V1State stateAt(int rank) {
        for (V1State state : V1State.RANK_ORDER) {
            if (rank < rankBase[state.ordinal()] + stateSize(state)) {
                return state;
            }
        }
        throw new IllegalStateException("rank " + (rank + 1) + " is in no state");
    }

    /** The anomalies found: all of them, or the first {@value AnomalyLog#KEPT_PER_KIND} of each kind when more. */
    public List<Anomaly> anomalies() {
        return anomalies;
    }

    public List<Anomaly> anomalies(AnomalyKind kind) {
        return anomalies.stream().filter(a -> a.kind() == kind).toList();
    }

    /** How many distinct keys have an anomaly of this kind (kept in {@link #anomalies()} or not). */
    public long anomalyCount(AnomalyKind kind) {
        return anomalyCounts.getOrDefault(kind, 0L);
    }

    /** {@link #anomalyCount} of every kind found. */
    public Map<AnomalyKind, Long> anomalyCounts() {
        return anomalyCounts;
    }

    public List<Scheduler> schedulers() {
        return schedulers;
    }

    public List<DedupEntry> dedupKeys() {
        return dedupKeys;
    }

    /** The dedup keys whose id is one of {@code ids} or whose job's id is one of {@code jobs}, in order ({@link DedupKeys#naming}). */
    public List<DedupEntry> dedupKeysNaming(Set<Bytes> ids, Set<Bytes> jobs) {
        return dedupKeys.naming(ids, jobs);
    }

    public List<FlowLink> flowLinks() {
        return flowLinks;
    }

    public List<FlowParent> flowParents() {
        return flowParents;
    }

    public Map<String, Long> keyClasses() {
        return keyClasses;
    }

    public Map<JobSubKind, Long> subkeys() {
        return subkeys;
    }

    public long legacyMarkers() {
        return legacyMarkers;
    }

    /**
     * Whether a refresh may start from this snapshot given {@code written}, the keys written since it began
     * ({@link QueueSnapshotReader#refresh}): it found no legacy marker and no anomaly but orphan hashes (a read of a live
     * source meets the hash of a job added after it read the listings; v1's pause/resume wrappers leave one at each add:
     * every refresh finds them again), those a refresh finds again ({@link #FOUND_AGAIN}),
     * those met in job hashes while it keeps every one ({@link #CARRIED}), those of keys of no v1 shape and stale job
     * schedulers' records none of which was written ({@link #KEPT_UNWRITTEN}), per-job keys of jobs gone none of whose
     * keys was written ({@link #DANGLING}) and those a v1 worker's move met half-way shows
     * ({@link #MOVED_WHILE_READ}), each on a key (a job's hash, or the lock or logs list met without its job) in
     * {@code written}; dedup keys, job schedulers and flows it may hold (the refresh carries flows while no flow key was
     * written since, and gives nothing once one was).
     */
    boolean refreshableGiven(Set<Bytes> written) {
        return readInFullBecause(written).isEmpty();
    }

    /**
     * Why no refresh may start from this snapshot ({@link #refreshableGiven}, nothing written since), in an operator's
     * words ("it holds 2 anomalies, 1 BullMQ 4.x marker"): then a pass under the pause reads the queue whole;
     * empty when one may.
     */
    public Optional<String> readInFullBecause() {
        return readInFullBecause(Set.of());
    }

    private Optional<String> readInFullBecause(Set<Bytes> written) {
        List<String> why = new ArrayList<>();
        long anomalies = anomalyCounts.entrySet().stream().filter(e -> !refreshCarries(e.getKey(), e.getValue(), written))
                .mapToLong(Map.Entry::getValue).sum();
        if (anomalies > 0) {
            why.add(counted(anomalies, "anomaly", "anomalies"));
        }
        if (legacyMarkers > 0) {
            why.add(counted(legacyMarkers, "BullMQ 4.x marker", "BullMQ 4.x markers"));
        }
        return why.isEmpty() ? Optional.empty() : Optional.of("it holds " + String.join(", ", why));
    }

    /**
     * Whether a refresh given {@code written} carries on the {@code count} anomalies of this kind as a full read finds them:
     * orphans and those it finds again, whatever was written; the others only while this snapshot keeps every one, each
     * with its key: those met in job hashes ({@link #CARRIED}), those of keys of no v1 shape and stale job schedulers'
     * records while none was written ({@link #KEPT_UNWRITTEN}), per-job keys left without their job's hash each on a key
     * written or of a job none of whose keys was ({@link #DANGLING}), and those a v1 worker's move met half-way while each
     * is on a key written (then a refresh reads each such job again, and reports it only if it still is one:
     * {@link #MOVED_WHILE_READ}).
     */
    private boolean refreshCarries(AnomalyKind kind, long count, Set<Bytes> written) {
        if (kind == AnomalyKind.ORPHAN_HASH || FOUND_AGAIN.contains(kind)) {
            return true;
        }
        List<Anomaly> kept = anomalies(kind);
        if (kept.size() != count) {
            return false;
        }
        if (KEPT_UNWRITTEN.contains(kind)) {
            return kept.stream().noneMatch(a -> written.contains(a.key()));
        }
        if (DANGLING.contains(kind)) {
            return kept.stream().allMatch(a -> written.contains(a.key()) || danglingUntouched(a, written));
        }
        return CARRIED.contains(kind) || MOVED_WHILE_READ.contains(kind) && kept.stream().allMatch(a -> written.contains(a.key()));
    }

    /** Whether no key of the job whose per-job key {@code dangling} holds was written ({@code written}): its hash, its own. */
    boolean danglingUntouched(Anomaly dangling, Set<Bytes> written) {
        return queue.jobOfSubKey(dangling.key()).map(queue::keysOfJob).orElseThrow().stream().noneMatch(written::contains);
    }

    private static String counted(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    /** Whether job {@code id} had a logs list when this snapshot was read. */
    public boolean hasLogs(Bytes id) {
        return jobSubkeys.has(JobSubKind.LOGS, id);
    }

    /** The jobs that have a lock or a logs list, as this snapshot found them: what a refresh carries on. */
    JobSubkeys jobSubkeys() {
        return jobSubkeys;
    }

    /** The columns of one state's jobs; null when it holds none. */
    StateJobs held(V1State state) {
        return jobs.get(state);
    }

    private int stateSize(V1State state) {
        StateJobs s = jobs.get(state);
        return s == null ? 0 : s.size();
    }

    /** One state's jobs. */
    private final class StateView extends AbstractList<JobFacts> implements RandomAccess {
        private final StateJobs s;

        StateView(StateJobs s) {
            this.s = s;
        }

        @Override
        public JobFacts get(int i) {
            java.util.Objects.checkIndex(i, s.size());
            return s.facts(i, rankBase[s.state().ordinal()] + i + 1);
        }

        @Override
        public int size() {
            return s.size();
        }
    }

    /** All states' jobs, one after the other in rank order. */
    private final class RankOrderView extends AbstractList<JobFacts> implements RandomAccess {
        private final int size = Math.toIntExact(jobCount());

        @Override
        public JobFacts get(int i) {
            java.util.Objects.checkIndex(i, size);
            V1State state = stateAt(i);
            return jobs.get(state).facts((int) (i - rankBase[state.ordinal()]), i + 1L);
        }

        @Override
        public int size() {
            return size;
        }
    }
}
