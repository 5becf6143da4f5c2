package io.emq.migrate.v1;

import io.emq.migrate.keyspace.Names;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Reads one v1 queue into a {@link QueueSnapshot} with read commands only ({@code TYPE},
 * {@code SCAN}, {@code LRANGE}, {@code ZRANGE}, {@code HMGET}, {@code HSTRLEN}, {@code HGET},
 * {@code PTTL}, …), in pipelined batches. Memory holds the ids and small facts of the queue's
 * jobs; payloads are read a bounded batch at a time, digested and dropped.
 */
public final class QueueSnapshotReader {
    static final int ID_CHUNK = 1000;
    static final int JOB_BATCH = 256;
    static final long PAYLOAD_BATCH_BYTES = 8L << 20;
    private static final int NAME_CACHE = 10_000;
    private static final Bytes ZERO_MARKER = Bytes.utf8("0:");

    private final UnifiedJedis jedis;
    private final QueueBases bases;

    /** {@code bases} holds every discovered queue, so keys of a nested queue ({@code a:b} under {@code a}) are left to it. */
    public QueueSnapshotReader(UnifiedJedis jedis, QueueBases bases) {
        this.jedis = jedis;
        this.bases = bases;
    }

    public QueueSnapshot read(QueueRef queue) {
        return new Reading(queue).run();
    }

    /** The mutable state of reading one queue. */
    private final class Reading {
        private final QueueRef queue;
        private final Map<QueueStructure, KeyType> structureTypes = new EnumMap<>(QueueStructure.class);
        private final Map<String, String> meta = new TreeMap<>();
        private final Map<V1State, List<Bytes>> serveOrder = new EnumMap<>(V1State.class);
        private final Map<V1State, List<Double>> scores = new EnumMap<>(V1State.class);
        private final Map<Bytes, V1State> primary = new HashMap<>();
        private final Map<Bytes, Double> repeatMembers = new LinkedHashMap<>();
        private final Map<AnomalyKey, Anomaly> anomalies = new LinkedHashMap<>();
        private final Map<String, Long> keyClasses = new TreeMap<>();
        private final Map<JobSubKind, Long> subkeys = new EnumMap<>(JobSubKind.class);
        private final List<Bytes> unlistedHashes = new ArrayList<>();
        private final Set<Bytes> orphans = new HashSet<>();
        private final List<Bytes> schedulerRecords = new ArrayList<>();
        private final List<Bytes> dedupIds = new ArrayList<>();
        private final Map<Bytes, Set<JobSubKind>> parentSubkeys = new HashMap<>();
        private final Map<Bytes, Bytes> unlistedStems = new LinkedHashMap<>();
        private final Map<V1State, List<JobFacts>> facts = new EnumMap<>(V1State.class);
        private final List<FlowLink> flowLinks = new ArrayList<>();
        private final Map<String, String> names = new HashMap<>();
        private long legacyMarkers;
        private long rank;

        Reading(QueueRef queue) {
            this.queue = queue;
        }

        QueueSnapshot run() {
            readStructureTypes();
            readListings();
            readRepeatMembers();
            scanQueueKeys();
            resolveUnlistedHashes();
            checkQueue();
            Map<V1State, Long> listed = new EnumMap<>(V1State.class);
            for (V1State s : V1State.LISTED) {
                listed.put(s, (long) serveOrder.getOrDefault(s, List.of()).size());
            }
            for (V1State state : V1State.RANK_ORDER) {
                readFacts(state);
                if (state != V1State.UNKNOWN) {
                    serveOrder.put(state, List.of()); // the facts hold the ids from here on
                    scores.put(state, List.of());
                }
            }
            Map<QueueStructure, KeyType> present = new EnumMap<>(QueueStructure.class);
            structureTypes.forEach((s, t) -> {
                if (t != KeyType.NONE) {
                    present.put(s, t);
                }
            });
            return new QueueSnapshot(queue, present, meta, listed, facts, new ArrayList<>(anomalies.values()),
                    readSchedulers(), readDedupKeys(), flowLinks, readFlowParents(), keyClasses, subkeys, legacyMarkers);
        }

        private void anomaly(AnomalyKind kind, Bytes key, String reason) {
            anomalies.putIfAbsent(new AnomalyKey(kind, key), new Anomaly(kind, key, reason));
        }

        private void count(String kind) {
            keyClasses.merge(kind, 1L, Long::sum);
        }

