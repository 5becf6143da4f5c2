package io.emq.migrate.v1;

import io.emq.migrate.keyspace.Names;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.PipelineSend;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.args.RawableFactory;
import redis.clients.jedis.resps.Tuple;

/**
 * Reads one v1 queue into a {@link QueueSnapshot} with read commands only ({@code TYPE},
 * {@code SCAN}, {@code LRANGE}, {@code ZRANGE}, {@code HMGET}, {@code HSTRLEN},
 * {@code PTTL}, …), in pipelined batches. The queue's scan asks the type of every key but the
 * listed job keys: reading a job's facts tells a hash from a missing key or another type. Memory holds the ids and small facts of the queue's
 * jobs in columns ({@link ListedIds}, {@link StateJobs}; tens of bytes per job), the distinct ids
 * in an {@link IdIndex} over them while reading, and a bounded {@link AnomalyLog}; payloads are
 * measured, or read a bounded batch at a time, checked (and digested) and dropped ({@link PayloadRead}).
 */
public final class QueueSnapshotReader {
    static final int ID_CHUNK = 1000;
    /** How far each chunk of a list reaches back toward its tail (see {@code readList}). */
    static final int OVERLAP = 250;
    /**
     * How many entries before a refresh's walk looks past one whose hash the feed did not tell written, for the id listed
     * now ({@code Walk#pair}): more than a busy v1 worker takes between the feed's drain and the read of the listing.
     */
    private static final int LOOKAHEAD = 1024;
    static final int JOB_BATCH = 1000;
    /** The most payload bytes one {@code HMGET} pipeline asks for: two are in flight at once (see {@link FactsBatch#start}). */
    static final long PAYLOAD_BATCH_BYTES = 4L << 20;
    private static final Bytes ZERO_MARKER = Bytes.utf8("0:");

    private final UnifiedJedis jedis;
    private final KeySource<QueueRef> keySource;
    private final PayloadRead payloadRead;

    /**
     * A reader of one queue at a time: each queue scans its own keys (a scan shared with no other queue
     * would walk the whole prefix). {@code bases} holds every discovered queue, so keys of a nested
     * queue ({@code a:b} under {@code a}) are left to it.
     */
    public QueueSnapshotReader(UnifiedJedis jedis, QueueBases bases) {
        this(jedis, new SharedScan<>(jedis, bases::owner, q -> q.prefix().concat(":"), QueueRef::base, 0), PayloadRead.DIGESTED);
    }

    /**
     * A reader whose queues find their keys in {@code keys}: a {@link SharedScan}, which readers of other
     * queues may share, or the keys discovery's pass held ({@link Discovery#discoverHoldingKeys}, the dry run's).
     */
    public QueueSnapshotReader(UnifiedJedis jedis, KeySource<QueueRef> keys) {
        this(jedis, keys, PayloadRead.DIGESTED);
    }

    private QueueSnapshotReader(UnifiedJedis jedis, KeySource<QueueRef> keys, PayloadRead payloadRead) {
        this.jedis = jedis;
        this.keySource = keys;
        this.payloadRead = payloadRead;
    }

    /**
     * A reader that measures payloads ({@code HSTRLEN}, {@code HEXISTS}) without reading them: its
     * snapshots have no payload digests ({@link JobFacts#payloadSha256()} null, {@link JobFacts#payloadJson()}
     * false) and report no {@code non-json-data} ({@link PayloadRead#MEASURED}). For the migration's fence, which
     * digests the bytes it copies itself; source verification reads with digests.
     */
    public QueueSnapshotReader withoutPayloadDigests() {
        return new QueueSnapshotReader(jedis, keySource, PayloadRead.MEASURED);
    }

    /**
     * A reader that reads each payload to check it (UTF-8, JSON: {@code non-json-data}) and does not hash it:
     * its snapshots' {@link JobFacts#payloadSha256()} is null. For the dry run, whose report shows no digest
     * ({@link PayloadRead#CHECKED}).
     */
    public QueueSnapshotReader withoutPayloadHashes() {
        return new QueueSnapshotReader(jedis, keySource, PayloadRead.CHECKED);
    }

    public QueueSnapshot read(QueueRef queue) {
        return new Reading(queue).run();
    }

    /**
     * The queue as it is now, from {@code previous} (a read of it by a reader like this one) and
     * {@code written}, every key of the queue written since that read began (the change feed's): the
     * structures and every listing are read again (the listed ids of {@code previous} are kept when no listing was
     * written and it holds no orphan); the facts only of the jobs whose hashes were written,
     * that {@code previous} did not list at the same place in {@code wait}, {@code paused} or a zset of
     * {@link #WALKED_ZSETS} (each listing walked beside the one before, byte for byte, past the jobs whose hashes were
     * written), or that {@code active} or {@code waiting-children} lists (an active job's lock runs out without a
     * write); no key scan. A walked listing that is the one before entry for entry, none of its jobs written (as
     * {@code paused} after the pause's RENAME), keeps the columns of {@code previous} for that state instead of a copy.
     * Empty when that cannot be proven equal to a full read: {@code previous} or the queue now holds anything but its
     * structures, listed job hashes, their locks and logs lists, job schedulers' records, dedup keys and flows whose keys
     * were not written since (an anomaly it neither finds again nor carries, a flow that moved, a legacy marker:
     * {@link #mayRefresh}; {@code previous} may hold orphan hashes written since, jobs added while it was read), a written
     * key is neither a structure, a job hash listed before or now, a lock or logs list of a job listed now (or gone), a
     * scheduler's record nor a dedup key, or an unlisted job's hash, lock or logs list is still there; then read the queue
     * in full. The dedup keys of {@code previous} are kept (with what is left of a TTL: one
     * that runs out is told as a write) but for those written since, which are read again, as is every dedup key written
     * since; so are its jobs' locks and logs lists, only those written since typed again. The schedulers (a queue holds
     * a few) are read again whole: the {@code repeat} zset, and every key a record may be at typed. The flow parents of
     * {@code previous} are carried as it read them, and each flow child's link with its facts, read again or kept.
     */
    public Optional<QueueSnapshot> refresh(QueueSnapshot previous, Set<Bytes> written) {
        return refresh(previous, written, false);
    }

    /**
     * {@link #refresh} of a source v1 serves meanwhile: the read may meet a v1 worker's move half-way, as a full read of a
     * live source does (a job read in {@code wait} and then in {@code active}, an active job's lock gone by the time its
     * facts are read), and keeps the anomalies such a move shows ({@link QueueSnapshot#MOVED_WHILE_READ}) as that full read
     * keeps them: the move wrote the job's hash after the drain before this read, so the next refresh reads the job again
     * ({@link QueueSnapshot#refreshableGiven}). A job listed before that is listed nowhere now, its hash gone (and its lock
     * or logs list), is left out as that full read leaves it out, told written or not (v1 removed it after the drain); one
     * whose hash is still there, or a job added since listed nowhere now with its hash there, is an orphan, as that full
     * read finds a job moved half-way from a listing it reads later to one it reads earlier (a retry pushed back to
     * {@code wait}, a delayed job promoted): the next refresh reads it again once the feed tells its hash written. Any
     * other anomaly has it give nothing, as {@link #refresh} does.
     */
    public Optional<QueueSnapshot> refreshLive(QueueSnapshot previous, Set<Bytes> written) {
        return refresh(previous, written, true);
    }

    private Optional<QueueSnapshot> refresh(QueueSnapshot previous, Set<Bytes> written, boolean live) {
        return mayRefresh(previous, written) ? new Reading(previous.queue()).refresh(previous, written, live) : Optional.empty();
    }

    /**
     * Whether a refresh of {@code previous} told {@code written} may stand, asked of no server: false when {@code previous}
     * holds what only a full read carries on ({@link QueueSnapshot#refreshableGiven}: an anomaly a refresh neither finds
     * again nor carries, a BullMQ 4.x marker),
     * was read otherwise than this reader reads, or {@code written} holds the queue's bare key or a key a flow parent keeps
     * its children in (a flow moved: a child finished, a flow was added or removed). One that may can still give nothing
     * (a key written that only a full read classifies, a job met half-way).
     */
    public boolean mayRefresh(QueueSnapshot previous, Set<Bytes> written) {
        Bytes base = previous.queue().base();
        return previous.refreshableGiven(written) && previous.payloadRead() == payloadRead && !written.contains(previous.queue().bareKey())
                && written.stream().filter(key -> key.startsWith(base)).map(key -> key.dropPrefix(base))
                .noneMatch(rest -> FLOW_KEYS.stream().anyMatch(kind -> kind.shapes(rest)));
    }

    /**
     * The entries of a state a refresh keeps the facts of from the snapshot before, as runs: entries one after the other
     * paired with jobs before one after the other (a listing walked beside the one before pairs long runs, cut only where
     * a job was written or added).
     */
    private static final class KeptRuns {
        /** Per run: its first entry now, its first entry before, and its length. */
        private int[] runs = new int[3 * 16];
        private int size;

        void add(int entry, int kept) {
            int last = 3 * (size - 1);
            if (size > 0 && runs[last] + runs[last + 2] == entry && runs[last + 1] + runs[last + 2] == kept) {
                runs[last + 2]++;
                return;
            }
            if (3 * size == runs.length) {
                runs = Arrays.copyOf(runs, runs.length * 2);
            }
            runs[3 * size] = entry;
            runs[3 * size + 1] = kept;
            runs[3 * size + 2] = 1;
            size++;
        }

        /** Fills {@code jobs} in entry order: the jobs of {@code read} (the facts read), and those kept copied from {@code previous}. */
        void merge(StateJobs jobs, StateJobs read, QueueSnapshot previous, ListedIds previousIds) {
            int k = 0;
            for (int run = 0; run < size; run++) {
                int first = runs[3 * run];
                for (; k < read.size() && read.entryOf(k) < first; k++) {
                    jobs.copy(read.entryOf(k), read, k);
                }
                for (int i = 0; i < runs[3 * run + 2]; i++) {
                    int kept = runs[3 * run + 1] + i;
                    StateJobs held = previous.held(previousIds.stateOf(kept));
                    jobs.copy(first + i, held, held.jobAt(kept));
                }
            }
            for (; k < read.size(); k++) {
                jobs.copy(read.entryOf(k), read, k);
            }
        }
    }

    /**
     * The zsets whose jobs a refresh keeps the facts of when unwritten, as it keeps those of {@code wait} and
     * {@code paused}: read in their order (score, then member), each one beside itself before pairs every job that
     * stayed. Not {@code active} (a lock runs out without a write), nor {@code waiting-children} (flow parents, few, their
     * facts read again in each refresh).
     */
    private static final List<V1State> WALKED_ZSETS = List.of(V1State.PRIORITIZED, V1State.DELAYED, V1State.COMPLETED,
            V1State.FAILED);

    /** The anomalies a refresh keeps as a full read keeps them ({@link Reading#onlyAnomaliesKept}): found again, or carried. */
    private static final Set<AnomalyKind> KEPT = EnumSet.copyOf(Stream.of(QueueSnapshot.FOUND_AGAIN, QueueSnapshot.CARRIED,
            QueueSnapshot.KEPT_UNWRITTEN, QueueSnapshot.DANGLING, Set.of(AnomalyKind.ORPHAN_HASH)).flatMap(Set::stream).toList());
    /** The anomalies a live refresh keeps as a full read keeps them: {@link #KEPT}, and those of a v1 client's move met half-way. */
    private static final Set<AnomalyKind> KEPT_LIVE = EnumSet.copyOf(Stream.of(KEPT, QueueSnapshot.MOVED_WHILE_READ)
            .flatMap(Set::stream).toList());

