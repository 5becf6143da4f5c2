package io.emq.migrate.drain;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/** Pipelined reads of many jobs of one queue, in batches; reads only. */
final class Rows {
    private final UnifiedJedis client;
    private final Keys keys;
    private final List<String> pending = new ArrayList<>();

    /** The rows of {@code queue}, whose pending jobs wait in the flat pending set and in these lanes. */
    Rows(UnifiedJedis client, String queue, java.util.Collection<BrandedId> lanes) {
        this.client = client;
        this.keys = Keys.queue(queue);
        this.pending.add(keys.pending());
        lanes.forEach(lane -> pending.add(keys.lanePending(lane)));
    }

    Keys keys() {
        return keys;
    }

    /** Where the migrated pending jobs wait: the flat pending set, then the lanes they were migrated into. */
    List<String> pending() {
        return pending;
    }

    /** The score of each id in the sorted set (ids that are not members are absent from the map); one ZMSCORE a batch. */
    Map<String, Double> scores(String setKey, List<String> ids) {
        Map<String, Double> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += MigratedJobs.BATCH) {
            List<String> batch = ids.subList(from, Math.min(ids.size(), from + MigratedJobs.BATCH));
            List<Double> scores = client.zmscore(setKey, batch.toArray(new String[0]));
            for (int i = 0; i < batch.size(); i++) {
                if (scores.get(i) != null) {
                    out.put(batch.get(i), scores.get(i));
                }
            }
        }
        return out;
    }

    /** The named fields of each row (a list of nulls for an absent row). */
    Map<String, List<byte[]>> fields(List<String> ids, String... names) {
        byte[][] fieldNames = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            fieldNames[i] = names[i].getBytes(StandardCharsets.UTF_8);
        }
        Map<String, List<byte[]>> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += MigratedJobs.BATCH) {
            List<String> batch = ids.subList(from, Math.min(ids.size(), from + MigratedJobs.BATCH));
            List<Response<List<byte[]>>> replies = new ArrayList<>(batch.size());
            try (AbstractPipeline p = client.pipelined()) {
                batch.forEach(id -> replies.add(p.hmget(row(id), fieldNames)));
                p.sync();
            }
            for (int i = 0; i < batch.size(); i++) {
                out.put(batch.get(i), replies.get(i).get());
            }
        }
        return out;
    }

    /** One page of a sorted set in its order (score, then id), with scores. */
    List<Tuple> page(String setKey, long from, int size) {
        return client.zrangeWithScores(setKey, from, from + size - 1);
    }

    private byte[] row(String id) {
        return keys.job(BrandedId.of(id)).getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