        private void readStructureTypes() {
            Map<QueueStructure, Response<String>> types = new EnumMap<>(QueueStructure.class);
            Response<String> bare;
            try (AbstractPipeline p = jedis.pipelined()) {
                for (QueueStructure s : QueueStructure.values()) {
                    types.put(s, p.type(queue.key(s).raw()));
                }
                bare = p.type(queue.bareKey().raw());
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
                jedis.hgetAll(queue.key(QueueStructure.META).raw())
                        .forEach((f, v) -> meta.put(Bytes.of(f).display(), Bytes.of(v).display()));
            }
        }

        private boolean hasType(QueueStructure s) {
            return structureTypes.get(s) == s.type();
        }

        private void readListings() {
            for (V1State state : V1State.LISTED) {
                QueueStructure s = QueueStructure.of(state);
                List<Bytes> ids = new ArrayList<>();
                List<Double> zscores = new ArrayList<>();
                if (hasType(s) && state.isList()) {
                    readList(queue.key(s), ids);
                } else if (hasType(s)) {
                    readZset(queue.key(s), ids, zscores);
                }
                serveOrder.put(state, ids);
                scores.put(state, zscores);
            }
            for (V1State state : V1State.PROBE_ORDER) {
                for (Bytes id : serveOrder.get(state)) {
                    V1State first = primary.putIfAbsent(id, state);
                    if (first != null && first != state) {
                        anomaly(AnomalyKind.LISTED_TWICE, queue.jobKey(id), "listed in " + first.wireName() + " and in "
                                + state.wireName() + "; BullMQ's getState reports " + first.wireName());
                    }
                }
            }
        }

        /** A list in serve order: from its tail; {@code 0:} markers of BullMQ 4.x are counted, not listed. */
        private void readList(Bytes key, List<Bytes> out) {
            long n = jedis.llen(key.raw());
            for (long i = 0; i < n; i += ID_CHUNK) {
                for (byte[] id : jedis.lrange(key.raw(), i, i + ID_CHUNK - 1)) {
                    Bytes b = Bytes.of(id);
                    if (b.startsWith(ZERO_MARKER)) {
                        legacyMarkers++;
                    } else {
                        out.add(b);
                    }
                }
            }
            Collections.reverse(out);
        }

        private void readZset(Bytes key, List<Bytes> ids, List<Double> out) {
            long n = jedis.zcard(key.raw());
            for (long i = 0; i < n; i += ID_CHUNK) {
                for (Tuple t : jedis.zrangeWithScores(key.raw(), i, i + ID_CHUNK - 1)) {
                    ids.add(Bytes.of(t.getBinaryElement()));
                    out.add(t.getScore());
                }
            }
        }

        private void readRepeatMembers() {
            if (!hasType(QueueStructure.REPEAT)) {
                return;
            }
            List<Bytes> ids = new ArrayList<>();
            List<Double> s = new ArrayList<>();
            readZset(queue.key(QueueStructure.REPEAT), ids, s);
            for (int i = 0; i < ids.size(); i++) {
                repeatMembers.put(ids.get(i), s.get(i));
            }
        }

        private void scanQueueKeys() {
            KeyClassifier classifier = new KeyClassifier(queue, primary.keySet(), repeatMembers.keySet());
            new KeyspaceScanner(jedis).scan(queue.base(), batch -> {
                for (ScannedKey k : batch) {
                    if (!bases.owner(k.key()).map(queue::equals).orElse(true)) {
                        continue; // a nested queue's key
                    }
                    classified(classifier.classify(k));
                }
            });
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
                dedupIds.add(d.dedupId());
            } else if (c instanceof KeyClass.JobSubkey j) {
                subkeys.merge(j.sub(), 1L, Long::sum);
                if (!primary.containsKey(j.id())) {
                    unlistedStems.putIfAbsent(j.id(), queue.jobSubKey(j.id(), j.sub()));
                }
                if (j.sub() != JobSubKind.LOCK && j.sub() != JobSubKind.LOGS) {
                    parentSubkeys.computeIfAbsent(j.id(), x -> new HashSet<>()).add(j.sub());
                }
            }
        }

        private static final byte[][] UNLISTED_FIELDS = fields("data", "name", "timestamp", "every", "pattern");

