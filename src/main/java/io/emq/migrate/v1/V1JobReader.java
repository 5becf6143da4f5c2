package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/** Reads one job's whole v1 record (hash and per-job keys) on demand, in one pipeline; reads only. */
public final class V1JobReader {
    private final UnifiedJedis jedis;

    public V1JobReader(UnifiedJedis jedis) {
        this.jedis = jedis;
    }

    /** The job, or empty when its hash does not exist (or is not a hash). */
    public Optional<V1Job> read(QueueRef queue, Bytes id) {
        Bytes key = queue.jobKey(id);
        Response<String> type;
        Map<JobSubKind, Response<String>> subTypes = new LinkedHashMap<>();
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            type = p.type(key.raw());
            for (JobSubKind sub : JobSubKind.values()) {
                subTypes.put(sub, p.type(queue.jobSubKey(id, sub).raw()));
            }
            p.sync();
        }
        if (KeyType.parse(type.get()) != KeyType.HASH) {
            return Optional.empty();
        }
        Response<Map<byte[], byte[]>> hash;
        Response<List<byte[]>> logs = null;
        Response<java.util.Set<byte[]>> deps = null;
        Response<Map<byte[], byte[]>> processed = null;
        Response<Map<byte[], byte[]>> failed = null;
        Response<List<Tuple>> unsuccessful = null;
        Response<Long> lock;
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            hash = p.hgetAll(key.raw());
            if (has(subTypes, JobSubKind.LOGS)) {
                logs = p.lrange(queue.jobSubKey(id, JobSubKind.LOGS).raw(), 0, -1);
            }
            if (has(subTypes, JobSubKind.DEPENDENCIES)) {
                deps = p.smembers(queue.jobSubKey(id, JobSubKind.DEPENDENCIES).raw());
            }
            if (has(subTypes, JobSubKind.PROCESSED)) {
                processed = p.hgetAll(queue.jobSubKey(id, JobSubKind.PROCESSED).raw());
            }
            if (has(subTypes, JobSubKind.FAILED)) {
                failed = p.hgetAll(queue.jobSubKey(id, JobSubKind.FAILED).raw());
            }
            if (has(subTypes, JobSubKind.UNSUCCESSFUL)) {
                unsuccessful = p.zrangeWithScores(queue.jobSubKey(id, JobSubKind.UNSUCCESSFUL).raw(), 0, -1);
            }
            lock = p.pttl(queue.jobSubKey(id, JobSubKind.LOCK).raw());
            p.sync();
        }
        Map<Bytes, Double> unsuccessfulMap = new LinkedHashMap<>();
        if (unsuccessful != null) {
            for (Tuple t : unsuccessful.get()) {
                unsuccessfulMap.put(Bytes.of(t.getBinaryElement()), t.getScore());
            }
        }
        List<Bytes> depList = new ArrayList<>();
        if (deps != null) {
            deps.get().forEach(d -> depList.add(Bytes.of(d)));
            depList.sort(null);
        }
        return Optional.of(new V1Job(queue, id, map(hash.get()), logs == null ? List.of() : logs.get().stream().map(Bytes::of).toList(),
                depList, processed == null ? Map.of() : map(processed.get()), failed == null ? Map.of() : map(failed.get()),
                unsuccessfulMap, lock.get()));
    }

    private static boolean has(Map<JobSubKind, Response<String>> types, JobSubKind sub) {
        return KeyType.parse(types.get(sub).get()) == sub.type();
    }

    private static Map<Bytes, Bytes> map(Map<byte[], byte[]> raw) {
        Map<Bytes, Bytes> out = new TreeMap<>();
        raw.forEach((k, v) -> out.put(Bytes.of(k), Bytes.of(v)));
        return out;
    }
}