    /** The mutable state of reading one queue. */
    private final class Reading {
        private final QueueRef queue;
        private final Bytes base;
        private final Map<QueueStructure, KeyType> structureTypes = new EnumMap<>(QueueStructure.class);
        private final Map<String, String> meta = new TreeMap<>();
        private ListedIds listedIds = new ListedIds();
        private IdIndex index;
        /** Per first entry of a listed id: 1 + the anomaly log's {@link AnomalyLog#mark} where the scan met its key, 0 when not met; empty in a refresh (no scan). */
        private int[] metAt;
        private boolean listedTwice;
        private final Map<Bytes, Double> repeatMembers = new LinkedHashMap<>();
        private final AnomalyLog anomalies = new AnomalyLog();
        private final Map<String, Long> keyClasses = new TreeMap<>();
        private final Map<JobSubKind, Long> subkeys = new EnumMap<>(JobSubKind.class);
        private final List<Bytes> unlistedHashes = new ArrayList<>();
        /**
         * In a refresh, the hashes listed nowhere now that it finds orphans, as a full read would
         * ({@link #unlistedJobsSettled}, {@link #subkeysWritten}).
         */
        private final List<Bytes> orphansMet = new ArrayList<>();
        /** The orphans (unlisted job hashes) in the order met, each with why it is one: its {@code orphan-hash} anomaly if its hash is still there when its facts are read. */
        private final Map<Bytes, String> orphans = new LinkedHashMap<>();
        /** Where each orphan's {@code orphan-hash} anomaly is listed: in the order of their ids, as their entries ({@link #listOrphans}). */
        private final Map<Bytes, Integer> orphanPlaces = new HashMap<>();
        private final List<Bytes> schedulerRecords = new ArrayList<>();
        /** The ids of the dedup keys to read ({@link #readDedupKeys}), packed: a queue may hold a million. */
        private final ByteArena dedupIds = new ByteArena(16);
        /** The dedup keys read; in a refresh, first those of the snapshot before kept as it read them (see {@link #refreshDedupKeys}). */
        private final DedupKeys dedupKeys = new DedupKeys();
        private final Map<Bytes, Set<JobSubKind>> parentSubkeys = new HashMap<>();
        private final Map<Bytes, Bytes> unlistedStems = new LinkedHashMap<>();
        /** The jobs that have a lock or a logs list; in a refresh, those of the snapshot before with the written ones typed again. */
        private JobSubkeys jobSubkeys = new JobSubkeys();
        private final Map<V1State, StateJobs> facts = new EnumMap<>(V1State.class);
        private final List<FlowLink> flowLinks = new ArrayList<>();
        /** In a refresh, the flow parents of the snapshot before, carried ({@link #flowsCarried}); null in a full read. */
        private List<FlowParent> carriedParents;
        private final NameTable names = new NameTable();
        /** The jobs whose facts were read whose hash lies under a nested queue's base ({@link EnclosingQueues#nestedOwner}), by that queue. */
        private final Map<QueueRef, List<Bytes>> underNested = new HashMap<>();
        /** The jobs of the state being read whose hash was missing when their facts were read ({@link #settleMissingHashes}). */
        private final List<HashMissing> hashesMissing = new ArrayList<>();
        private long legacyMarkers;
        /** The {@code 0:} entries the lists hold ({@link #legacyMarkers}): a job hash of such an id is told so. */
        private final Set<Bytes> markerIds = new HashSet<>();
        /**
         * The batches in flight, in the order they were made: the one whose payload lengths were asked for and
         * whose {@code HMGET}s were not sent yet, and the one before, whose first {@code HMGET} pipeline was sent and
         * whose facts are not added yet; null when none.
         */
        private FactsBatch measuring;
        private FactsBatch sent;
        /**
         * Measured reads of a standalone source: the one connection a state's facts are read on, while they are
         * read; each batch's pipeline is sent on it before the batch before is read, and replies come in the order
         * sent. Null otherwise (payloads read: a connection a pipeline in flight; a cluster: one pipeline at a time).
         */
        private Connection held;
        /**
         * A refresh's snapshot read before, its listed ids, the keys written since, the entries now listed
         * whose hash was written, the walks of {@code wait} and {@code paused} beside the listings before, the
         * entries before they paired and the entries now they paired them with, whether an entry before was
         * paired twice; null and empty in a full read.
         */
        private QueueSnapshot previous;
        private ListedIds previousIds;
        private Set<Bytes> written = Set.of();
        private final BitSet writtenEntries = new BitSet();
        private final Map<V1State, Walk> walks = new EnumMap<>(V1State.class);
        private final BitSet paired = new BitSet();
        private final BitSet pairedNow = new BitSet();
        private boolean pairedTwice;
        /** Whether v1 serves as this refresh reads ({@link QueueSnapshotReader#refreshLive}). */
        private boolean live;
        /** In a refresh, the anomalies the snapshot before met in job hashes, carried with the facts kept; null in a full read. */
        private FactAnomalies carried;

        Reading(QueueRef queue) {
            this.queue = queue;
            this.base = queue.base();
        }

        QueueSnapshot run() {
            readStructureTypes();
            readListings(null);
            indexListings();
            readRepeatMembers();
            scanQueueKeys();
            resolveUnlistedHashes();
            checkQueue();
            Map<V1State, Long> listed = readJobs();
            return snapshot(listed);
        }

        /** The count each structure lists, then the orphans and every listed job's facts, in rank order. */
        private Map<V1State, Long> readJobs() {
            Map<V1State, Long> listed = new EnumMap<>(V1State.class);
            for (V1State s : V1State.LISTED) {
                listed.put(s, (long) listedIds.count(s));
            }
            listOrphans();
            for (V1State state : V1State.RANK_ORDER) {
                readFacts(state);
                long left = settleMissingHashes(state);
                listed.computeIfPresent(state, (s, n) -> n - left); // an orphan (unknown) was never counted as listed
            }
            orphans.forEach((id, why) -> anomalies.addAt(orphanPlaces.get(id), AnomalyKind.ORPHAN_HASH, queue.jobKey(id), why));
            underNested.forEach((nested, keys) -> EnclosingQueues.listedBy(jedis, nested, keys).forEach(key ->
                    anomaly(AnomalyKind.ANOTHER_QUEUES_JOB, key, "listed by " + nested.display() + " too, as its job "
                            + key.dropPrefix(nested.base()).display() + ": v1 serves it in both queues; migrate " + nested.display()
                            + " first (it moves the job: " + queue.display() + " then lists it with no hash, a missing-hash), or"
                            + " remove one of the listings by hand")));
            underNested.clear();
            return listed;
        }

        /** A listed job whose hash was missing when its facts were read, and the place in the anomalies where it was met. */
        private record HashMissing(int entry, int place) {
        }

        private void hashMissing(int entry, int place) {
            hashesMissing.add(new HashMissing(entry, place));
        }

        /**
         * Settles the jobs of {@code state} whose hash was missing when their facts were read, against their listing
         * now: a job still listed there is listed without a hash ({@code missing-hash}, at the place it was met); a job
         * listed there no longer left the state since the listings were read (a v1 worker finished and removed it, a
         * count trimmed it) and is no anomaly, and no longer counted as listed. Either way a hash the scan met is no longer
         * counted as a job hash: the keys counted are those the facts were read of, as a refresh counts them. An orphan ({@link V1State#UNKNOWN}, a
         * hash listed nowhere) whose hash is gone left too, like an unlisted key gone since the scan: no {@code orphan-hash}
         * is reported for it (one still there is reported at the place it was met, once the facts are read). A list is walked
         * once however many of its jobs are settled ({@code LPOS} would walk it once a job); a zset is asked
         * {@code ZSCORE} a job. Returns how many left.
         */
        private long settleMissingHashes(V1State state) {
            if (hashesMissing.isEmpty()) {
                return 0;
            }
            BitSet stillListed = new BitSet();
            if (state.isList()) {
                IdIndex sought = new IdIndex(listedIds.arena(), hashesMissing.size());
                hashesMissing.forEach(m -> sought.putIfAbsent(m.entry()));
                walkList(queue.key(QueueStructure.of(state)), length -> { }, id -> {
                    int entry = sought.find(id);
                    if (entry >= 0) {
                        stillListed.set(entry);
                    }
                });
            } else if (state != V1State.UNKNOWN) {
                byte[] key = queue.key(QueueStructure.of(state)).raw();
                for (int from = 0; from < hashesMissing.size(); from += JOB_BATCH) {
                    List<HashMissing> chunk = hashesMissing.subList(from, Math.min(hashesMissing.size(), from + JOB_BATCH));
                    List<Response<Double>> scores = new ArrayList<>(chunk.size());
                    try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                        chunk.forEach(m -> scores.add(p.zscore(key, listedIds.id(m.entry()).raw())));
                        p.sync();
                    }
                    for (int k = 0; k < chunk.size(); k++) {
                        if (scores.get(k).get() != null) {
                            stillListed.set(chunk.get(k).entry());
                        }
                    }
                }
            }
            long left = 0;
            for (HashMissing m : hashesMissing) {
                if (state != V1State.UNKNOWN && m.entry() < metAt.length && metAt[m.entry()] > 0) {
                    uncount("job-hash"); // the scan met a hash that was gone when its facts were read
                }
                if (state == V1State.UNKNOWN) {
                    uncount("job-hash"); // counted once resolved (resolveUnlistedHashes)
                    orphans.remove(listedIds.id(m.entry()));
                    left++;
                } else if (stillListed.get(m.entry())) {
                    anomalies.addAt(m.place(), AnomalyKind.MISSING_HASH, queue.jobKey(listedIds.id(m.entry())),
                            "listed in " + state.wireName() + " but the job hash does not exist; nothing to migrate");
                } else {
                    left++;
                }
            }
            hashesMissing.clear();
            return left;
        }

        /** See {@link QueueSnapshotReader#refresh} and, {@code live}, {@link QueueSnapshotReader#refreshLive}. */
        Optional<QueueSnapshot> refresh(QueueSnapshot before, Set<Bytes> writtenSince, boolean live) {
            readStructureTypes();
            readRepeatMembers();
            previous = before;
            written = writtenSince;
            this.live = live;
            carried = new FactAnomalies(before);
            before.subkeys().forEach((kind, n) -> {
                if (FLOW_KEYS.contains(kind)) {
                    subkeys.put(kind, n); // the flows' keys, none written since: carried, counted as a full read counts them
                }
            });
            if (listingsUnwritten()) {
                listedIds = heldIds(previous);
            } else {
                readListings(previous.jobCount() > 0 && !live ? heldIds(previous) : null);
            }
            walkBeside();
            if (!listedOnce()) {
                if (pairedTwice || !live) {
                    return Optional.empty(); // an anomaly: no refresh stands for the full read
                }
                indexListings(); // each id read twice reported, its facts read at its first place, as a full read does
            }
            ByteArena sought = writtenIds();
            int writtenCount = sought.size();
            List<WrittenSubkey> subkeysShaped = stemsSought(sought);
            List<Integer> schedulerKeys = schedulerKeysSought(sought, writtenCount);
            List<Anomaly> danglingBefore = previous.anomalies(AnomalyKind.DANGLING_SUBKEY);
            int danglingFrom = sought.size();
            danglingBefore.forEach(a -> sought.add(queue.jobOfSubKey(a.key()).orElseThrow().raw()));
            BitSet listedNow = markWritten(sought, writtenCount);
            Optional<List<Anomaly>> danglingCarried = danglingCarried(danglingBefore, listedNow, danglingFrom);
            if (danglingCarried.isEmpty()) {
                return Optional.empty();
            }
            KeyClassifier classifier = new KeyClassifier(queue, Set.of(), Set.of());
            Map<String, Long> expected = new TreeMap<>(keyClasses);
            previous.structures().forEach((s, t) ->
                    expected.merge(classifier.classify(new ScannedKey(queue.key(s), t)).kindName(), 1L, Long::sum));
            if (previous.jobCount() > 0) {
                expected.merge("job-hash", previous.jobCount(), Long::sum);
            }
            // keys of no v1 shape and stale schedulers' records, none written since (mayRefresh): carried as read, in the read's order
            List<Anomaly> strays = previous.anomalies().stream().filter(a -> QueueSnapshot.KEPT_UNWRITTEN.contains(a.kind())).toList();
            if (strays.stream().anyMatch(a -> a.kind() == AnomalyKind.STALE_SCHEDULER
                    && repeatMembers.containsKey(a.key().dropPrefix(base).dropPrefix(KeyClassifier.REPEAT)))) {
                return Optional.empty(); // a stale record's id listed again, its record not written: a full read tells it apart
            }
            if (!strays.isEmpty()) {
                expected.merge(KeyClass.Misfit.KIND, (long) strays.size(), Long::sum);
            }
            for (String counted : List.of(KeyClass.DedupKey.KIND, KeyClass.JobSubkey.KIND, KeyClass.SchedulerRecord.KIND)) { // counted again below
                Long was = previous.keyClasses().get(counted);
                if (was != null) {
                    expected.put(counted, was);
                }
            }
            Optional<List<WrittenSubkey>> subkeysWritten = subkeysWritten(sought, writtenCount, listedNow, subkeysShaped);
            if (!expected.equals(previous.keyClasses()) || subkeysWritten.isEmpty()
                    || !refreshDedupKeys() || !refreshSubkeys(sought, listedNow, subkeysWritten.get())
                    || !refreshSchedulerRecords(sought, listedNow, schedulerKeys) || !unlistedJobsSettled()) {
                return Optional.empty();
            }
            strays.forEach(a -> {
                count(KeyClass.Misfit.KIND);
                anomaly(a.kind(), a.key(), a.reason());
            });
            unlistedHashes.addAll(orphansMet);
            resolveUnlistedHashes(); // the refresh's orphans, each counted as a job hash once resolved
            danglingCarried.get().forEach(a -> anomaly(a.kind(), a.key(), a.reason()));
            structureTypes.forEach((s, t) -> {
                if (t != KeyType.NONE) {
                    classified(classifier.classify(new ScannedKey(queue.key(s), t)));
                }
            });
            metAt = new int[0]; // no key scan: no place was marked
            checkQueue();
            Map<V1State, Long> listed = readJobs();
            long jobs = facts.entrySet().stream().filter(e -> e.getKey() != V1State.UNKNOWN).mapToLong(e -> e.getValue().size()).sum();
            if (jobs > 0) {
                keyClasses.merge("job-hash", jobs, Long::sum);
            }
            if (!onlyAnomaliesKept() || legacyMarkers > 0 || !flowsCarried()) {
                return Optional.empty();
            }
            return Optional.of(snapshot(listed));
        }

