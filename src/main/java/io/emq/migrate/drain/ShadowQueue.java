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
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * A scratch copy of a migrated queue on the same target, so a drain can prove the cutover without
 * consuming production work: every key of {@code emq:{q}:} (rows, sets, lanes, flows, schedulers,
 * dedup keys, meta) is copied under {@code emq:{<q>-shadow-<hex>}:} with its TTL, a row's
 * {@code parent_queue} naming the queue itself is pointed at the copy (so same-queue flows stay in
 * it), and everything else is kept byte for byte. The real queue is only read, a page of the key scan at a time
 * in a few pipelines (not a round trip a key: a queue of a million jobs copies in seconds). {@link #close()}
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
        scan(from, keys -> {
            for (int i = 0; i < keys.size(); i += CHUNK) {
                copyKeys(keys.subList(i, Math.min(keys.size(), i + CHUNK)), from, to);
            }
        });
    }

    /**
     * Copies these keys in four pipelines (their types and TTLs; the sizes of hashes, lists and zsets; the
     * contents of those up to {@link #CHUNK} entries, of sets and of strings; the writes), a larger
     * hash, list or zset read and written a chunk at a time. A key deleted since the scan saw it is skipped.
     */
    private void copyKeys(List<Bytes> page, byte[] from, byte[] to) {
        List<Response<String>> types = new ArrayList<>(page.size());
        List<Response<Long>> ttls = new ArrayList<>(page.size());
        try (AbstractPipeline p = client.pipelined()) {
            for (Bytes k : page) {
                types.add(p.type(k.raw()));
                ttls.add(p.pttl(k.raw()));
            }
            p.sync();
        }
        List<Response<Long>> sizes = new ArrayList<>(page.size());
        try (AbstractPipeline p = client.pipelined()) {
            for (int i = 0; i < page.size(); i++) {
                byte[] key = page.get(i).raw();
                sizes.add(switch (types.get(i).get()) {
                    case "hash" -> p.hlen(key);
                    case "list" -> p.llen(key);
                    case "zset" -> p.zcard(key);
                    case "string", "set", "none" -> null;
                    default -> throw new IllegalStateException("a shadow copy cannot hold " + page.get(i).display() + ", a "
                            + types.get(i).get());
                });
            }
            p.sync();
        }
        List<Response<?>> contents = new ArrayList<>(page.size());
        try (AbstractPipeline p = client.pipelined()) {
            for (int i = 0; i < page.size(); i++) {
                byte[] key = page.get(i).raw();
                boolean whole = sizes.get(i) == null || sizes.get(i).get() <= CHUNK;
                contents.add(!whole ? null : switch (types.get(i).get()) {
                    case "hash" -> p.hgetAll(key);
                    case "list" -> p.lrange(key, 0, -1);
                    case "zset" -> p.zrangeWithScores(key, 0, -1);
                    case "set" -> p.smembers(key);
                    case "string" -> p.get(key);
                    default -> null;
                });
            }
            p.sync();
        }
        try (AbstractPipeline p = client.pipelined()) {
            for (int i = 0; i < page.size(); i++) {
                byte[] key = page.get(i).raw();
                String type = types.get(i).get();
                if (type.equals("none")) {
                    continue;
                }
                byte[] target = concat(to, Arrays.copyOfRange(key, from.length, key.length));
                if (contents.get(i) == null) {
                    copyLarge(type, key, target);
                } else {
                    write(p, type, target, contents.get(i).get());
                }
                long ttl = ttls.get(i).get();
                if (ttl > 0) {
                    p.pexpire(target, ttl);
                }
                keys++;
            }
            p.sync();
        }
    }

    /** Queues the write of a key's whole contents as read (nothing when it emptied since its type was read). */
    @SuppressWarnings("unchecked")
    private void write(AbstractPipeline p, String type, byte[] target, Object contents) {
        switch (type) {
            case "hash" -> {
                Map<byte[], byte[]> fields = withParentQueue((Map<byte[], byte[]>) contents);
                if (!fields.isEmpty()) {
                    p.hset(target, fields);
                }
            }
            case "list" -> {
                List<byte[]> items = (List<byte[]>) contents;
                if (!items.isEmpty()) {
                    p.rpush(target, items.toArray(new byte[0][]));
                }
            }
            case "zset" -> {
                Map<byte[], Double> members = new LinkedHashMap<>();
                ((List<Tuple>) contents).forEach(t -> members.put(t.getBinaryElement(), t.getScore()));
                if (!members.isEmpty()) {
                    p.zadd(target, members);
                }
            }
            case "set" -> {
                java.util.Set<byte[]> members = (java.util.Set<byte[]>) contents;
                if (!members.isEmpty()) {
                    p.sadd(target, members.toArray(new byte[0][]));
                }
            }
            default -> {
                if (contents != null) {
                    p.set(target, (byte[]) contents);
                }
            }
        }
    }

    /** Copies a hash, list or zset of more than {@link #CHUNK} entries a chunk at a time. */
    private void copyLarge(String type, byte[] key, byte[] target) {
        switch (type) {
            case "hash" -> copyHash(key, target);
            case "list" -> copyList(key, target);
            default -> copyZset(key, target);
        }
    }

    /** A row's fields, its {@code parent_queue} pointed at the copy where it names the queue itself. */
    private Map<byte[], byte[]> withParentQueue(Map<byte[], byte[]> read) {
        byte[] self = queue.getBytes(StandardCharsets.UTF_8);
        Map<byte[], byte[]> fields = new LinkedHashMap<>();
        read.forEach((field, value) -> {
            boolean selfParent = Arrays.equals(field, PARENT_QUEUE) && Arrays.equals(value, self);
            fields.put(field, selfParent ? name.getBytes(StandardCharsets.UTF_8) : value);
        });
        return fields;
    }

    private void copyHash(byte[] key, byte[] target) {
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<Map.Entry<byte[], byte[]>> page = client.hscan(key, cursor, new ScanParams().count(CHUNK));
            Map<byte[], byte[]> read = new LinkedHashMap<>();
            page.getResult().forEach(f -> read.put(f.getKey(), f.getValue()));
            Map<byte[], byte[]> fields = withParentQueue(read);
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

    /**
     * Deletes every key of the copy, each page of the scan as it comes (a key the scan returned is deleted; one it
     * has yet to return is not, so every key is returned, and deleted, once).
     */
    @Override
    public void close() {
        scan(base(name), keys -> {
            for (int from = 0; from < keys.size(); from += CHUNK) {
                client.unlink(keys.subList(from, Math.min(keys.size(), from + CHUNK)).stream().map(Bytes::raw).toArray(byte[][]::new));
            }
        });
    }

    private void scan(byte[] base, Consumer<List<Bytes>> pages) {
        new KeyspaceScanner(client).scanKeys(Bytes.of(base), pages);
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
