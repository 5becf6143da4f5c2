package io.emq.migrate.drain;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.KeyspaceScanner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.RestoreParams;

/**
 * A scratch copy of a queue on the same target, for a drain that must not consume production work
 * ({@code drain --shadow}). Every key of {@code emq:{q}:} (rows and their subkeys, the sets, lanes,
 * ring and lane settings, meta, schedulers, dedup keys) is copied with {@code DUMP}/{@code RESTORE}
 * (TTLs kept) under {@code emq:{q.shadow-<n>}:}; the real queue is only read. Two things are not
 * copied as they are, because the copy must never write outside itself: every row's
 * {@code parent_queue} names the copy (a flow parent in another queue is then absent from the copy,
 * so a child's completion records nothing real), and the {@code flow:outbox} is left out (its
 * entries name real parents). The copy is resumed ({@code meta.paused} dropped): it exists to be
 * drained. {@link #close()} deletes every key of the copy.
 */
final class ShadowQueue implements AutoCloseable {
    private final UnifiedJedis client;
    private final String name;

    private ShadowQueue(UnifiedJedis client, String name) {
        this.client = client;
        this.name = name;
    }

    /** Copies {@code queue} into a fresh scratch queue. */
    static ShadowQueue copy(UnifiedJedis client, String queue) {
        String name = freshName(client, queue);
        ShadowQueue shadow = new ShadowQueue(client, name);
        String from = Keys.queue(queue).base();
        String to = Keys.queue(name).base();
        byte[] outbox = bytes(Keys.queue(queue).flowOutbox());
        try {
            new KeyspaceScanner(client).scanKeys(Bytes.of(bytes(from)), keys -> {
                for (Bytes k : keys) {
                    if (!Arrays.equals(k.raw(), outbox)) {
                        copyKey(client, k.raw(), renamed(k.raw(), from, to));
                    }
                }
            });
            pointParentsAtTheCopy(client, to, name);
            client.hdel(Keys.queue(name).meta(), "paused");
        } catch (RuntimeException e) {
            shadow.close();
            throw e;
        }
        return shadow;
    }

    /** The scratch queue's name. */
    String name() {
        return name;
    }

    /** Deletes every key of the copy. */
    @Override
    public void close() {
        List<byte[]> keys = new ArrayList<>();
        new KeyspaceScanner(client).scanKeys(Bytes.of(bytes(Keys.queue(name).base())),
                batch -> batch.forEach(k -> keys.add(k.raw())));
        for (byte[] k : keys) {
            client.del(k);
        }
    }

    private static String freshName(UnifiedJedis client, String queue) {
        for (int n = 1; ; n++) {
            String candidate = queue + ".shadow-" + n;
            List<Bytes> taken = new ArrayList<>();
            new KeyspaceScanner(client).scanKeys(Bytes.of(bytes(Keys.queue(candidate).base())), taken::addAll);
            if (taken.isEmpty()) {
                return candidate;
            }
        }
    }

    private static void copyKey(UnifiedJedis client, byte[] from, byte[] to) {
        byte[] dump = client.dump(from);
        if (dump == null) {
            return;
        }
        long ttl = client.pttl(from);
        client.restore(to, Math.max(ttl, 0), dump, RestoreParams.restoreParams().replace());
    }

    private static void pointParentsAtTheCopy(UnifiedJedis client, String base, String name) {
        List<byte[]> rows = new ArrayList<>();
        new KeyspaceScanner(client).scanKeys(Bytes.of(bytes(base + "job:")), batch -> {
            for (Bytes k : batch) {
                if (k.utf8().chars().filter(c -> c == ':').count() == 3) {
                    rows.add(k.raw());
                }
            }
        });
        byte[] field = bytes("parent_queue");
        for (byte[] row : rows) {
            if (client.hexists(row, field)) {
                client.hset(row, field, bytes(name));
            }
        }
    }

    private static byte[] renamed(byte[] key, String from, String to) {
        String k = new String(key, StandardCharsets.UTF_8);
        return bytes(to + k.substring(from.length()));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