        /**
         * Carries the flows of the snapshot before into this refresh, none of their keys written since
         * ({@link #mayRefresh}): each flow parent before is one still, as it was, while it is listed now; each job
         * with a parent key is a flow child, its link read again with its facts or kept with them (as its facts were), the
         * links in rank order as a full read lists them. False when a parent before is listed nowhere now (a full read
         * finds its keys dangling): then the refresh gives nothing.
         */
        private boolean flowsCarried() {
            Map<Bytes, FlowLink> known = new HashMap<>();
            previous.flowLinks().forEach(link -> known.put(link.childId(), link));
            flowLinks.forEach(link -> known.put(link.childId(), link)); // read again with the job's facts
            List<FlowLink> ranked = new ArrayList<>();
            for (V1State state : V1State.RANK_ORDER) {
                if (facts.containsKey(state)) {
                    facts.get(state).forEachChild(id -> ranked.add(known.get(id)));
                }
            }
            List<FlowParent> parents = previous.flowParents();
            ByteArena parentIds = new ByteArena(parents.size());
            parents.forEach(p -> parentIds.add(p.id().raw()));
            BitSet listed = listedAmong(parentIds, IntStream.range(0, parents.size()).toArray(), listedIds.arena(), entry -> { });
            if (listed.cardinality() < parents.size()) {
                return false;
            }
            flowLinks.clear();
            flowLinks.addAll(ranked);
            carriedParents = parents;
            return true;
        }

        /**
         * Whether this refresh met no anomaly but those it finds again as a full read does ({@link QueueSnapshot#FOUND_AGAIN}:
         * a stalled job, a bad score), those met in job hashes ({@link QueueSnapshot#CARRIED}: read again or carried), and
         * those a {@link #live} one keeps: those a v1 client's move met half-way shows
         * ({@link QueueSnapshot#MOVED_WHILE_READ}, and an orphan: {@link #unlistedJobsSettled}). Under the pause a lock met
         * gone because a worker finished the job as the refresh read is no stalled job: the worker's move wrote the
         * listings, which the drain after the read tells, and the refresh is taken again.
         */
        private boolean onlyAnomaliesKept() {
            return (live ? KEPT_LIVE : KEPT).containsAll(anomalies.counts().keySet());
        }

        /**
         * Whether the feed tells no listing written since the snapshot before was read, and that snapshot holds jobs
         * and no orphan: then the listings now are the ones it read, entry for entry, and its listed ids are kept
         * instead of reading them again (no second copy of them on the heap).
         */
        private boolean listingsUnwritten() {
            return previous.jobCount() > 0 && previous.held(V1State.UNKNOWN) == null
                    && V1State.LISTED.stream().noneMatch(s -> written.contains(queue.key(QueueStructure.of(s))));
        }

        /** The listed ids of a snapshot that holds jobs (every state's columns share them). */
        private static ListedIds heldIds(QueueSnapshot snapshot) {
            return V1State.RANK_ORDER.stream().map(snapshot::held).filter(Objects::nonNull).findFirst().orElseThrow().ids();
        }

        /**
         * Walks {@code wait} and {@code paused} now, each beside the same listing before (the other one when
         * the previous snapshot has none there: the pause renames {@code wait} to {@code paused}), and each zset of
         * {@link #WALKED_ZSETS} beside itself before, pairing their entries before the facts are read ({@link #kept}
         * replays the pairs).
         */
        private void walkBeside() {
            if (previous.jobCount() == 0) {
                return;
            }
            previousIds = heldIds(previous);
            for (V1State state : List.of(V1State.WAIT, V1State.PAUSED)) {
                V1State other = state == V1State.WAIT ? V1State.PAUSED : V1State.WAIT;
                walk(state, previousIds.count(state) > 0 ? state : other);
            }
            WALKED_ZSETS.forEach(state -> walk(state, state));
        }

        /** Walks the entries of {@code state} now beside those of {@code was} before. */
        private void walk(V1State state, V1State was) {
            Walk walk = new Walk(was, previousIds.from(was), previousIds.count(was));
            walks.put(state, walk);
            int from = listedIds.from(state);
            for (int entry = from; entry < from + listedIds.count(state); entry++) {
                walk.pair(entry);
            }
        }

        /**
         * Whether no id is listed twice now, without an index of every entry when the snapshot before listed no id
         * twice: then the entries a walk paired list distinct ids (each the id of its own entry before), so only the
         * others are indexed, and every paired entry is looked up among them. After a read that met an id in two
         * places, every entry is indexed.
         */
        private boolean listedOnce() {
            if (pairedTwice) {
                return false;
            }
            ByteArena now = listedIds.arena();
            if (previous.anomalyCount(AnomalyKind.LISTED_TWICE) > 0) {
                IdIndex all = new IdIndex(now, now.size());
                return IntStream.range(0, now.size()).allMatch(entry -> all.putIfAbsent(entry) < 0);
            }
            IdIndex unpaired = new IdIndex(now, now.size() - pairedNow.cardinality());
            for (int entry = pairedNow.nextClearBit(0); entry < now.size(); entry = pairedNow.nextClearBit(entry + 1)) {
                if (unpaired.putIfAbsent(entry) >= 0) {
                    return false;
                }
            }
            for (int entry = pairedNow.nextSetBit(0); entry >= 0 && entry < now.size(); entry = pairedNow.nextSetBit(entry + 1)) {
                if (unpaired.find(now, entry) >= 0) {
                    return false;
                }
            }
            return true;
        }

        /** The ids of the written keys under the queue's base (a job's hash, or a key under it), past that base. */
        private ByteArena writtenIds() {
            ByteArena ids = new ByteArena(written.size());
            for (Bytes key : written) {
                if (key.startsWith(base)) {
                    ids.add(Arrays.copyOfRange(key.raw(), base.length(), key.length()));
                }
            }
            return ids;
        }

        /**
         * The per-job keys of jobs gone the snapshot before met ({@code dangling}, their jobs' ids listed now or not by
         * {@code listedNow} from {@code from} on) that this refresh carries as read: those none of whose job's keys was
         * written since ({@link QueueSnapshot#DANGLING}). Empty when one is not as a full read would find it: such a job
         * listed now (its hash not written), or one whose key was written, listed nowhere now, with a key of its job left
         * (the keys of a job a full read finds are typed again: a lock told written and gone may leave its logs list).
         */
        private Optional<List<Anomaly>> danglingCarried(List<Anomaly> dangling, BitSet listedNow, int from) {
            List<Anomaly> carried = new ArrayList<>();
            List<Bytes> typedAgain = new ArrayList<>();
            for (int i = 0; i < dangling.size(); i++) {
                Anomaly a = dangling.get(i);
                boolean listed = listedNow.get(from + i);
                if (previous.danglingUntouched(a, written)) {
                    if (listed) {
                        return Optional.empty();
                    }
                    carried.add(a);
                } else if (!listed) {
                    typedAgain.addAll(queue.keysOfJob(queue.jobOfSubKey(a.key()).orElseThrow()));
                }
            }
            boolean left = !typedAgain.isEmpty() && new KeyspaceScanner(jedis).typed(typedAgain).stream().anyMatch(k -> k.type() != KeyType.NONE);
            return left ? Optional.empty() : Optional.of(carried);
        }

        /** A written key shaped as a job's lock or logs list: its id and its job's id, by entry of the ids sought ({@link #stemsSought}). */
        private record WrittenSubkey(int key, int job, JobSubKind kind) {
        }

        /**
         * Adds to {@code sought} (the written ids) the job id of each written key shaped as a lock or logs list, so
         * that the one walk of the listings ({@link #markWritten}) tells whether its job is listed now; returns those keys.
         */
        private List<WrittenSubkey> stemsSought(ByteArena sought) {
            List<WrittenSubkey> shaped = new ArrayList<>();
            int writtenCount = sought.size();
            for (int k = 0; k < writtenCount; k++) {
                Bytes rest = sought.get(k);
                for (JobSubKind kind : JobSubkeys.CARRIED) {
                    if (kind.shapes(rest)) {
                        shaped.add(new WrittenSubkey(k, sought.add(rest.dropSuffix(kind.colonSuffix()).raw()), kind));
                    }
                }
            }
            return shaped;
        }

        /**
         * Adds to {@code sought} the key (the base taken off) of every job scheduler's record the queue may hold: of each
         * id the snapshot before read a scheduler of, each member of the {@code repeat} zset now, and each written key
         * under {@code repeat:} that is no lock or logs list (so that the walk of the listings tells whether a job of that
         * id is listed now); returns their entries.
         */
        private List<Integer> schedulerKeysSought(ByteArena sought, int writtenCount) {
            Set<Bytes> keys = new LinkedHashSet<>();
            previous.schedulers().forEach(sc -> keys.add(KeyClassifier.REPEAT.concat(sc.id())));
            repeatMembers.keySet().forEach(sid -> keys.add(KeyClassifier.REPEAT.concat(sid)));
            for (int k = 0; k < writtenCount; k++) {
                Bytes rest = sought.get(k);
                if (rest.startsWith(KeyClassifier.REPEAT) && JobSubkeys.CARRIED.stream().noneMatch(kind -> kind.shapes(rest))) {
                    keys.add(rest);
                }
            }
            List<Integer> entries = new ArrayList<>(keys.size());
            keys.forEach(key -> entries.add(sought.add(key.raw())));
            return entries;
        }

        /**
         * Marks the entries listed now whose hash was written ({@link #writtenEntries}): the listings walked once, each
         * entry looked up in an index of {@code sought} only (the first {@code writtenCount} of them written, the rest
         * the jobs of written locks and logs lists and the schedulers' record keys). Returns which entries of {@code sought}
         * are listed now.
         */
        private BitSet markWritten(ByteArena sought, int writtenCount) {
            BitSet listed = new BitSet();
            if (sought.size() == 0) {
                return listed;
            }
            IdIndex index = indexOf(sought, IntStream.range(0, sought.size()), sought.size());
            ByteArena listing = listedIds.arena();
            for (int entry = 0; entry < listing.size(); entry++) {
                int at = index.find(listing, entry);
                if (at >= 0) {
                    listed.set(at);
                    if (at < writtenCount) { // the first entry of an id: a written id comes before a job's id of the same bytes
                        writtenEntries.set(entry);
                    }
                }
            }
            for (int k = 0; k < sought.size(); k++) {
                if (listed.get(index.first(k))) {
                    listed.set(k);
                }
            }
            return listed;
        }

        /**
         * Which of these {@code entries} of {@code ids} {@code listing} holds: each entry of the listing is looked
         * up in an index of only those entries (a few: no index of the listing is built); {@code listed} is told
         * each entry of the listing found.
         */
        private static BitSet listedAmong(ByteArena ids, int[] entries, ByteArena listing, IntConsumer listed) {
            BitSet found = new BitSet();
            if (entries.length == 0) {
                return found;
            }
            IdIndex index = indexOf(ids, IntStream.of(entries), entries.length);
            for (int entry = 0; entry < listing.size(); entry++) {
                int at = index.find(listing, entry);
                if (at >= 0) {
                    found.set(at);
                    listed.accept(entry);
                }
            }
            return found;
        }

        /**
         * A walk along a listing before ({@code wait}, {@code paused} or a zset of {@link #WALKED_ZSETS}) beside the
         * same listing now, both in serve order: v1 adds at the far end (a zset: mostly) and takes from the near one, so a listing mostly equals the one
         * before, position by position, once the entries taken, moved or removed since (each a job whose hash
         * was written) are passed over. Ids are compared byte for byte; no lookup, no key built per job.
         */
        private final class Walk {
            private final V1State state;
            private final int start;
            private int at;
            private final int end;
            /** The entries before this walk paired, in order; {@link #next} hands them out again, one a pair. */
            private final BitSet pairs = new BitSet();
            private int replayed;
            /** Whether no look past an unwritten entry before ({@link #pair}) found nothing yet. */
            private boolean looking = true;

            /** A walk along the {@code count} entries of {@code state} before, from entry {@code from}. */
            Walk(V1State state, int from, int count) {
                this.state = state;
                this.start = from;
                this.at = from;
                this.end = from + count;
            }

            /** The state whose listing before this walk walks. */
            V1State state() {
                return state;
            }

            /**
             * Whether this walk paired all the {@code count} entries listed now with all the entries before
             * (as many), in order: the listing now is the one before, entry for entry.
             */
            boolean pairedEvery(int count) {
                return end - start == count && pairs.cardinality() == count;
            }

            /**
             * Pairs {@code entry} (entries come in order) with the entry before that lists the same id, past
             * those before whose hash was written. When the next entry before lists another id and its hash was
             * not written, it looks up to {@link #LOOKAHEAD} entries further for the id (jobs v1 took or removed
             * after the feed's drain, their writes not told yet, as a worker takes them from the near end while
             * the refresh begins): those passed over are left unpaired, each then found listed elsewhere now, gone,
             * or in a live refresh an orphan ({@link #unlistedJobsSettled}). It pairs nothing when the look finds
             * nothing (then this entry is read, the walk stays, and looks no further again: a listing reordered is
             * read, not searched). An entry before that the other walk paired too (both walked the same listing
             * before) is an id listed twice now.
             */
            void pair(int entry) {
                while (at < end) {
                    if (previousIds.arena().equalsAt(at, listedIds.arena(), entry)) {
                        pairedTwice |= paired.get(at);
                        paired.set(at);
                        pairs.set(at);
                        pairedNow.set(entry);
                        at++;
                        return;
                    }
                    if (!written.contains(base.concat(previousIds.id(at)))) {
                        int ahead = looking ? ahead(entry) : -1;
                        if (ahead < 0) {
                            looking = false;
                            return;
                        }
                        at = ahead;
                    } else {
                        at++;
                    }
                }
            }