        /** An unlisted hash is an orphan job (job fields), a stale scheduler record (every/pattern), or unknown. */
        private void resolveUnlistedHashes() {
            for (int from = 0; from < unlistedHashes.size(); from += JOB_BATCH) {
                List<Bytes> batch = unlistedHashes.subList(from, Math.min(unlistedHashes.size(), from + JOB_BATCH));
                List<Response<List<byte[]>>> replies = new ArrayList<>();
                try (AbstractPipeline p = jedis.pipelined()) {
                    for (Bytes id : batch) {
                        replies.add(p.hmget(queue.jobKey(id).raw(), UNLISTED_FIELDS));
                    }
                    p.sync();
                }
                for (int i = 0; i < batch.size(); i++) {
                    List<byte[]> f = replies.get(i).get();
                    Bytes id = batch.get(i);
                    Bytes key = queue.jobKey(id);
                    boolean jobLike = f.get(0) != null || (f.get(1) != null && f.get(2) != null);
                    if (jobLike) {
                        count("job-hash");
                        orphans.add(id);
                        anomaly(AnomalyKind.ORPHAN_HASH, key, "job hash listed in no structure"
                                + (f.get(0) == null ? " and without data" : "")
                                + " (for example left by an add that failed WRONGTYPE after writing the hash)");
                    } else if (f.get(3) != null || f.get(4) != null) {
                        count("scheduler");
                        schedulerRecords.add(id);
                    } else {
                        count("anomaly");
                        anomaly(AnomalyKind.UNKNOWN_KEY, key, "a hash under the queue that is neither a job nor a scheduler");
                    }
                }
            }
            unlistedStems.forEach((stem, key) -> {
                if (!orphans.contains(stem)) {
                    anomaly(AnomalyKind.DANGLING_SUBKEY, key, "per-job key of " + stem.display() + ", which has no job hash");
                }
            });
        }

        private void readFacts(V1State state) {
            List<Bytes> ids;
            List<Double> zscores;
            if (state == V1State.UNKNOWN) {
                ids = new ArrayList<>(orphans);
                Collections.sort(ids);
                zscores = List.of();
            } else {
                ids = serveOrder.get(state);
                zscores = scores.get(state);
            }
            List<JobFacts> out = new ArrayList<>();
            List<Slot> batch = new ArrayList<>(JOB_BATCH);
            long position = 0;
            for (int i = 0; i < ids.size(); i++) {
                if (state == V1State.UNKNOWN || primary.get(ids.get(i)) == state) {
                    batch.add(new Slot(i, position++));
                }
                if (batch.size() == JOB_BATCH || (i == ids.size() - 1 && !batch.isEmpty())) {
                    new FactsBatch(this, state, ids, zscores, batch).read(out);
                    batch.clear();
                }
            }
            facts.put(state, out);
        }

        /** Job names repeat across jobs: keep one copy of each (up to a bound). */
        String intern(String name) {
            if (name == null) {
                return null;
            }
            String known = names.get(name);
            if (known != null) {
                return known;
            }
            if (names.size() < NAME_CACHE) {
                names.put(name, name);
            }
            return name;
        }

