package io.emq.migrate.drain;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.KeyspaceScanner;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * A scratch copy of a migrated queue on the same target, so a drain can prove the cutover without
 * consuming production work: every key of {@code emq:{q}:} (rows, sets, lanes, flows, schedulers,
 * dedup keys, meta) is copied under {@code emq:{<q>-shadow-<hex>}:} with its TTL, a row's
 * {@code parent_queue} naming the queue itself is pointed at the copy (so same-queue flows stay in
 * it), and everything else is kept byte for byte. The real queue is only read. {@link #close()}
 * deletes the copy.
 */
public final class ShadowQueue implements AutoCloseable {
    private static final int CHUNK = 1000;
    private static final byte[] PARENT_QUEUE = "parent_queue".getBytes(StandardCharsets.UTF_8);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final UnifiedJedis client;
    private final String queue;
    private final String name;
    private long keys;

    private ShadowQueue(UnifiedJedis client, String queue, String name) {
        this.client = client;
        this.queue = queue;
        this.name = name;
    }

    /** Copies {@code queue} into a fresh shadow queue; the caller closes it to delete the copy. */
    public static ShadowQueue copyOf(UnifiedJedis client, String queue) {
        byte[] suffix = new byte[3];
        RANDOM.nextBytes(suffix);
        String name = queue + "-shadow-" + HexFormat.of().formatHex(suffix);
        if (!Names.isQueueName(name)) {
            throw new IllegalArgumentException("queue '" + queue + "' is too long for a shadow copy named after it");
        }
        ShadowQueue shadow = new ShadowQueue(client, queue, name);
        shadow.copy();
        return shadow;
    }

    /** The copy's v2 queue name. */
    public String name() {
        return name;
    }

    /** Keys copied. */
    public long keys() {
        return keys;
    }

    private void copy() {
        byte[] from = base(queue);
        byte[] to = base(name);
        scan(from, key -> {
            byte[] target = concat(to, Arrays.copyOfRange(key, from.length, key.length));
            String type = client.type(key);
            switch (type) {
                case "string" -> client.set(target, client.get(key));
                case "hash" -> copyHash(key, target);
                case "list" -> copyList(key, target);
                case "set" -> client.sadd(target, client.smembers(key).toArray(new byte[0][]));
                case "zset" -> copyZset(key, target);
                case "none" -> {
                    return; // deleted since the scan saw it
                }
                default -> throw new IllegalStateException("a shadow copy cannot hold " + new String(key, StandardCharsets.UTF_8)
                        + ", a " + type);
            }
            long ttl = client.pttl(key);
            if (ttl > 0) {
                client.pexpire(target, ttl);
            }
            keys++;
        });
    }

    private void copyHash(byte[] key, byte[] target) {
        byte[] self = queue.getBytes(StandardCharsets.UTF_8);
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<Map.Entry<byte[], byte[]>> page = client.hscan(key, cursor, new ScanParams().count(CHUNK));
            Map<byte[], byte[]> fields = new LinkedHashMap<>();
            for (Map.Entry<byte[], byte[]> f : page.getResult()) {
                boolean selfParent = Arrays.equals(f.getKey(), PARENT_QUEUE) && Arrays.equals(f.getValue(), self);
                fields.put(f.getKey(), selfParent ? name.getBytes(StandardCharsets.UTF_8) : f.getValue());
            }
            if (!fields.isEmpty()) {
                client.hset(target, fields);
            }
            cursor = page.getCursorAsBytes();
        } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    }

    private void copyList(byte[] key, byte[] target) {
        long length = client.llen(key);
        for (long i = 0; i < length; i += CHUNK) {
            List<byte[]> items = client.lrange(key, i, i + CHUNK - 1);
            if (!items.isEmpty()) {
                client.rpush(target, items.toArray(new byte[0][]));
            }
        }
    }

    private void copyZset(byte[] key, byte[] target) {
        long size = client.zcard(key);
        for (long i = 0; i < size; i += CHUNK) {
            Map<byte[], Double> members = new LinkedHashMap<>();
            for (Tuple t : client.zrangeWithScores(key, i, i + CHUNK - 1)) {
                members.put(t.getBinaryElement(), t.getScore());
            }
            if (!members.isEmpty()) {
                client.zadd(target, members);
            }
        }
    }

    /** Deletes every key of the copy. */
    @Override
    public void close() {
        List<byte[]> batch = new ArrayList<>();
        scan(base(name), batch::add);
        for (int from = 0; from < batch.size(); from += CHUNK) {
            client.unlink(batch.subList(from, Math.min(batch.size(), from + CHUNK)).toArray(new byte[0][]));
        }
    }

    private void scan(byte[] base, Consumer<byte[]> each) {
        new KeyspaceScanner(client).scanKeys(Bytes.of(base), batch -> batch.forEach(k -> each.accept(k.raw())));
    }

    private static byte[] base(String queue) {
        return Keys.queue(queue).base().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
