package io.emq.migrate.migrate;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * Writes a v1 queue of waiting jobs as BullMQ 5.x's addStandardJob leaves them: hashes
 * {@code bull:<q>:<n>} (name, data, opts, timestamp, delay, priority), ids LPUSHed onto
 * {@code wait} (so job 1 is served first), the {@code id} counter and {@code meta}.
 */
public final class V1QueueGenerator {
    private V1QueueGenerator() {
    }


    /**
     * Writes job {@code id}'s hash as BullMQ 5.65.1's addStandardJob leaves it (data naming the id, three attempts,
     * created now), the given field-value pairs added or replaced.
     */
    public static void job(UnifiedJedis jedis, String queue, String id, String... fields) {
        Map<String, String> hash = new LinkedHashMap<>();
        hash.put("name", "send");
        hash.put("data", "{\"id\":\"" + id + "\"}");
        hash.put("opts", "{\"attempts\":3}");
        hash.put("timestamp", Long.toString(System.currentTimeMillis()));
        hash.put("delay", "0");
        hash.put("priority", "0");
        for (int i = 0; i < fields.length; i += 2) {
            hash.put(fields[i], fields[i + 1]);
        }
        jedis.hset("bull:" + queue + ":" + id, hash);
    }

    /** Adds jobs {@code from..to} (inclusive) to the queue, with payloads of {@code payloadBytes}. */
    public static void addWaiting(UnifiedJedis jedis, String queue, long from, long to, int payloadBytes) {
        addWaiting(jedis, queue, from, to, payloadBytes, false, -1, "");
    }

    /**
     * As {@link #addWaiting(UnifiedJedis, String, long, long, int)}, job {@code n}'s id {@code idPrefix + n} (a custom id
     * as BullMQ's add with a {@code jobId} leaves it, when the prefix is not empty; the add counter still ends at
     * {@code to}); {@code deduplicated}: each job also carries a BullMQ 5 dedup key, {@code de:d<n>} holding its id (and
     * its hash {@code deid}), as {@link LiveV1#addDeduplicated} adds, expiring after {@code dedupTtlMs} (-1: never).
     */
    public static void addWaiting(UnifiedJedis jedis, String queue, long from, long to, int payloadBytes, boolean deduplicated,
                                  long dedupTtlMs, String idPrefix) {
        addWaiting(jedis, "bull", queue, from, to, payloadBytes, deduplicated, dedupTtlMs, idPrefix);
    }

    /**
     * As {@link #addWaiting(UnifiedJedis, String, long, long, int)}, under the v1 prefix {@code prefix} (on a cluster, a
     * hash-tagged one such as {@code {v1}} keeps the queue's keys in one slot, as BullMQ requires there).
     */
    public static void addWaiting(UnifiedJedis jedis, String prefix, String queue, long from, long to, int payloadBytes) {
        addWaiting(jedis, prefix, queue, from, to, payloadBytes, false, -1, "");
    }

    private static void addWaiting(UnifiedJedis jedis, String prefix, String queue, long from, long to, int payloadBytes,
                                   boolean deduplicated, long dedupTtlMs, String idPrefix) {
        String base = prefix + ":" + queue + ":";
        for (long start = from; start <= to; start += 1000) {
            long end = Math.min(to, start + 999);
            try (AbstractPipeline p = jedis.pipelined()) {
                for (long n = start; n <= end; n++) {
                    Map<String, String> hash = new LinkedHashMap<>();
                    hash.put("name", "send");
                    hash.put("data", payload(n, payloadBytes));
                    hash.put("opts", "{\"attempts\":3}");
                    hash.put("timestamp", Long.toString(1_700_000_000_000L + n));
                    hash.put("delay", "0");
                    hash.put("priority", "0");
                    String id = idPrefix + n;
                    if (deduplicated) {
                        hash.put("deid", "d" + n);
                        p.set(base + "de:d" + n, id);
                        if (dedupTtlMs > 0) {
                            p.pexpire(base + "de:d" + n, dedupTtlMs);
                        }
                    }
                    p.hset(base + id, hash);
                    p.lpush(base + "wait", id);
                }
                p.set(base + "id", Long.toString(end));
                p.hset(base + "meta", Map.of("opts.maxLenEvents", "10000", "version", "bullmq:5.65.1"));
                p.sync();
            }
        }
    }

    /** A JSON payload of exactly {@code size} bytes (at least its frame) that names its job. */
    static String payload(long n, int size) {
        String head = "{\"n\":" + n + ",\"pad\":\"";
        String tail = "\"}";
        int pad = Math.max(0, size - head.length() - tail.length());
        char[] fill = new char[pad];
        Arrays.fill(fill, 'x');
        String s = head + new String(fill) + tail;
        assert s.getBytes(StandardCharsets.UTF_8).length >= size;
        return s;
    }
}
