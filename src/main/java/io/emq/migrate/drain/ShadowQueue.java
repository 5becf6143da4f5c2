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
import java.util.TreeMap;
import java.util.function.Consumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
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
 * in a few pipelines (not a round trip a key), at most a few MiB of payloads at once. {@link #close()}
 * deletes the copy; {@link #discard()} too, from another thread, while a copy or a drain of it may be under way.
 */
public final class ShadowQueue implements AutoCloseable {
    private static final int CHUNK = 1000;
    private static final byte[] PARENT_QUEUE = "parent_queue".getBytes(StandardCharsets.UTF_8);
    private static final byte[] PAYLOAD = "payload".getBytes(StandardCharsets.UTF_8);
    /** Payload bytes read in one pipeline, as the plan's reader bounds its own: a few rows of megabytes, not a thousand. */
    private static final long PIPELINE_BYTES = 4L << 20;
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The random bytes a copy's name ends with, in hex. */
    private static final int SUFFIX_BYTES = 3;

    private final UnifiedJedis client;
    private final String queue;
    private final String name;
    private long keys;
    /** Set by {@link #discard()}: the copy under way writes nothing more (a large key stops at its next chunk). */
    private volatile boolean discarded;
    /** Held by each write of the copy, so {@link #discard()} can wait for the one under way. */
    private final Object writing = new Object();

    private ShadowQueue(UnifiedJedis client, String queue, String name) {
        this.client = client;
        this.queue = queue;
        this.name = name;
    }

    /** A fresh shadow queue of {@code queue}, named but not copied yet ({@link #copy}); the caller closes it to delete the copy. */
    public static ShadowQueue of(UnifiedJedis client, String queue) {
        byte[] suffix = new byte[SUFFIX_BYTES];
        RANDOM.nextBytes(suffix);
        String name = queue + "-shadow-" + HexFormat.of().formatHex(suffix);
        if (!Names.isQueueName(name)) {
            throw new IllegalArgumentException("queue '" + queue + "' is too long for a shadow copy named after it");
        }
        return new ShadowQueue(client, queue, name);
    }

    /**
     * The scratch copies of {@code queue} on the server, by name, with how many keys each holds: one a shadow drain running
     * now is making or draining, or one a stopped drain could not delete (a process killed with SIGKILL runs no clean-up).
     * One walk of the keyspace, matching the copies' names ({@code <queue>-shadow-<six hex digits>}).
     */
    public static Map<String, Long> found(UnifiedJedis client, String queue) {
        Map<String, Long> copies = new TreeMap<>();
        String names = "emq:{" + queue + "-shadow-" + "[0-9a-f]".repeat(2 * SUFFIX_BYTES) + "}:*"; // their keys (Keys#base)
        new KeyspaceScanner(client).scanMatching(Bytes.utf8(names), page -> page.forEach(key -> {
            String k = key.display();
            copies.merge(k.substring(k.indexOf('{') + 1, k.indexOf("}:")), 1L, Long::sum);
        }));
        return copies;
    }

    /** The copy's v2 queue name. */
    public String name() {
        return name;
    }

    /** Keys copied. */
    public long keys() {
        return keys;
    }

    /** Copies the queue into this shadow queue. */
    public ShadowQueue copy() {
        byte[] from = base(queue);
        byte[] to = base(name);
        scan(from, page -> {
            for (int i = 0; i < page.size() && !discarded; i += CHUNK) {
                copyKeys(page.subList(i, Math.min(page.size(), i + CHUNK)), from, to);
            }
        });
        return this;
    }

    /** What the first two pipelines tell of a key: its type, TTL, entries (hash, list, zset) and payload bytes (hash, string). */
    private record Sized(String type, long ttl, long entries, long bytes) {
        /** Whether its contents are read in one command (else a chunk at a time). */
        boolean whole() {
            return entries <= CHUNK;
        }
    }

    /**
     * Copies these keys: two pipelines tell each one's type and TTL, then its size; then the keys are read and written
     * a group at a time, a pipeline each, each group at most {@link #PIPELINE_BYTES} of payloads (a row's
     * {@code payload}, a string), so rows of megabytes are held a few at a time; a hash, list or zset of more than
     * {@link #CHUNK} entries is read and written a chunk at a time. A key deleted since the scan saw it is skipped.
     */
    private void copyKeys(List<Bytes> page, byte[] from, byte[] to) {
        List<Response<String>> types = new ArrayList<>(page.size());
        List<Response<Long>> ttls = new ArrayList<>(page.size());
        try (AbstractPipeline p = CheckedPipeline.of(client)) {
            for (Bytes k : page) {
                types.add(p.type(k.raw()));
                ttls.add(p.pttl(k.raw()));
            }
            p.sync();
        }
        List<Response<Long>> entries = new ArrayList<>(page.size());
        List<Response<Long>> bytes = new ArrayList<>(page.size());
        try (AbstractPipeline p = CheckedPipeline.of(client)) {
            for (int i = 0; i < page.size(); i++) {
                byte[] key = page.get(i).raw();
                String type = types.get(i).get();
                entries.add(switch (type) {
                    case "hash" -> p.hlen(key);
                    case "list" -> p.llen(key);
                    case "zset" -> p.zcard(key);
                    case "string", "set", "none" -> null;
                    default -> throw new IllegalStateException("a shadow copy cannot hold " + page.get(i).display() + ", a " + type);
                });
                bytes.add(type.equals("hash") ? p.hstrlen(key, PAYLOAD) : type.equals("string") ? p.strlen(key) : null);
            }
            p.sync();
        }
        List<Sized> sized = new ArrayList<>(page.size());
        for (int i = 0; i < page.size(); i++) {
            sized.add(new Sized(types.get(i).get(), ttls.get(i).get(), entries.get(i) == null ? 0 : entries.get(i).get(),
                    bytes.get(i) == null ? 0 : bytes.get(i).get()));
        }
        int start = 0;
        long held = 0;
        for (int i = 0; i < page.size(); i++) {
            if (i > start && held + sized.get(i).bytes() > PIPELINE_BYTES) {
                copyGroup(page.subList(start, i), sized.subList(start, i), from, to);
                start = i;
                held = 0;
            }
            held += sized.get(i).bytes();
        }
        copyGroup(page.subList(start, page.size()), sized.subList(start, page.size()), from, to);
    }

    /** Reads these keys in one pipeline (each whole one's contents) and writes them in another. */
    private void copyGroup(List<Bytes> group, List<Sized> sized, byte[] from, byte[] to) {
        List<Response<?>> contents = new ArrayList<>(group.size());
        try (AbstractPipeline p = CheckedPipeline.of(client)) {
            for (int i = 0; i < group.size(); i++) {
                byte[] key = group.get(i).raw();
                contents.add(!sized.get(i).whole() ? null : switch (sized.get(i).type()) {
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
        writing(() -> {
            try (AbstractPipeline p = CheckedPipeline.of(client)) {
                for (int i = 0; i < group.size(); i++) {
                    byte[] key = group.get(i).raw();
                    String type = sized.get(i).type();
                    if (type.equals("none")) {
                        continue;
                    }
                    byte[] target = concat(to, Arrays.copyOfRange(key, from.length, key.length));
                    if (contents.get(i) == null) {
                        copyLarge(type, key, target);
                    } else {
                        write(p, type, target, contents.get(i).get());
                    }
                    if (sized.get(i).ttl() > 0) {
                        p.pexpire(target, sized.get(i).ttl());
                    }
                    keys++;
                }
                p.sync();
            }
        });
    }

    /** Runs a write of the copy, unless the copy was discarded. */
    private void writing(Runnable write) {
        synchronized (writing) {
            if (!discarded) {
                write.run();
            }
        }
    }

    /** Queues the write of a key's whole contents as read (nothing when it emptied since its type was read). */
    @SuppressWarnings("unchecked")
    private void write(AbstractPipeline p, String type, byte[] target, Object contents) {
        switch (type) {
            case "hash" -> {
                Map<byte[], byte[]> fields = withParentQueue(((Map<byte[], byte[]>) contents).entrySet());
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
    private Map<byte[], byte[]> withParentQueue(Iterable<Map.Entry<byte[], byte[]>> read) {
        byte[] self = queue.getBytes(StandardCharsets.UTF_8);
        Map<byte[], byte[]> fields = new LinkedHashMap<>();
        for (Map.Entry<byte[], byte[]> f : read) {
            boolean selfParent = Arrays.equals(f.getKey(), PARENT_QUEUE) && Arrays.equals(f.getValue(), self);
            fields.put(f.getKey(), selfParent ? name.getBytes(StandardCharsets.UTF_8) : f.getValue());
        }
        return fields;
    }

    private void copyHash(byte[] key, byte[] target) {
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<Map.Entry<byte[], byte[]>> page = client.hscan(key, cursor, new ScanParams().count(CHUNK));
            Map<byte[], byte[]> fields = withParentQueue(page.getResult());
            if (!fields.isEmpty()) {
                client.hset(target, fields);
            }
            cursor = page.getCursorAsBytes();
        } while (!discarded && !Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    }

    private void copyList(byte[] key, byte[] target) {
        long length = client.llen(key);
        for (long i = 0; i < length && !discarded; i += CHUNK) {
            List<byte[]> items = client.lrange(key, i, i + CHUNK - 1);
            if (!items.isEmpty()) {
                client.rpush(target, items.toArray(new byte[0][]));
            }
        }
    }

    private void copyZset(byte[] key, byte[] target) {
        long size = client.zcard(key);
        for (long i = 0; i < size && !discarded; i += CHUNK) {
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
        delete();
    }

    /**
     * Deletes the copy while the copy under way, or a drain of it, may still write to it (an operator stopped the process):
     * the copy writes nothing more (a write under way ends first), and a scan deletes what it finds until one finds
     * nothing, three at most (a drain's job in flight may settle into the copy meanwhile). Whether the copy is gone.
     */
    public boolean discard() {
        discarded = true;
        synchronized (writing) { // a write of the copy under way ends first: none lands after the passes below
        }
        for (int pass = 0; pass < 3; pass++) {
            if (delete() == 0) {
                return true;
            }
        }
        return false;
    }

    /** Deletes every key of the copy the scan finds: how many. */
    private long delete() {
        long[] deleted = {0};
        scan(base(name), page -> {
            for (int from = 0; from < page.size(); from += CHUNK) {
                deleted[0] += client.unlink(page.subList(from, Math.min(page.size(), from + CHUNK)).stream().map(Bytes::raw)
                        .toArray(byte[][]::new));
            }
        });
        return deleted[0];
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
