package io.emq.migrate.drain;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.emq.migrate.wire.Wire;

/** Pipelined reads of many jobs of one queue, in batches; reads only. */
final class Rows {
    private final Wire wire;
    private final Keys keys;
    private final List<String> pending = new ArrayList<>();

    /** The rows of {@code queue}, whose pending jobs wait in the flat pending set and in these lanes. */
    Rows(Wire wire, String queue, java.util.Collection<BrandedId> lanes) {
        this.wire = wire;
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
            List<Double> scores = wire.zmscore(bytes(setKey), batch.stream().map(Rows::bytes).toList());
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
        List<byte[]> fieldNames = Arrays.stream(names).map(Rows::bytes).toList();
        Map<String, List<byte[]>> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += MigratedJobs.BATCH) {
            List<String> batch = ids.subList(from, Math.min(ids.size(), from + MigratedJobs.BATCH));
            List<List<byte[]>> replies = wire.hmget(batch.stream().map(this::row).toList(), fieldNames);
            for (int i = 0; i < batch.size(); i++) {
                out.put(batch.get(i), replies.get(i));
            }
        }
        return out;
    }

    /** The size of a sorted set. */
    long size(String setKey) {
        return wire.zcard(bytes(setKey));
    }

    /** The completed metric's count, 0 before the first completion. */
    long completed() {
        byte[] count = wire.hget(bytes(keys.metricsCompleted()), bytes("count"));
        return count == null ? 0 : Long.parseLong(text(count));
    }

    /** One page of a sorted set in its order (score, then id), with scores. */
    List<Map.Entry<byte[], Double>> page(String setKey, long from, int size) {
        return wire.zrangeWithScores(bytes(setKey), from, from + size - 1);
    }

    private byte[] row(String id) {
        return bytes(keys.job(BrandedId.of(id)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
