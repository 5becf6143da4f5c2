package io.emq.migrate.v1;

import java.util.EnumMap;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * A quick count of one queue for {@code discover}: the length of each state's structure (a
 * structure of the wrong type counts 0; {@code 0:} markers count), {@code meta.paused} and
 * {@code meta.version}. Reads only.
 */
public record QueueCounts(QueueRef queue, Map<V1State, Long> jobs, boolean paused, String version) {

    public static QueueCounts read(UnifiedJedis jedis, QueueRef queue) {
        Map<V1State, Response<String>> types = new EnumMap<>(V1State.class);
        Response<Boolean> paused = null;
        Response<byte[]> version = null;
        Response<String> metaType;
        byte[] meta = queue.key(QueueStructure.META).raw();
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            for (V1State s : V1State.LISTED) {
                types.put(s, p.type(queue.key(QueueStructure.of(s)).raw()));
            }
            metaType = p.type(meta);
            p.sync();
        }
        Map<V1State, Response<Long>> lengths = new EnumMap<>(V1State.class);
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            for (V1State s : V1State.LISTED) {
                KeyType t = KeyType.parse(types.get(s).get());
                byte[] key = queue.key(QueueStructure.of(s)).raw();
                if (t == QueueStructure.of(s).type()) {
                    lengths.put(s, s.isList() ? p.llen(key) : p.zcard(key));
                }
            }
            if (KeyType.parse(metaType.get()) == KeyType.HASH) {
                paused = p.hexists(meta, Bytes.utf8("paused").raw());
                version = p.hget(meta, Bytes.utf8("version").raw());
            }
            p.sync();
        }
        boolean isPaused = paused != null && paused.get();
        String v = version == null || version.get() == null ? null : Bytes.of(version.get()).display();
        return new QueueCounts(queue, collect(lengths), isPaused, v);
    }

    private static Map<V1State, Long> collect(Map<V1State, Response<Long>> lengths) {
        Map<V1State, Long> out = new EnumMap<>(V1State.class);
        for (V1State s : V1State.LISTED) {
            Response<Long> r = lengths.get(s);
            out.put(s, r == null ? 0L : r.get());
        }
        return out;
    }
}