        private void checkQueue() {
            if (!serveOrder.get(V1State.PAUSED).isEmpty() && !meta.containsKey("paused")) {
                anomaly(AnomalyKind.PAUSED_WITHOUT_FLAG, queue.key(QueueStructure.PAUSED),
                        serveOrder.get(V1State.PAUSED).size() + " jobs in paused while meta.paused is not set"
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
                Scheduler.Kind kind = h.containsKey("pattern") ? Scheduler.Kind.PATTERN
                        : h.containsKey("every") ? Scheduler.Kind.EVERY : Scheduler.Kind.LEGACY;
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

        private List<DedupEntry> readDedupKeys() {
            List<DedupEntry> out = new ArrayList<>();
            for (int from = 0; from < dedupIds.size(); from += JOB_BATCH) {
                List<Bytes> batch = dedupIds.subList(from, Math.min(dedupIds.size(), from + JOB_BATCH));
                List<Response<byte[]>> values = new ArrayList<>();
                List<Response<Long>> ttls = new ArrayList<>();
                try (AbstractPipeline p = jedis.pipelined()) {
                    for (Bytes did : batch) {
                        byte[] key = queue.key("de:").concat(did).raw();
                        values.add(p.get(key));
                        ttls.add(p.pttl(key));
                    }
                    p.sync();
                }
                for (int i = 0; i < batch.size(); i++) {
                    out.add(new DedupEntry(batch.get(i), Bytes.of(values.get(i).get()), ttls.get(i).get()));
                }
            }
            return out;
        }

        private List<FlowParent> readFlowParents() {
            List<FlowParent> out = new ArrayList<>();
            for (Map.Entry<Bytes, Set<JobSubKind>> e : parentSubkeys.entrySet()) {
                Bytes id = e.getKey();
                if (!primary.containsKey(id) && !orphans.contains(id)) {
                    continue;
                }
                Set<JobSubKind> subs = e.getValue();
                long pending = 0;
                long cross = 0;
                if (subs.contains(JobSubKind.DEPENDENCIES)) {
                    for (byte[] child : jedis.smembers(queue.jobSubKey(id, JobSubKind.DEPENDENCIES).raw())) {
                        pending++;
                        if (!Bytes.of(child).startsWith(queue.base())) {
                            cross++;
                        }
                    }
                }
                long processed = subs.contains(JobSubKind.PROCESSED) ? jedis.hlen(queue.jobSubKey(id, JobSubKind.PROCESSED).raw()) : 0;
                long failed = subs.contains(JobSubKind.FAILED) ? jedis.hlen(queue.jobSubKey(id, JobSubKind.FAILED).raw()) : 0;
                long unsuccessful = subs.contains(JobSubKind.UNSUCCESSFUL)
                        ? jedis.zcard(queue.jobSubKey(id, JobSubKind.UNSUCCESSFUL).raw()) : 0;
                out.add(new FlowParent(id, pending, cross, processed, failed, unsuccessful));
            }
            out.sort((a, b) -> a.id().compareTo(b.id()));
            return out;
        }
    }

    /** One pipelined batch of jobs of one state: types and lock TTLs, then small fields, then payloads. */
    private final class FactsBatch {
        private static final byte[][] FIELDS = fields("name", "timestamp", "delay", "priority", "opts", "ats", "atm",
                "attemptsMade", "finishedOn", "parentKey", "rjk", "stc", "stalledCounter");
        private static final byte[] DATA = "data".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        private final Reading reading;
        private final V1State state;
        private final List<Bytes> ids;
        private final List<Double> zscores;
        private final List<Slot> slots;

        FactsBatch(Reading reading, V1State state, List<Bytes> ids, List<Double> zscores, List<Slot> slots) {
            this.reading = reading;
            this.state = state;
            this.ids = ids;
            this.zscores = zscores;
            this.slots = slots;
        }

        void read(List<JobFacts> out) {
            QueueRef queue = reading.queue;
            List<Response<String>> types = new ArrayList<>();
            List<Response<Long>> locks = new ArrayList<>();
            try (AbstractPipeline p = jedis.pipelined()) {
                for (Slot slot : slots) {
                    types.add(p.type(queue.jobKey(ids.get(slot.index())).raw()));
                    if (state == V1State.ACTIVE) {
                        locks.add(p.pttl(queue.jobSubKey(ids.get(slot.index()), JobSubKind.LOCK).raw()));
                    }
                }
                p.sync();
            }
            List<Slot> hashes = new ArrayList<>();
            List<Long> lockTtls = new ArrayList<>();
            for (int n = 0; n < slots.size(); n++) {
                Bytes id = ids.get(slots.get(n).index());
                KeyType type = KeyType.parse(types.get(n).get());
                if (type == KeyType.HASH) {
                    hashes.add(slots.get(n));
                    lockTtls.add(state == V1State.ACTIVE ? locks.get(n).get() : -2L);
                } else if (type == KeyType.NONE) {
                    reading.anomaly(AnomalyKind.MISSING_HASH, queue.jobKey(id),
                            "listed in " + state.wireName() + " but the job hash does not exist; nothing to migrate");
                } else {
                    reading.anomaly(AnomalyKind.WRONG_JOB_TYPE, queue.jobKey(id), "job " + id.display()
                            + " is listed but its key is a " + type.wireName() + ", not a hash");
                }
            }
            List<Response<List<byte[]>>> fieldReplies = new ArrayList<>();
            List<Response<Long>> dataLengths = new ArrayList<>();
            List<Response<Boolean>> dataPresent = new ArrayList<>();
            try (AbstractPipeline p = jedis.pipelined()) {
                for (Slot slot : hashes) {
                    byte[] key = queue.jobKey(ids.get(slot.index())).raw();
                    fieldReplies.add(p.hmget(key, FIELDS));
                    dataLengths.add(p.hstrlen(key, DATA));
                    dataPresent.add(p.hexists(key, DATA));
                }
                p.sync();
            }
            List<PayloadDigest> digests = digests(hashes, dataLengths, dataPresent);
            for (int n = 0; n < hashes.size(); n++) {
                Slot slot = hashes.get(n);
                double score = zscores.isEmpty() ? Double.NaN : zscores.get(slot.index());
                JobHashFields h = JobHashFields.of(fieldReplies.get(n).get());
                out.add(facts(ids.get(slot.index()), slot.position(), score, h, digests.get(n), lockTtls.get(n)));
            }
        }

        private List<PayloadDigest> digests(List<Slot> hashes, List<Response<Long>> lengths, List<Response<Boolean>> present) {
            List<PayloadDigest> out = new ArrayList<>(hashes.size());
            int from = 0;
            while (from < hashes.size()) {
                int to = from;
                long bytes = 0;
                while (to < hashes.size() && (to == from || bytes + lengths.get(to).get() <= PAYLOAD_BATCH_BYTES)) {
                    bytes += lengths.get(to).get();
                    to++;
                }
                List<Response<byte[]>> data = new ArrayList<>();
                try (AbstractPipeline p = jedis.pipelined()) {
                    for (int n = from; n < to; n++) {
                        data.add(p.hget(reading.queue.jobKey(ids.get(hashes.get(n).index())).raw(), DATA));
                    }
                    p.sync();
                }
                for (int n = from; n < to; n++) {
                    out.add(present.get(n).get() ? PayloadDigest.of(data.get(n - from).get()) : PayloadDigest.ABSENT);
                }
                from = to;
            }
            return out;
        }

        private JobFacts facts(Bytes id, long position, double score, JobHashFields h, PayloadDigest payload, long lockTtl) {
            QueueRef queue = reading.queue;
            Bytes key = queue.jobKey(id);
            long dueAt = -1;
            if (state == V1State.DELAYED) {
                if (ScoreCodec.isPacking(score)) {
                    dueAt = ScoreCodec.dueAt(score);
                } else {
                    reading.anomaly(AnomalyKind.BAD_DELAYED_SCORE, key, "delayed score " + ScoreCodec.render(score)
                            + " is not due*4096+seq (a non-negative integer below 2^53)");
                }
            }
            if (state == V1State.PRIORITIZED && !ScoreCodec.isPacking(score)) {
                reading.anomaly(AnomalyKind.BAD_PRIORITIZED_SCORE, key, "prioritized score " + ScoreCodec.render(score)
                        + " is not priority*2^32+seq (a non-negative integer below 2^53)");
            }
            if (state == V1State.ACTIVE && !(lockTtl > 0 || lockTtl == -1)) {
                reading.anomaly(AnomalyKind.EXPIRED_LOCK, key, "active but " + queue.jobSubKey(id, JobSubKind.LOCK).display()
                        + " is gone: stalled, and v1 never recovered it");
            }
            if (!payload.present()) {
                reading.anomaly(AnomalyKind.HASH_WITHOUT_DATA, key, "the job hash has no data field");
            } else if (!payload.json()) {
                reading.anomaly(AnomalyKind.NON_JSON_DATA, key, "data (" + payload.bytes() + " bytes) is not JSON"
                        + (payload.utf8() ? "" : " and not UTF-8"));
            }
            if (h.parentKey() != null) {
                reading.flowLinks.add(new FlowLink(id, h.parentKey(), !h.parentKey().startsWith(queue.base())));
            }
            long priority = h.layout() == JobLayout.ELIXIR ? h.optsLong("pri", 0)
                    : state == V1State.PRIORITIZED && ScoreCodec.isPacking(score) ? ScoreCodec.priority(score) : h.priority();
            long delay = h.layout() == JobLayout.ELIXIR ? h.optsLong("del", 0) : h.delay();
            long created = h.layout() == JobLayout.ELIXIR && h.delay() == 0 && delay > 0 ? h.timestamp() - delay : h.timestamp();
            reading.rank++;
            return new JobFacts(id, state, reading.rank, position, score, h.layout(), reading.intern(h.name()), created, priority, delay,
                    dueAt, h.lifo(), h.attemptsStarted(), h.attemptsMade(), payload.bytes(), payload.sha256(),
                    payload.json(), state == V1State.ACTIVE ? lockTtl : -2, h.parentKey(), h.repeatJobKey(), h.finishedOn());
        }
    }

    static byte[][] fields(String... names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            out[i] = names[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        return out;
    }

    static long parseLong(String s, long otherwise) {
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

    private record AnomalyKey(AnomalyKind kind, Bytes key) {
    }

    /** A job's index in its structure's id list and its position in its state's serve order. */
    private record Slot(int index, long position) {
    }
}