            /** The entry before past {@code at}, at most {@link #LOOKAHEAD} on, that lists the id of {@code entry}; -1 when none does. */
            private int ahead(int entry) {
                for (int before = at + 1; before < Math.min(end, at + 1 + LOOKAHEAD); before++) {
                    if (previousIds.arena().equalsAt(before, listedIds.arena(), entry)) {
                        return before;
                    }
                }
                return -1;
            }

            /** The entry before of the next pair, in the order {@link #pair} made them. */
            int next() {
                int before = pairs.nextSetBit(replayed);
                replayed = before + 1;
                return before;
            }
        }

        /**
         * The dedup keys of a refresh: those of the snapshot before not written since are kept as read ({@link #dedupKeys}:
         * a TTL that ran out since is a write the feed tells, and what is left of one is kept as when it runs out), but
         * for those gone when read; every key under {@code de:} written since is typed now: a string is a dedup key read
         * again ({@link #dedupIds}), a key gone is left out. False when one is something else.
         */
        private boolean refreshDedupKeys() {
            Bytes under = base.concat(KeyClass.DedupKey.PREFIX);
            Set<Bytes> again = new LinkedHashSet<>();
            for (Bytes key : written) {
                if (key.startsWith(under) && key.length() > under.length()) {
                    again.add(key.dropPrefix(under));
                }
            }
            long now = System.currentTimeMillis();
            for (DedupEntry e : previous.dedupKeys()) {
                if (e.pttlMs() != -2 && !again.contains(e.dedupId())) {
                    dedupKeys.add(e.dedupId(), e.jobId(), e.pttlMs(), now);
                }
            }
            List<Bytes> ids = new ArrayList<>(again);
            List<ScannedKey> typed = new KeyspaceScanner(jedis).typed(ids.stream().map(under::concat).toList());
            for (int i = 0; i < ids.size(); i++) {
                KeyType type = typed.get(i).type();
                if (type == KeyType.STRING) {
                    dedupIds.add(ids.get(i).raw());
                } else if (type != KeyType.NONE) {
                    return false;
                }
            }
            long held = dedupKeys.size() + dedupIds.size();
            if (held > 0) {
                keyClasses.put(KeyClass.DedupKey.KIND, held);
            }
            return true;
        }

        /**
         * The locks and logs lists written since, when every written key is a queue structure, the hash of a job listed
         * now ({@code listedNow}: which of the ids {@code sought} are) or before (the rest looked up along the listings
         * before), a key that is gone now and was listed as no job before (a job added and removed between the two reads,
         * which a full read would not meet either) or a hash there now listed as no job now or
         * before (an orphan, {@link #orphansMet}, as a full read finds a job added since that a v1 client moved half-way
         * through the read, a retry with a backoff promoted to {@code wait}, or an add v1's pause/resume wrappers left half
         * done), a dedup key ({@link #refreshDedupKeys}), a
         * key under {@code repeat:} ({@link #refreshSchedulerRecords}) or a key shaped as a lock or logs list
         * ({@code shaped}, typed again by {@link #refreshSubkeys}: as in a full read, such a key is a job's when no job of
         * its id is listed now, and one of a job listed before is gone, or it is a job's logs list now); empty otherwise.
         */
        private Optional<List<WrittenSubkey>> subkeysWritten(ByteArena sought, int writtenCount, BitSet listedNow,
                                                             List<WrittenSubkey> shaped) {
            Set<Bytes> structureKeys = new HashSet<>();
            for (QueueStructure s : QueueStructure.values()) {
                structureKeys.add(queue.key(s));
            }
            if (written.stream().anyMatch(key -> !key.startsWith(base) && !structureKeys.contains(key))) {
                return Optional.empty();
            }
            Map<Integer, WrittenSubkey> shapedKeys = new HashMap<>();
            shaped.forEach(w -> shapedKeys.put(w.key(), w));
            List<WrittenSubkey> subkeys = new ArrayList<>();
            List<Integer> jobs = new ArrayList<>();
            for (int k = 0; k < writtenCount; k++) {
                if (listedNow.get(k) || structureKeys.contains(base.concat(sought.get(k))) || sought.get(k).startsWith(KeyClass.DedupKey.PREFIX)) {
                    continue;
                }
                if (shapedKeys.containsKey(k)) {
                    subkeys.add(shapedKeys.get(k));
                } else if (!sought.get(k).startsWith(KeyClassifier.REPEAT)) { // a scheduler's record key: refreshSchedulerRecords
                    jobs.add(k);
                }
            }
            int[] notNow = jobs.stream().mapToInt(Integer::intValue).toArray();
            BitSet listedBefore = notNow.length == 0 || previousIds == null ? new BitSet()
                    : listedAmong(sought, notNow, previousIds.arena(), entry -> { });
            List<Bytes> cameAndWent = IntStream.of(notNow).filter(k -> !listedBefore.get(k)).mapToObj(k -> base.concat(sought.get(k))).toList();
            for (ScannedKey key : new KeyspaceScanner(jedis).typed(cameAndWent)) {
                if (!unlistedAsAFullReadFindsIt(key.key().dropPrefix(base), key.type())) {
                    return Optional.empty();
                }
            }
            return Optional.of(subkeys);
        }

        /**
         * Types every key a job scheduler's record may be at ({@code keys}, {@link #schedulerKeysSought}; a queue holds a
         * few schedulers) and classifies it as a scan would: a hash at the id of a member of the {@code repeat} zset is its
         * record. False when one is a job listed now (a full read tells it apart) or a hash the zset does not list (a
         * stale record, or an orphan: only a full read resolves it); a key of another type is an anomaly, which has the
         * refresh give nothing.
         */
        private boolean refreshSchedulerRecords(ByteArena sought, BitSet listedNow, List<Integer> keys) {
            if (keys.stream().anyMatch(listedNow::get)) {
                return false;
            }
            KeyClassifier records = new KeyClassifier(queue, id -> false, repeatMembers::containsKey);
            for (ScannedKey key : new KeyspaceScanner(jedis).typed(keys.stream().map(k -> base.concat(sought.get(k))).toList())) {
                if (key.type() != KeyType.NONE) {
                    classified(records.classify(key));
                }
            }
            return unlistedHashes.isEmpty();
        }

        /**
         * Types again each lock or logs list written since: one of its kind's type is a key of its job, which must be
         * listed now ({@code listedNow}; else a full read finds it dangling), one gone is gone, and one of another type is
         * a key a full read classifies otherwise (false). The jobs' locks and logs lists are then those of the snapshot
         * before, with those typed again as they are now, and counted as a full read counts them.
         */
        private boolean refreshSubkeys(ByteArena sought, BitSet listedNow, List<WrittenSubkey> typedAgain) {
            List<ScannedKey> typed = new KeyspaceScanner(jedis).typed(typedAgain.stream().map(w -> base.concat(sought.get(w.key()))).toList());
            Map<JobSubKind, Set<Bytes>> retyped = new EnumMap<>(JobSubKind.class);
            Map<JobSubKind, Set<Bytes>> there = new EnumMap<>(JobSubKind.class);
            for (int i = 0; i < typedAgain.size(); i++) {
                WrittenSubkey w = typedAgain.get(i);
                KeyType type = typed.get(i).type();
                Bytes job = sought.get(w.job());
                retyped.computeIfAbsent(w.kind(), k -> new HashSet<>()).add(job);
                if (type == w.kind().type() && listedNow.get(w.job())) {
                    there.computeIfAbsent(w.kind(), k -> new HashSet<>()).add(job);
                } else if (type != KeyType.NONE) {
                    return false;
                }
            }
            carry(previous.jobSubkeys().retyped(retyped, there));
            return true;
        }

        /** The locks and logs lists a refresh carries, counted as a full read counts them. */
        private void carry(JobSubkeys carried) {
            jobSubkeys = carried;
            subkeys.keySet().removeAll(JobSubkeys.CARRIED);
            subkeys.putAll(carried.counts());
            long held = subkeys.values().stream().mapToLong(Long::longValue).sum();
            if (held > 0) {
                keyClasses.put(KeyClass.JobSubkey.KIND, held);
            } else {
                keyClasses.remove(KeyClass.JobSubkey.KIND);
            }
        }

        /** An index of these entries (about {@code expected} of them) of {@code arena}. */
        private static IdIndex indexOf(ByteArena arena, IntStream entries, int expected) {
            IdIndex index = new IdIndex(arena, expected);
            entries.forEach(index::putIfAbsent);
            return index;
        }

        /**
         * Settles every job the previous snapshot listed, or found an orphan, that no structure lists now (an entry a walk
         * paired is listed now; the others are looked up among the entries now, {@link #listedNowAmong}), as a full read
         * finds it, told written or not (in a {@link #live} refresh the feed may not have told its keys yet): a job whose
         * hash is gone (v1 removed it) is left out with its lock or logs list, which is carried no more; a job whose hash
         * is still there is an orphan ({@link #orphansMet}, resolved as a full read resolves the hashes its scan met
         * unlisted): one a v1 client moved half-way through a live read, from a listing it read later to one it read
         * earlier (a retry pushed back to {@code wait}, a delayed job promoted), one taken off its listing by hand, or an
         * orphan before (v1's pause/resume wrappers leave one at each add); its lock or logs list is carried while there.
         * Under the pause a move met half-way is read again where it ended: the drain after the read tells its writes, and
         * the try is taken again ({@code QueueMigration.refreshSource}). False when a key is not as a full read would find
         * it (a lock or logs list left by a job gone: dangling): then the refresh gives nothing.
         */
        private boolean unlistedJobsSettled() {
            if (previousIds == null) {
                return true;
            }
            ByteArena before = previousIds.arena();
            int left = before.size() - paired.cardinality();
            if (left == 0) {
                return true;
            }
            IntPredicate listedNow = listedNowAmong(before, left);
            List<Bytes> ids = new ArrayList<>();
            List<Bytes> keys = new ArrayList<>();
            for (int entry = paired.nextClearBit(0); entry < before.size(); entry = paired.nextClearBit(entry + 1)) {
                if (!listedNow.test(entry)) {
                    Bytes id = previousIds.id(entry);
                    ids.add(id);
                    keys.add(queue.jobKey(id));
                    JobSubkeys.CARRIED.stream().filter(kind -> jobSubkeys.has(kind, id)).forEach(kind -> keys.add(queue.jobSubKey(id, kind)));
                }
            }
            Iterator<ScannedKey> typed = new KeyspaceScanner(jedis).typed(keys).iterator();
            Map<JobSubKind, Set<Bytes>> subkeysGone = new EnumMap<>(JobSubKind.class);
            for (Bytes id : ids) {
                KeyType hash = typed.next().type();
                if (!unlistedAsAFullReadFindsIt(id, hash)) {
                    return false;
                }
                for (JobSubKind kind : JobSubkeys.CARRIED) {
                    if (jobSubkeys.has(kind, id)) {
                        KeyType type = typed.next().type();
                        if (type == KeyType.NONE) {
                            subkeysGone.computeIfAbsent(kind, k -> new HashSet<>()).add(id);
                        } else if (type != kind.type() || hash == KeyType.NONE) {
                            return false; // another key, or a lock or logs list left by a job gone (dangling in a full read)
                        }
                    }
                }
            }
            if (!subkeysGone.isEmpty()) {
                carry(jobSubkeys.retyped(subkeysGone, Map.of()));
            }
            return true;
        }

        /**
         * Whether the hash of job {@code id}, listed nowhere now, is of a {@code type} a full read would find too: gone, or a
         * hash, an orphan then ({@link #orphansMet}); anything else has the refresh give nothing.
         */
        private boolean unlistedAsAFullReadFindsIt(Bytes id, KeyType type) {
            if (type == KeyType.HASH) {
                orphansMet.add(id);
                return true;
            }
            return type == KeyType.NONE;
        }

        /**
         * Which of the {@code left} entries before that no walk paired are listed now. When no id was listed twice
         * before, those entries are indexed (no index of the listings now is built) and each entry now that no walk
         * paired is looked up there (one a walk paired lists the id of another entry before). An id listed twice
         * before may be paired in one listing and left in the other (a job a v1 worker moved as the read went, now in
         * one place): then every entry now is indexed and each entry left is looked up there.
         */
        private IntPredicate listedNowAmong(ByteArena before, int left) {
            ByteArena now = listedIds.arena();
            if (previous.anomalyCount(AnomalyKind.LISTED_TWICE) > 0) {
                IdIndex all = indexOf(now, IntStream.range(0, now.size()), now.size());
                return entry -> all.find(before, entry) >= 0;
            }
            IdIndex unpaired = indexOf(before, IntStream.iterate(paired.nextClearBit(0), e -> e < before.size(), e -> paired.nextClearBit(e + 1)), left);
            BitSet found = new BitSet();
            for (int entry = pairedNow.nextClearBit(0); entry < now.size(); entry = pairedNow.nextClearBit(entry + 1)) {
                int was = unpaired.find(now, entry);
                if (was >= 0) {
                    found.set(was);
                }
            }
            return found::get;
        }

