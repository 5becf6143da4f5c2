package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.UnifiedJedis;

/**
 * One {@code SCAN} of the keyspace that serves every queue asking for its keys at about the same
 * time, instead of one whole-keyspace {@code SCAN MATCH} per queue (each costs the server the whole
 * keyspace, so many queues cost queues x keys). A queue's keys always come from a scan that
 * <em>started after it asked</em>: a scan already running when a queue asks does not serve it; the
 * queue waits for the next one, which serves every queue that asked meanwhile. So a reader sees
 * exactly what a scan of its own, started at that moment, would see. Queues asking one after
 * another (one thread) get one scan each, as before; queues read at once ({@code --parallel}) share.
 * Keys are handed over per queue (the owner is the longest known base, as {@link QueueBases} says);
 * a queue with more than {@link #MAX_KEYS} keys is told to scan alone, so memory stays bounded.
 */
public final class SharedScan {
    /** The most keys a queue's share of a scan holds; a larger queue scans its own keys, a batch at a time. */
    static final int MAX_KEYS = 100_000;

    private final UnifiedJedis jedis;
    private final QueueBases bases;
    private final int maxKeys;
    private Round next = new Round();
    private boolean scanning;

    public SharedScan(UnifiedJedis jedis, QueueBases bases) {
        this(jedis, bases, MAX_KEYS);
    }

    SharedScan(UnifiedJedis jedis, QueueBases bases, int maxKeys) {
        this.jedis = jedis;
        this.bases = bases;
        this.maxKeys = maxKeys;
    }

    /**
     * The keys under {@code queue}'s base that it owns, from a scan started after this call; empty
     * when the queue holds more than the share allows (the caller then scans alone).
     */
    public Optional<List<Bytes>> keysOf(QueueRef queue) {
        Round mine;
        synchronized (this) {
            mine = next;
            mine.asking.add(queue);
            while (scanning && !mine.done) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the key scan", e);
                }
            }
            if (mine.done) {
                return mine.take(queue);
            }
            scanning = true;
            next = new Round();
        }
        try {
            mine.run();
        } finally {
            synchronized (this) {
                mine.done = true;
                scanning = false;
                notifyAll();
            }
        }
        return mine.take(queue);
    }

    /** The queues one scan serves and the keys it found for each. */
    private final class Round {
        final Set<QueueRef> asking = new HashSet<>();
        final Map<QueueRef, List<Bytes>> keys = new HashMap<>();
        final Set<QueueRef> overflowed = new HashSet<>();
        boolean done;
        RuntimeException failed;

        void run() {
            try {
                Set<Bytes> prefixes = new HashSet<>();
                for (QueueRef q : asking) {
                    prefixes.add(q.prefix().concat(":"));
                    keys.put(q, new ArrayList<>());
                }
                KeyspaceScanner scanner = new KeyspaceScanner(jedis);
                for (Bytes prefix : prefixes) {
                    scanner.scanKeys(prefix, batch -> batch.forEach(this::sort));
                }
            } catch (RuntimeException e) {
                failed = e;
            }
        }

        private void sort(Bytes key) {
            bases.owner(key).ifPresent(q -> {
                List<Bytes> share = keys.get(q);
                if (share == null || overflowed.contains(q)) {
                    return;
                }
                if (share.size() == maxKeys) {
                    overflowed.add(q);
                    keys.put(q, List.of());
                    return;
                }
                share.add(key);
            });
        }

        synchronized Optional<List<Bytes>> take(QueueRef q) {
            if (failed != null) {
                throw failed;
            }
            return overflowed.contains(q) ? Optional.empty() : Optional.of(keys.get(q));
        }
    }
}