        /**
         * The job of a previous snapshot whose facts a refresh keeps for this entry of a walked state ({@code wait},
         * {@code paused}, {@link #WALKED_ZSETS}): the walk paired it with an entry listed there before ({@link Walk}) that had facts
         * there, its hash not written since; -1 when its facts are read.
         */
        private int kept(V1State state, int entry) {
            if (!pairedNow.get(entry)) {
                return -1;
            }
            int before = walks.get(state).next();
            if (writtenEntries.get(entry)) {
                return -1;
            }
            StateJobs held = previous.held(previousIds.stateOf(before));
            return held != null && held.jobAt(before) >= 0 ? before : -1; // none: its id was listed first elsewhere, or its hash gone
        }

        /**
         * In a refresh, the jobs of the snapshot before that this walked state ({@link #walkBeside}) lists
         * again as they were, and only those: its walk paired every entry now with every entry before, in
         * order, no hash among them was written since, every entry before was a job (as after the pause
         * renamed {@code wait}, nothing else written), and no id it lists is listed first in another state now.
         * Null otherwise: then the facts are copied or read.
         */
        private StateJobs unchanged(V1State state) {
            Walk walk = walks.get(state);
            int from = listedIds.from(state);
            int count = listedIds.count(state);
            if (walk == null || !walk.pairedEvery(count)
                    || listedTwice && IntStream.range(from, from + count).anyMatch(entry -> index.first(entry) != entry)) {
                return null;
            }
            int written = writtenEntries.nextSetBit(from);
            if (written >= 0 && written < from + count) {
                return null;
            }
            StateJobs before = previous.held(walk.state());
            return before != null && before.size() == count ? before : null;
        }

        private QueueSnapshot snapshot(Map<V1State, Long> listed) {
            Map<QueueStructure, KeyType> present = new EnumMap<>(QueueStructure.class);
            structureTypes.forEach((s, t) -> {
                if (t != KeyType.NONE) {
                    present.put(s, t);
                }
            });
            return new QueueSnapshot(queue, present, meta, listed, facts, payloadRead, anomalies, readSchedulers(),
                    readDedupKeys(), flowLinks, carriedParents != null ? carriedParents : readFlowParents(), keyClasses, subkeys,
                    jobSubkeys, legacyMarkers);
        }

        private void anomaly(AnomalyKind kind, Bytes key, String reason) {
            anomalies.add(kind, key, reason);
        }

        private void count(String kind) {
            keyClasses.merge(kind, 1L, Long::sum);
        }

        /** Takes back one key counted of {@code kind}: none left is no count, as a read that never met one has. */
        private void uncount(String kind) {
            keyClasses.merge(kind, -1L, (was, less) -> was + less == 0 ? null : was + less);
        }

        /** A listed job key found not to be a hash: where the scan met it (no longer a job hash there), else at the job's {@code place}. */
        private void wrongJobType(int entry, int place, Bytes key, String reason) {
            if (entry < metAt.length && metAt[entry] > 0) {
                uncount("job-hash");
                count("anomaly");
                anomalies.addAt(metAt[entry] - 1, AnomalyKind.WRONG_JOB_TYPE, key, reason);
            } else {
                anomalies.addAt(place, AnomalyKind.WRONG_JOB_TYPE, key, reason);
            }
        }

        /**
         * A delayed or prioritized job's score that packs no due time or priority ({@link ScoreCodec#isPacking}), at the
         * job's {@code place}; the key made only then.
         */
        private void scoreAnomaly(V1State state, int entry, int place, Supplier<Bytes> key) {
            double score = listedIds.score(entry, state);
            if (state == V1State.DELAYED && !ScoreCodec.isPacking(score)) {
                anomalies.addAt(place, AnomalyKind.BAD_DELAYED_SCORE, key.get(), "delayed score " + ScoreCodec.render(score)
                        + " is not due*4096+seq (a non-negative integer below 2^63)");
            }
            if (state == V1State.PRIORITIZED && !ScoreCodec.isPacking(score)) {
                anomalies.addAt(place, AnomalyKind.BAD_PRIORITIZED_SCORE, key.get(), "prioritized score " + ScoreCodec.render(score)
                        + " is not priority*2^32+seq (a non-negative integer below 2^63)");
            }
        }

        /**
         * The anomalies of a job whose facts this refresh keeps from entry {@code kept} before, at its {@code place}: its
         * score's, found again, and those the snapshot before met in its hash, carried ({@link #carried}).
         */
        private void keptAnomalies(V1State state, int entry, int kept, int place) {
            scoreAnomaly(state, entry, place, () -> queue.jobKey(listedIds.id(entry)));
            for (Anomaly a : carried.of(previousIds.arena(), kept)) {
                anomalies.addAt(place, a.kind(), a.key(), a.reason());
            }
        }

        /**
         * The type of every structure key and of the bare key, and {@code meta}'s fields, in one pipeline: the fields
         * are taken only when {@code meta} is a hash (the reply to another type is an error, left unread).
         */
        private void readStructureTypes() {
            Map<QueueStructure, Response<String>> types = new EnumMap<>(QueueStructure.class);
            Response<String> bare;
            Response<Map<byte[], byte[]>> metaFields;
            try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                for (QueueStructure s : QueueStructure.values()) {
                    types.put(s, p.type(queue.key(s).raw()));
                }
                bare = p.type(queue.bareKey().raw());
                metaFields = p.hgetAll(queue.key(QueueStructure.META).raw());
                p.sync();
            }
            types.forEach((s, t) -> structureTypes.put(s, KeyType.parse(t.get())));
            KeyType bareType = KeyType.parse(bare.get());
            if (bareType != KeyType.NONE) {
                KeyClass c = new KeyClassifier(queue, Set.of(), Set.of()).classify(new ScannedKey(queue.bareKey(), bareType));
                count(c.kindName());
                if (c instanceof KeyClass.Misfit m) {
                    anomaly(m.anomaly().kind(), m.anomaly().key(), m.anomaly().reason());
                }
            }
            if (hasType(QueueStructure.META)) {
                metaFields.get().forEach((f, v) -> meta.put(Bytes.of(f).display(), Bytes.of(v).display()));
            }
        }

        private boolean hasType(QueueStructure s) {
            return structureTypes.get(s) == s.type();
        }

        /**
         * Every structure's ids into {@link #listedIds}; in a refresh under the pause, those of each listing the feed tells
         * unwritten since are copied from {@code before}, the listed ids of the snapshot before, not read again (a worker
         * finishing the jobs it holds writes {@code active} and {@code completed}, not the million ids of {@code paused}; a
         * listing written as this refresh reads has it taken again: {@code QueueMigration.refreshSource}). Not in a
         * {@link #live} refresh: v1's workers move jobs after the feed's drain, and the walks find them where they went.
         */
        private void readListings(ListedIds before) {
            for (V1State state : V1State.LISTED) {
                QueueStructure s = QueueStructure.of(state);
                if (before != null && !written.contains(queue.key(s))) {
                    listedIds.copy(before, state);
                    continue;
                }
                listedIds.begin(state, !state.isList());
                if (hasType(s) && state.isList()) {
                    readList(queue.key(s));
                } else if (hasType(s)) {
                    readZset(queue.key(s));
                }
            }
        }

        /** The index of the distinct listed ids, in getState's probe order; an id listed twice is an anomaly. */
        private void indexListings() {
            int total = listedIds.arena().size();
            index = new IdIndex(listedIds.arena(), total);
            for (V1State state : V1State.PROBE_ORDER) {
                int from = listedIds.from(state);
                index.putAllIfAbsent(from, from + listedIds.count(state), (entry, first) -> {
                    listedTwice = true;
                    V1State firstState = listedIds.stateOf(first);
                    anomaly(AnomalyKind.LISTED_TWICE, queue.jobKey(listedIds.id(entry)), firstState != state
                            ? "listed in " + firstState.wireName() + " and in " + state.wireName()
                                    + "; BullMQ's getState reports " + firstState.wireName()
                            : "listed more than once in " + state.wireName()
                                    + "; migrated once, at its first place in serve order");
                });
            }
        }

        /**
         * A list in serve order: from its tail, in chunks addressed from the tail (negative indices), so
         * a concurrent LPUSH (how v1 adds) neither shifts nor repeats what is still to be read. A v1
         * worker popping the tail meanwhile shifts the list toward it: each chunk also reaches
         * {@link #OVERLAP} entries back toward the tail and resumes after the last id read (the whole tail
         * side is read again when that id moved further), so a read of a live source misses no job that
         * stays listed; any other change while reading is caught by the fingerprints around a
         * migration's exact read, or settled by its re-sync passes. {@code 0:} markers of BullMQ 4.x are
         * counted, not listed.
         */
        private void readList(Bytes key) {
            walkList(key, listedIds::reserve, id -> {
                if (startsWith(id, ZERO_MARKER.raw())) {
                    legacyMarkers++;
                    markerIds.add(Bytes.of(id));
                } else {
                    listedIds.add(id);
                }
            });
        }

        /** Each entry of a list in serve order, as {@link #readList} reads them; {@code length} is told its length first. */
        private void walkList(Bytes key, LongConsumer length, Consumer<byte[]> each) {
            Head<byte[]> head = head(key, (p, k) -> p.llen(k), (p, k) -> p.lrange(k, -ID_CHUNK, -1));
            length.accept(head.length());
            List<byte[]> first = head.chunk();
            byte[] last = null;
            for (long fromTail = 0; ; ) {
                long nearest = Math.max(1, fromTail + 1 - OVERLAP);
                List<byte[]> chunk = fromTail == 0 ? first : jedis.lrange(key.raw(), -(fromTail + ID_CHUNK), -nearest);
                int after = after(chunk, last);
                if (after < 0) {
                    nearest = 1;
                    chunk = jedis.lrange(key.raw(), -(fromTail + ID_CHUNK), -1);
                    after = Math.max(0, after(chunk, last));
                }
                for (int i = chunk.size() - 1 - after; i >= 0; i--) {
                    each.accept(chunk.get(i));
                }
                if (chunk.size() < fromTail + ID_CHUNK - nearest + 1) {
                    return;
                }
                last = chunk.get(0);
                fromTail = nearest + chunk.size() - 1;
            }
        }

        /** How many entries of a chunk, from its tail end, were read before (up to and with {@code last}); -1 when it is not there. */
        private static int after(List<byte[]> chunk, byte[] last) {
            if (last == null) {
                return 0;
            }
            for (int i = chunk.size() - 1; i >= 0; i--) {
                if (Arrays.equals(chunk.get(i), last)) {
                    return chunk.size() - i;
                }
            }
            return -1;
        }

        private void readZset(Bytes key) {
            walkZset(key, listedIds::reserve, t -> listedIds.add(t.getBinaryElement(), t.getScore()));
        }

        /**
         * Each member of a zset in its order (by score, then by member), a chunk at a time, each chunk the members after
         * the last one read; {@code length} is told its length first. A member a v1 client adds or removes ahead of the
         * read meanwhile shifts no later one, so a read of a live source meets a member that stays once (a read by rank
         * meets one twice when a job is added ahead of it, and misses one when a job ahead is taken).
         */
        private void walkZset(Bytes key, LongConsumer length, Consumer<Tuple> each) {
            Head<Tuple> head = head(key, (p, k) -> p.zcard(k), (p, k) -> p.zrangeWithScores(k, 0, ID_CHUNK - 1));
            length.accept(head.length());
            for (List<Tuple> chunk = head.chunk(); ; chunk = zsetAfter(key, chunk.get(chunk.size() - 1))) {
                chunk.forEach(each);
                if (chunk.size() < ID_CHUNK) {
                    return;
                }
            }
        }

        /**
         * Up to {@link #ID_CHUNK} members of the zset after {@code last} in its order (fewer only at its end): from
         * {@code last}'s score on, past the members of that score that sort no later than it (byte order), {@code last}
         * itself while it is still there; asked again for as many more as were past when more were. Past a chunk's worth
         * of them (a zset where many jobs share a score, as completed jobs finished in the same millisecond do), from
         * the rank {@code last} has now; none when it left the zset meanwhile (a read of a live source, which may miss a
         * job anyway: the passes after it settle every job exactly).
         */
        private List<Tuple> zsetAfter(Bytes key, Tuple last) {
            for (int past = 1; past <= ID_CHUNK; ) {
                int asked = ID_CHUNK + past;
                List<Tuple> page = jedis.zrangeByScoreWithScores(key.raw(), last.getScore(), Double.POSITIVE_INFINITY, 0, asked);
                int notAfter = 0;
                while (notAfter < page.size() && page.get(notAfter).getScore() == last.getScore()
                        && Arrays.compareUnsigned(page.get(notAfter).getBinaryElement(), last.getBinaryElement()) <= 0) {
                    notAfter++;
                }
                if (notAfter <= past || page.size() < asked) {
                    return page.subList(notAfter, Math.min(page.size(), notAfter + ID_CHUNK));
                }
                past = notAfter;
            }
            Long rank = jedis.zrank(key.raw(), last.getBinaryElement());
            return rank == null ? List.of() : jedis.zrangeWithScores(key.raw(), rank + 1, rank + ID_CHUNK);
        }

        /**
         * A listing's length and its first chunk, asked in one pipeline (a listing of one chunk or less, which most
         * are, is read in one round trip).
         */
        private <T> Head<T> head(Bytes key, BiFunction<AbstractPipeline, byte[], Response<Long>> length,
                                 BiFunction<AbstractPipeline, byte[], Response<List<T>>> firstChunk) {
            Response<Long> n;
            Response<List<T>> chunk;
            try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                n = length.apply(p, key.raw());
                chunk = firstChunk.apply(p, key.raw());
                p.sync();
            }
            return new Head<>(n.get(), chunk.get());
        }

        /** A listing's length and its first chunk, as {@link #head} read them. */
        private record Head<T>(long length, List<T> chunk) {
        }

        private void readRepeatMembers() {
            if (hasType(QueueStructure.REPEAT)) {
                walkZset(queue.key(QueueStructure.REPEAT), length -> { }, t -> repeatMembers.put(Bytes.of(t.getBinaryElement()), t.getScore()));
            }
        }

        /**
         * The queue's keys (from its {@link KeySource}: its share of a scan that other queues' readers may
         * share, or of discovery's pass), classified in the order met: a listed job key is counted as a job
         * hash and its place marked (its type is known once its facts are read), a structure key takes the type
         * {@link #readStructureTypes} read, every other key is typed and classified, unless it is gone by then.
         */
        private void scanQueueKeys() {
            KeyClassifier classifier = new KeyClassifier(queue, index::contains, repeatMembers::containsKey);
            KeyspaceScanner scanner = new KeyspaceScanner(jedis);
            Map<Bytes, KeyType> structures = new HashMap<>();
            structureTypes.forEach((s, t) -> {
                if (t != KeyType.NONE) {
                    structures.put(queue.key(s), t);
                }
            });
            metAt = new int[listedIds.arena().size()];
            keySource.keysOf(queue, keys -> {
                int[] listed = index.findAll(keys, base);
                KeyType[] known = new KeyType[keys.size()];
                List<Bytes> untyped = new ArrayList<>();
                for (int k = 0; k < keys.size(); k++) {
                    if (listed[k] < 0) {
                        known[k] = structures.get(keys.get(k));
                        if (known[k] == null) {
                            untyped.add(keys.get(k));
                        }
                    }
                }
                Iterator<ScannedKey> typed = untyped.isEmpty() ? Collections.emptyIterator() : scanner.typed(untyped).iterator();
                long jobHashes = 0;
                for (int k = 0; k < keys.size(); k++) {
                    int entry = listed[k];
                    if (entry < 0) {
                        ScannedKey key = known[k] != null ? new ScannedKey(keys.get(k), known[k]) : typed.next();
                        if (key.type() != KeyType.NONE) { // else gone since the scan met it (a lock lapsed): nothing to classify
                            classified(classifier.classify(key));
                        }
                    } else {
                        jobHashes++;
                        refuseAFlowKeyJob(keys.get(k), entry);
                        if (metAt[entry] == 0) {
                            metAt[entry] = anomalies.mark() + 1;
                        }
                    }
                }
                if (jobHashes > 0) {
                    keyClasses.merge("job-hash", jobHashes, Long::sum); // once a batch, not once a key
                }
            });
        }

        /**
         * A listed job whose hash is where a flow parent of the queue keeps its children ({@code 6:processed} beside
         * parent {@code 6}, waiting for children): the parent's children would be read from the job, and the job's
         * edits and retirement would move the parent's digest, which cannot be copied again after the tombstone.
         */
        private void refuseAFlowKeyJob(Bytes key, int entry) {
            if (!EnclosingQueues.idHoldsAColon(key.raw(), base.length())) {
                return; // the common case, looked at first: a flow key's job id holds one
            }
            for (JobSubKind kind : FLOW_KEYS) {
                if (key.endsWith(kind.colonSuffix())) {
                    int parent = index.find(key.raw(), base.length(), key.length() - kind.colonSuffix().length());
                    if (parent >= 0 && listedIds.stateOf(parent) == V1State.WAITING_CHILDREN) {
                        count("anomaly");
                        anomaly(AnomalyKind.FLOW_KEY_JOB, key, "the hash of job " + listedIds.id(entry).display() + " is where flow"
                                + " parent " + listedIds.id(parent).display() + " keeps its :" + kind.suffix()
                                + "; give the job another id in v1 (RENAME " + key.display() + " " + queue.base().display()
                                + "NEWID, and NEWID in place of its id where v1 lists it)");
                    }
                }
            }
        }

        private void classified(KeyClass c) {
            if (c instanceof KeyClass.UnlistedHash u) {
                unlistedHashes.add(u.id()); // counted once resolved
                return;
            }
            count(c.kindName());
            if (c instanceof KeyClass.Misfit m) {
                anomaly(m.anomaly().kind(), m.anomaly().key(), m.anomaly().reason());
            } else if (c instanceof KeyClass.SchedulerRecord s) {
                schedulerRecords.add(s.schedulerId());
            } else if (c instanceof KeyClass.DedupKey d) {
                dedupIds.add(d.dedupId().raw());
            } else if (c instanceof KeyClass.JobSubkey j) {
                subkeys.merge(j.sub(), 1L, Long::sum);
                if (JobSubkeys.CARRIED.contains(j.sub())) {
                    jobSubkeys.add(j.sub(), j.id());
                }
                if (!index.contains(j.id())) {
                    unlistedStems.putIfAbsent(j.id(), queue.jobSubKey(j.id(), j.sub()));
                }
                if (j.sub() != JobSubKind.LOCK && j.sub() != JobSubKind.LOGS) {
                    parentSubkeys.computeIfAbsent(j.id(), x -> new HashSet<>()).add(j.sub());
                }
            }
        }

        private static final byte[][] UNLISTED_FIELDS = fields("data", "name", "timestamp", "every", "pattern");

        /**
         * An unlisted hash is an orphan job (job fields), a stale scheduler record ({@code repeat:<sid>} with every or
         * pattern, whose id the {@code repeat} zset no longer lists), or unknown; or gone since the scan met it (a job v1
         * finished and removed meanwhile), which is nothing.
         */
        private void resolveUnlistedHashes() {
            // BullMQ 3.x and older listed jobs in zsets 5.x never reads: an orphan they list is told as such
            List<QueueStructure> legacy = Stream.of(QueueStructure.LEGACY_PRIORITY, QueueStructure.LEGACY_DELAY)
                    .filter(s -> structureTypes.get(s) == KeyType.ZSET).toList();
            // the unlisted hashes a queue enclosing this one lists (read once for all, when one does) are its jobs
            Map<Bytes, QueueRef> othersJobs = EnclosingQueues.listedByEnclosing(jedis, keySource, queue,
                    unlistedHashes.stream().map(queue::jobKey).toList());
            for (int from = 0; from < unlistedHashes.size(); from += JOB_BATCH) {
                List<Bytes> batch = unlistedHashes.subList(from, Math.min(unlistedHashes.size(), from + JOB_BATCH));
                List<Response<List<byte[]>>> replies = new ArrayList<>();
                List<Response<Boolean>> there = new ArrayList<>();
                List<Response<Double>> legacyScores = new ArrayList<>();
                try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                    for (Bytes id : batch) {
                        replies.add(p.hmget(queue.jobKey(id).raw(), UNLISTED_FIELDS));
                        there.add(p.exists(queue.jobKey(id).raw()));
                        legacy.forEach(s -> legacyScores.add(p.zscore(queue.key(s).raw(), id.raw())));
                    }
                    p.sync();
                }
                for (int i = 0; i < batch.size(); i++) {
                    if (!there.get(i).get()) {
                        continue;
                    }
                    List<byte[]> f = replies.get(i).get();
                    Bytes id = batch.get(i);
                    Bytes key = queue.jobKey(id);
                    boolean schedulerLike = (f.get(3) != null || f.get(4) != null) && id.startsWith(KeyClassifier.REPEAT);
                    boolean jobLike = f.get(0) != null || (f.get(1) != null && f.get(2) != null);
                    Optional<QueueRef> lister = jobLike && !schedulerLike ? Optional.ofNullable(othersJobs.get(key)) : Optional.empty();
                    if (schedulerLike) { // first: a record keeps its template's data, as a job keeps its own
                        count("anomaly");
                        anomaly(AnomalyKind.STALE_SCHEDULER, key, "job scheduler " + id.dropPrefix(KeyClassifier.REPEAT).display()
                                + " has a record but no member in repeat: v1 creates no more iterations of it");
                    } else if (lister.isPresent()) {
                        count("anomaly");
                        anomaly(AnomalyKind.ANOTHER_QUEUES_JOB, key, "job " + key.dropPrefix(lister.get().base()).display() + " of "
                                + lister.get().display() + ", which lists it; migrate " + lister.get().display() + " first: its"
                                + " retirement moves the job, then this queue migrates without it");
                    } else if (jobLike) {
                        count("job-hash");
                        int scores = i * legacy.size();
                        Optional<QueueStructure> listedIn = IntStream.range(0, legacy.size())
                                .filter(l -> legacyScores.get(scores + l).get() != null).mapToObj(legacy::get).findFirst();
                        String noData = f.get(0) == null ? "; it has no data" : "";
                        orphans.put(id, listedIn.map(s -> "job hash listed only in the legacy "
                                + s.suffix() + " zset of BullMQ 3.x and older, which no BullMQ 5.x worker serves" + noData)
                                .orElse(markerIds.contains(id) ? "job hash whose id a list holds, but as 0:<n>, the marker of BullMQ"
                                + " 4.x: BullMQ 5.x skips it too, so no worker serves it" + noData
                                : "job hash listed in no structure" + (f.get(0) == null ? " and without data" : "")
                                + " (for example left by an add that failed WRONGTYPE after writing the hash)"));
                    } else {
                        count("anomaly");
                        anomaly(AnomalyKind.UNKNOWN_KEY, key, "a hash under the queue that is neither a job nor a scheduler");
                    }
                }
            }
            unlistedStems.forEach((stem, key) -> {
                if (!orphans.containsKey(stem)) {
                    anomaly(AnomalyKind.DANGLING_SUBKEY, key, "per-job key of " + stem.display() + ", which has no job hash");
                }
            });
        }

        /**
         * The orphans become the last entries, sorted by id, their {@code orphan-hash} anomalies listed in that order
         * (however the key scan met them, or a refresh the orphans before).
         */
        private void listOrphans() {
            List<Bytes> sorted = new ArrayList<>(orphans.keySet());
            Collections.sort(sorted);
            listedIds.begin(V1State.UNKNOWN, false);
            sorted.forEach(id -> {
                listedIds.add(id.raw());
                orphanPlaces.put(id, anomalies.mark());
            });
            listedIds.trim();
        }

        /**
         * The facts of the jobs a state holds: its listed ids that no earlier-probed state lists and
         * that it lists for the first time (an id pushed twice into one list is one job), whose hash exists.
         * A state that lists nothing keeps no columns (most queues of a many-queue run use two or three states).
         */
        private void readFacts(V1State state) {
            int from = listedIds.from(state);
            int count = listedIds.count(state);
            if (count == 0) {
                return;
            }
            StateJobs same = unchanged(state);
            if (same != null) {
                facts.put(state, new StateJobs(state, listedIds, same));
                if (!carried.isEmpty() || state == V1State.DELAYED || state == V1State.PRIORITIZED) {
                    int before = previousIds.from(walks.get(state).state());
                    for (int local = 0; local < count; local++) {
                        keptAnomalies(state, from + local, before + local, anomalies.mark());
                    }
                }
                return;
            }
            StateJobs jobs = new StateJobs(state, listedIds, names, count, payloadRead == PayloadRead.DIGESTED);
            // in a refresh walking this state beside the one before, the facts read go to a table of their own, in full
            // batches, and the kept ones are copied around them once they are in (the few jobs written since are scattered
            // through a large queue: a batch cut short by each kept run cost a round trip or two a job)
            KeptRuns keptRuns = walks.containsKey(state) ? new KeptRuns() : null;
            StateJobs read = keptRuns == null ? jobs : new StateJobs(state, listedIds, names, count, payloadRead == PayloadRead.DIGESTED);
            int[] batch = new int[JOB_BATCH];
            int[] places = new int[JOB_BATCH];
            int n = 0;
            held = payloadRead == PayloadRead.MEASURED && jedis instanceof RedisClient standalone ? standalone.getPool().getResource() : null;
            try {
                for (int local = 0; local < count; local++) {
                    int entry = from + local;
                    int kept = kept(state, entry); // asked of every entry: a walk hands its pairs out in order
                    int place = anomalies.mark(); // each job's anomalies listed in serve order, however its facts come
                    if (state != V1State.UNKNOWN && listedTwice && index.first(entry) != entry) {
                        jobs.skip(local);
                    } else if (kept >= 0) {
                        keptRuns.add(entry, kept);
                        keptAnomalies(state, entry, kept, place);
                    } else {
                        places[n] = place;
                        batch[n++] = entry;
                    }
                    if (n == JOB_BATCH) {
                        n = readBatch(read, batch, places, n);
                    }
                }
                readBatch(read, batch, places, n);
                addInFlight();
            } finally {
                for (FactsBatch inFlight : new FactsBatch[] {measuring, sent}) {
                    if (inFlight != null) {
                        inFlight.abandon();
                    }
                }
                measuring = null;
                sent = null;
                if (held != null) {
                    held.close();
                    held = null;
                }
            }
            if (keptRuns != null) {
                keptRuns.merge(jobs, read, previous, previousIds);
            }
            facts.put(state, jobs);
        }

        /**
         * Asks for the payload lengths of the first {@code n} entries of {@code batch} ({@link FactsBatch#askLengths}),
         * then {@link #advance}s: the server answers them and the batch before's first {@code HMGET} pipeline while
         * this reader adds the batch before that; 0, the batch's new length.
         */
        private int readBatch(StateJobs jobs, int[] batch, int[] places, int n) {
            if (n > 0) {
                FactsBatch next = new FactsBatch(this, jobs, Arrays.copyOf(batch, n), Arrays.copyOf(places, n));
                next.askLengths();
                advance();
                measuring = next;
            }
            return 0;
        }

        /**
         * Sends the first {@code HMGET} pipeline of the batch whose lengths were asked for ({@link FactsBatch#start}),
         * then adds the facts of the batch sent before it: batches are added in the order they were made.
         */
        private void advance() {
            FactsBatch next = measuring;
            measuring = null;
            if (next != null) {
                next.start();
            }
            FactsBatch batch = sent;
            sent = next;
            if (batch != null) {
                batch.finish();
            }
        }

        /** Adds the facts of every batch in flight, in order. */
        private void addInFlight() {
            advance();
            advance();
        }

        /** A pipeline for a batch's reads: on the {@link #held} connection, else the client's own. */
        private AbstractPipeline pipeline() {
            return held != null ? new Pipeline(held, false) : CheckedPipeline.of(jedis);
        }

        /**
         * A pipeline for the reads that follow a batch's replies (the types of keys they could not tell, whether a
         * payload is there), once the batch sent after it is answered: its replies come first on the held connection.
         */
        private AbstractPipeline followUp() {
            if (sent != null) {
                sent.receiveMeasured();
            }
            return pipeline();
        }

        private void checkQueue() {
            int paused = listedIds.count(V1State.PAUSED);
            if (paused > 0 && !meta.containsKey("paused")) {
                anomaly(AnomalyKind.PAUSED_WITHOUT_FLAG, queue.key(QueueStructure.PAUSED),
                        paused + " jobs in paused while meta.paused is not set"
                                + " (the v1 pause/resume wrappers strand them; no v1 worker serves them)");
            }
            Names.queueNameProblem(queue.name().display()).ifPresent(problem ->
                    anomaly(AnomalyKind.INVALID_QUEUE_NAME, queue.base(), problem));
        }

        private List<Scheduler> readSchedulers() {
            List<Scheduler> out = new ArrayList<>();
            Set<Bytes> withRecord = new HashSet<>(schedulerRecords);
            for (Bytes sid : schedulerRecords) {
                Map<String, String> h = new TreeMap<>();
                jedis.hgetAll(queue.key("repeat:").concat(sid).raw())
                        .forEach((f, v) -> h.put(Bytes.of(f).display(), Bytes.of(v).display()));
                Double next = repeatMembers.get(sid);
                Scheduler.Kind kind = Scheduler.Kind.of(h.containsKey("pattern"), h.containsKey("every"),
                        h.containsKey("limit") || h.containsKey("endDate"));
                out.add(new Scheduler(sid, kind, next == null ? -1 : next.longValue(), parseLong(h.get("every"), -1),
                        h.get("pattern"), h.get("tz"), h.get("name"), parseLong(h.get("ic"), 0)));
            }
            repeatMembers.forEach((member, next) -> {
                if (!withRecord.contains(member)) {
                    out.add(new Scheduler(member, Scheduler.Kind.LEGACY, next.longValue(), -1, null, null, null, 0));
                }
            });
            return out;
        }

        private DedupKeys readDedupKeys() {
            Bytes under = base.concat(KeyClass.DedupKey.PREFIX);
            for (int from = 0; from < dedupIds.size(); from += JOB_BATCH) {
                List<Bytes> batch = new ArrayList<>(JOB_BATCH);
                for (int i = from; i < Math.min(dedupIds.size(), from + JOB_BATCH); i++) {
                    batch.add(dedupIds.get(i));
                }
                List<Response<byte[]>> values = new ArrayList<>();
                List<Response<Long>> ttls = new ArrayList<>();
                try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                    for (Bytes did : batch) {
                        byte[] key = under.concat(did).raw();
                        values.add(p.get(key));
                        ttls.add(p.pttl(key));
                    }
                    p.sync();
                }
                long readAt = System.currentTimeMillis();
                for (int i = 0; i < batch.size(); i++) {
                    dedupKeys.add(batch.get(i), Bytes.of(values.get(i).get()), ttls.get(i).get(), readAt);
                }
            }
            dedupKeys.trim();
            return dedupKeys;
        }

        private List<FlowParent> readFlowParents() {
            List<FlowParent> out = new ArrayList<>();
            for (Map.Entry<Bytes, Set<JobSubKind>> e : parentSubkeys.entrySet()) {
                Bytes id = e.getKey();
                if (!index.contains(id) && !orphans.containsKey(id)) {
                    continue;
                }
                Set<JobSubKind> subs = e.getValue();
                long pending = 0;
                long cross = 0;
                if (subs.contains(JobSubKind.DEPENDENCIES)) {
                    for (byte[] child : jedis.smembers(queue.jobSubKey(id, JobSubKind.DEPENDENCIES).raw())) {
                        pending++;
                        if (!owns(queue, Bytes.of(child))) {
                            cross++;
                        }
                    }
                }
                List<Bytes> elsewhere = new ArrayList<>();
                long processed = subs.contains(JobSubKind.PROCESSED) ? finished(jedis.hkeys(queue.jobSubKey(id, JobSubKind.PROCESSED).raw()), elsewhere) : 0;
                long failed = subs.contains(JobSubKind.FAILED) ? finished(jedis.hkeys(queue.jobSubKey(id, JobSubKind.FAILED).raw()), elsewhere) : 0;
                long unsuccessful = subs.contains(JobSubKind.UNSUCCESSFUL)
                        ? finished(jedis.zrange(queue.jobSubKey(id, JobSubKind.UNSUCCESSFUL).raw(), 0, -1), elsewhere) : 0;
                out.add(new FlowParent(id, pending, cross, processed, failed, unsuccessful, elsewhere));
            }
            out.sort((a, b) -> a.id().compareTo(b.id()));
            return out;
        }

        /** How many finished children these full keys are; those of other queues added to {@code elsewhere}. */
        private long finished(java.util.Collection<byte[]> children, List<Bytes> elsewhere) {
            for (byte[] child : children) {
                if (!owns(queue, Bytes.of(child))) {
                    elsewhere.add(Bytes.of(child));
                }
            }
            return children.size();
        }
    }

    /**
     * Whether a full job key a flow names (a parent's, a child's) is a job of {@code queue}: a nested queue's base may
     * start with its base ({@code bull:p:n:5} is job 5 of queue {@code p:n}, not job {@code n:5} of {@code p}), so the key's
     * owner is the queue with the longest base, as the migration reads it.
     */
    private boolean owns(QueueRef queue, Bytes fullJobKey) {
        return keySource.owner(fullJobKey).map(owner -> owner.base().equals(queue.base())).orElse(false);
    }

    private static boolean startsWith(byte[] value, byte[] prefix) {
        return value.length >= prefix.length && Arrays.equals(value, 0, prefix.length, prefix, 0, prefix.length);
    }

    /**
     * An active job's lock as asked in a pipeline: its type and TTL. BullMQ's lock is a string; a key of another type
     * there is no lock (the hash of a job whose id is {@code <id>:lock}, which a worker never expires): read as none.
     */
    private record LockAsked(Response<String> type, Response<Long> pttl) {
        static LockAsked of(AbstractPipeline p, Bytes lock) {
            return new LockAsked(p.type(lock.raw()), p.pttl(lock.raw()));
        }

        /** The lock's TTL in ms, -1 when it never expires, -2 when there is none. */
        long ttl() {
            return KeyType.parse(type.get()) == KeyType.STRING ? pttl.get() : -2L;
        }
    }

    /** The keys a flow parent keeps its children in. */
    private static final List<JobSubKind> FLOW_KEYS = List.of(JobSubKind.DEPENDENCIES, JobSubKind.PROCESSED, JobSubKind.FAILED,
            JobSubKind.UNSUCCESSFUL);

    /**
     * One pipelined batch of jobs of one state. Payloads read ({@link PayloadRead#CHECKED}, {@link PayloadRead#DIGESTED}):
     * the payload lengths (and lock TTLs) in one pipeline, sent by {@link #askLengths} and read by {@link #start}, then
     * each job's small fields and its payload in one {@code HMGET}, in pipelines of at most {@link #PAYLOAD_BATCH_BYTES}
     * of payload, each payload checked (and digested) as it arrives; the first of those pipelines is sent by
     * {@link #start} and read by {@link #finish}. The reader keeps two batches in flight ({@link Reading#advance}), so
     * the server answers this batch's lengths and the batch before's first pipeline while the reader adds the batch
     * before that. Measured: the small fields, payload lengths and lock TTLs in one pipeline, read by {@link #finish};
     * from a standalone source it is sent by {@link #start} on the reader's held connection, so the server answers it
     * while the reader adds the batch before, else by {@link #finish} (the migration's readers share a pool sized to
     * them: each holds one connection at a time).
     */
    private final class FactsBatch {
        private static final List<String> FIELD_NAMES = List.of("name", "timestamp", "delay", "priority", "opts", "ats",
                "atm", "attemptsMade", "finishedOn", "parentKey", "rjk", "stalledCounter", "defa", "parent");
        private static final Rawable[] FIELDS = rawables(FIELD_NAMES);
        private static final Rawable[] FIELDS_AND_DATA = rawables(
                Stream.concat(FIELD_NAMES.stream(), Stream.of("data")).toList());
        private static final byte[] DATA = "data".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        private final Reading reading;
        private final StateJobs jobs;
        private final V1State state;
        private final int[] entries;
        /** Per job: the place its anomalies take among those of the queue ({@link AnomalyLog#addAt}). */
        private final int[] places;
        /** The job keys, made from the base and the listed ids in one copy each; ids and {@link Bytes} keys are made when needed. */
        private final byte[][] keys;
        /** Per job: its small fields (null when the key is not a hash), payload length, payload (digest mode) and lock TTL. */
        private final List<List<byte[]>> fields;
        private final long[] lengths;
        private final PayloadDigest[] payloads;
        private final long[] lockTtls;
        /** The lengths pipeline, sent by {@link #askLengths} (null once read, and when measuring), and its replies. */
        private AbstractPipeline lengthsAsked;
        private List<Response<Long>> lengthReplies;
        private List<LockAsked> lockReplies;
        /** Measured: the pipeline of the small fields, lengths and lock TTLs, sent by {@link #askMeasured} (null once read), and its field replies. */
        private AbstractPipeline measuredAsked;
        private List<Response<List<byte[]>>> fieldReplies;
        /** The first {@code HMGET} pipeline, sent by {@link #start} (null once read, and when measuring), its replies, and where it ends. */
        private AbstractPipeline firstChunk;
        private List<Response<List<byte[]>>> firstReplies;
        private int firstTo;

        FactsBatch(Reading reading, StateJobs jobs, int[] entries, int[] places) {
            this.reading = reading;
            this.jobs = jobs;
            this.state = jobs.state();
            this.entries = entries;
            this.places = places;
            this.keys = new byte[entries.length][];
            for (int n = 0; n < entries.length; n++) {
                keys[n] = reading.listedIds.arena().prefixed(reading.base.raw(), entries[n]);
            }
            this.fields = new ArrayList<>(entries.length);
            this.lengths = new long[entries.length];
            this.payloads = new PayloadDigest[entries.length];
            this.lockTtls = new long[entries.length];
        }

        /**
         * Payloads read: asks for the payload lengths and lock TTLs, not waiting for the answers, on a connection of
         * its own until {@link #start} reads them. Measured: nothing yet.
         */
        void askLengths() {
            if (payloadRead == PayloadRead.MEASURED) {
                return;
            }
            lengthReplies = new ArrayList<>(keys.length);
            lockReplies = new ArrayList<>();
            lengthsAsked = CheckedPipeline.of(jedis);
            for (int n = 0; n < keys.length; n++) {
                lengthReplies.add(lengthsAsked.hstrlen(keys[n], DATA));
                if (state == V1State.ACTIVE) {
                    lockReplies.add(LockAsked.of(lengthsAsked, reading.queue.jobSubKey(id(n), JobSubKind.LOCK)));
                }
            }
            PipelineSend.now(lengthsAsked);
        }

        /**
         * Payloads read: reads the lengths {@link #askLengths} asked for, then sends (not waiting for the answers) the
         * first {@code HMGET} pipeline, on a connection of its own until {@link #finish} reads it. Measured: on the
         * reader's held connection, sends the batch's one pipeline ({@link #askMeasured}); without one, nothing yet.
         */
        void start() {
            if (payloadRead == PayloadRead.MEASURED) {
                if (reading.held != null) {
                    askMeasured();
                }
                return;
            }
            readLengths();
            firstTo = chunkEnd(0);
            firstChunk = CheckedPipeline.of(jedis);
            firstReplies = hmgets(firstChunk, 0, firstTo);
            PipelineSend.now(firstChunk);
        }

        /** Closes the pipelines {@link #askLengths} and {@link #start} sent, their answers unread: the read failed before this batch was added. */
        void abandon() {
            for (AbstractPipeline sentPipeline : new AbstractPipeline[] {lengthsAsked, firstChunk, measuredAsked}) {
                if (sentPipeline != null) {
                    sentPipeline.close();
                }
            }
        }

        /** Reads the rest of the batch and adds its facts and anomalies. */
        void finish() {
            if (payloadRead == PayloadRead.MEASURED) {
                readMeasured();
            } else {
                readWithPayloads();
            }
            // A key that is not a hash answered with WRONGTYPE; a missing key, with no fields at all:
            // only those few are asked for their type.
            List<Integer> unsure = new ArrayList<>();
            for (int n = 0; n < entries.length; n++) {
                List<byte[]> f = fields.get(n);
                boolean noPayload = payloadRead == PayloadRead.MEASURED ? lengths[n] == 0 : !payloads[n].present();
                if (f == null || (noPayload && f.stream().allMatch(v -> v == null))) {
                    unsure.add(n);
                }
            }
            Map<Integer, KeyType> types = typesOf(unsure);
            List<Integer> hashes = new ArrayList<>();
            for (int n = 0; n < entries.length; n++) {
                KeyType type = types.getOrDefault(n, KeyType.HASH);
                if (type == KeyType.HASH) {
                    hashes.add(n);
                } else if (type == KeyType.NONE) {
                    reading.hashMissing(entries[n], places[n]);
                } else {
                    reading.wrongJobType(entries[n], places[n], jobKey(n), "job " + id(n).display()
                            + " is listed but its key is a " + type.wireName() + ", not a hash");
                }
            }
            if (payloadRead == PayloadRead.MEASURED) {
                measure(hashes);
            }
            for (int n : hashes) {
                add(n, JobHashFields.of(fields.get(n)));
            }
        }

        /** The payload lengths and lock TTLs {@link #askLengths} asked for. */
        private void readLengths() {
            try (AbstractPipeline p = lengthsAsked) {
                p.sync();
            }
            lengthsAsked = null;
            for (int n = 0; n < keys.length; n++) {
                lengths[n] = lengthOf(lengthReplies.get(n));
                lockTtls[n] = state == V1State.ACTIVE ? lockReplies.get(n).ttl() : -2L;
            }
            lengthReplies = null;
            lockReplies = null;
        }

        /** Where the {@code HMGET} pipeline from job {@code from} ends: at most {@link #PAYLOAD_BATCH_BYTES} of payload, at least one job. */
        private int chunkEnd(int from) {
            int to = from;
            long bytes = 0;
            while (to < keys.length && (to == from || bytes + lengths[to] <= PAYLOAD_BATCH_BYTES)) {
                bytes += lengths[to];
                to++;
            }
            return to;
        }

        /** Appends the {@code HMGET} of the small fields and the payload of jobs {@code from} to {@code to} to {@code p}. */
        private List<Response<List<byte[]>>> hmgets(AbstractPipeline p, int from, int to) {
            List<Response<List<byte[]>>> replies = new ArrayList<>(to - from);
            for (int n = from; n < to; n++) {
                replies.add(hmget(p, keys[n], FIELDS_AND_DATA));
            }
            return replies;
        }

        /** The first {@code HMGET} pipeline {@link #start} sent, then the others, each payload checked (and digested) as it arrives. */
        private void readWithPayloads() {
            try (AbstractPipeline p = firstChunk) {
                p.sync();
            }
            firstChunk = null;
            takeFields(firstReplies, 0, firstTo);
            for (int from = firstTo; from < keys.length; ) {
                int to = chunkEnd(from);
                List<Response<List<byte[]>>> replies;
                try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                    replies = hmgets(p, from, to);
                    p.sync();
                }
                takeFields(replies, from, to);
                from = to;
            }
        }

        /** The small fields and the payload's facts of jobs {@code from} to {@code to}, from their {@code HMGET} replies. */
        private void takeFields(List<Response<List<byte[]>>> replies, int from, int to) {
            for (int n = from; n < to; n++) {
                List<byte[]> all = hashFields(replies.get(n - from));
                fields.add(all == null ? null : all.subList(0, FIELDS.length));
                payloads[n] = all == null ? PayloadDigest.ABSENT : payloadRead == PayloadRead.DIGESTED
                        ? PayloadDigest.of(all.get(FIELDS.length)) : PayloadDigest.checked(all.get(FIELDS.length));
            }
        }

        /** Measured: sends the small fields, payload lengths and lock TTLs in one pipeline, not waiting for the answers; the payloads are not read. */
        private void askMeasured() {
            fieldReplies = new ArrayList<>(keys.length);
            lengthReplies = new ArrayList<>(keys.length);
            lockReplies = new ArrayList<>();
            measuredAsked = reading.pipeline();
            for (int n = 0; n < keys.length; n++) {
                if (state == V1State.ACTIVE) {
                    lockReplies.add(LockAsked.of(measuredAsked, reading.queue.jobSubKey(id(n), JobSubKind.LOCK)));
                }
                fieldReplies.add(hmget(measuredAsked, keys[n], FIELDS));
                lengthReplies.add(measuredAsked.hstrlen(keys[n], DATA));
            }
            PipelineSend.now(measuredAsked);
        }

        /** Measured: reads the replies of the pipeline {@link #askMeasured} sent, unless they were read. */
        private void receiveMeasured() {
            if (measuredAsked != null) {
                try (AbstractPipeline p = measuredAsked) {
                    p.sync();
                }
                measuredAsked = null;
            }
        }

        /** The small fields, payload lengths and lock TTLs, from the pipeline {@link #start} sent, else sent now. */
        private void readMeasured() {
            if (fieldReplies == null) {
                askMeasured();
            }
            receiveMeasured();
            for (int n = 0; n < keys.length; n++) {
                fields.add(hashFields(fieldReplies.get(n)));
                lengths[n] = lengthOf(lengthReplies.get(n));
                lockTtls[n] = state == V1State.ACTIVE ? lockReplies.get(n).ttl() : -2L;
            }
            fieldReplies = null;
            lengthReplies = null;
            lockReplies = null;
        }

        /**
         * {@code HMGET key fields…} with the fields' argument objects made once: Jedis's own {@code hmget}
         * wraps every field anew for each of a million jobs.
         */
        private static Response<List<byte[]>> hmget(AbstractPipeline p, byte[] key, Rawable[] fields) {
            CommandArguments args = new CommandArguments(Protocol.Command.HMGET).key(key);
            for (Rawable field : fields) {
                args.add(field);
            }
            return p.executeCommand(new CommandObject<>(args, BuilderFactory.BINARY_LIST));
        }

        private static Rawable[] rawables(List<String> names) {
            return names.stream().map(RawableFactory::from).toArray(Rawable[]::new);
        }

        /** The HMGET reply, or null when the key is not a hash (the server answered WRONGTYPE). */
        private static List<byte[]> hashFields(Response<List<byte[]>> reply) {
            try {
                return reply.get();
            } catch (redis.clients.jedis.exceptions.JedisDataException wrongType) {
                return null;
            }
        }

        /** The HSTRLEN reply, or 0 when the key is not a hash (the server answered WRONGTYPE). */
        private static long lengthOf(Response<Long> reply) {
            try {
                return reply.get();
            } catch (redis.clients.jedis.exceptions.JedisDataException wrongType) {
                return 0;
            }
        }

        /** The types of the keys the first replies could not tell apart from a hash (missing or another type). */
        private Map<Integer, KeyType> typesOf(List<Integer> positions) {
            Map<Integer, KeyType> out = new HashMap<>();
            if (positions.isEmpty()) {
                return out;
            }
            List<Response<String>> replies = new ArrayList<>(positions.size());
            try (AbstractPipeline p = reading.followUp()) {
                positions.forEach(n -> replies.add(p.type(keys[n])));
                p.sync();
            }
            for (int k = 0; k < positions.size(); k++) {
                out.put(positions.get(k), KeyType.parse(replies.get(k).get()));
            }
            return out;
        }

        /**
         * Without digests, each hash's payload by its length alone. A zero length is an empty or an absent
         * {@code data}; only those are asked which.
         */
        private void measure(List<Integer> hashes) {
            List<Integer> empty = new ArrayList<>();
            for (int n : hashes) {
                payloads[n] = PayloadDigest.measured(lengths[n]);
                if (lengths[n] == 0) {
                    empty.add(n);
                }
            }
            if (empty.isEmpty()) {
                return;
            }
            List<Response<Boolean>> present = new ArrayList<>(empty.size());
            try (AbstractPipeline p = reading.followUp()) {
                empty.forEach(n -> present.add(p.hexists(keys[n], DATA)));
                p.sync();
            }
            for (int k = 0; k < empty.size(); k++) {
                if (!present.get(k).get()) {
                    payloads[empty.get(k)] = PayloadDigest.ABSENT;
                }
            }
        }

        private Bytes id(int n) {
            return reading.listedIds.id(entries[n]);
        }

        private Bytes jobKey(int n) {
            return Bytes.of(keys[n]);
        }

        /** Files the anomalies of job {@code n}, a hash, and adds its facts. */
        private void add(int n, JobHashFields h) {
            int entry = entries[n];
            PayloadDigest payload = payloads[n];
            long lockTtl = lockTtls[n];
            QueueRef queue = reading.queue;
            int place = places[n];
            reading.scoreAnomaly(state, entry, place, () -> jobKey(n));
            EnclosingQueues.nestedOwner(keySource, reading.base, keys[n]).ifPresent(nested ->
                    reading.underNested.computeIfAbsent(nested, q -> new ArrayList<>()).add(jobKey(n)));
            if (state == V1State.ACTIVE && !(lockTtl > 0 || lockTtl == -1)) {
                reading.anomalies.addAt(place, AnomalyKind.EXPIRED_LOCK, jobKey(n), "active but " + queue.jobSubKey(id(n), JobSubKind.LOCK).display()
                        + " is gone: stalled, and v1 never recovered it");
            }
            h.counterProblems().ifPresent(problem -> reading.anomalies.addAt(place, AnomalyKind.BAD_ATTEMPTS, jobKey(n), problem));
            if (!payload.present()) {
                reading.anomalies.addAt(place, AnomalyKind.HASH_WITHOUT_DATA, jobKey(n), "the job hash has no data field");
            } else if (payload.examined() && !payload.json()) {
                reading.anomalies.addAt(place, AnomalyKind.NON_JSON_DATA, jobKey(n), PayloadDigest.whyNotSpliced("data", payload.bytes(), payload.deep(),
                        payload.utf8()));
            }
            h.optsNotSpliced().ifPresent(why -> reading.anomalies.addAt(place, AnomalyKind.NON_JSON_OPTS, jobKey(n), why));
            if (h.deferredFailure() != null && state != V1State.FAILED && state != V1State.COMPLETED) {
                reading.anomalies.addAt(place, AnomalyKind.DEFERRED_FAILURE, jobKey(n), "holds defa '" + h.deferredFailure().display()
                        + "': v1 fails it at its next fetch without running it");
            }
            if (h.parentKey() != null) {
                reading.flowLinks.add(new FlowLink(id(n), h.parentKey(), !owns(queue, h.parentKey()), h.onFailure()));
            }
            JobLayout layout = h.layout();
            long priority = layout == JobLayout.ELIXIR ? h.opts().pri() : h.priority();
            long delay = layout == JobLayout.ELIXIR ? h.opts().del() : h.delay();
            long created = layout == JobLayout.ELIXIR && h.delay() == 0 && delay > 0 ? h.timestamp() - delay : h.timestamp();
            jobs.add(entry, layout, h.name(), created, priority, delay, h.opts().lifo(), h.attemptsStarted(), h.attemptsMade(),
                    payload, state == V1State.ACTIVE ? lockTtl : -2, h.parentKey(), h.repeatJobKey(), h.finishedOn());
        }
    }

    static byte[][] fields(String... names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            out[i] = names[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        return out;
    }

    public static long parseLong(String s, long otherwise) {
        if (s == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            try {
                return (long) Double.parseDouble(s.trim());
            } catch (NumberFormatException e2) {
                return otherwise;
            }
        }
    }
}
