package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;

/**
 * One {@code SCAN} of the keyspace that serves every queue asking for its keys at about the same
 * time, instead of one whole-keyspace {@code SCAN MATCH} per queue (each costs the server the whole
 * keyspace, so many queues cost queues x keys). A queue's keys always come from a scan that
 * <em>started after it asked</em>: a scan already running when a queue asks does not serve it; the
 * queue waits for the next one, which serves every queue that asked meanwhile. So a caller sees
 * exactly what a scan of its own, started at that moment, would see. A queue that is alone in asking
 * (one thread, or no other queue asked meanwhile) scans alone, a page at a time, holding nothing;
 * queues read at once ({@code --parallel}) share. A queue with more than {@link #MAX_KEYS} keys in a
 * shared round scans alone after it, and a round holds at most {@link #ROUND_KEYS} keys (beyond that
 * its largest shares are dropped and those queues scan alone), so memory stays bounded however many
 * queues a round serves.
 *
 * <p>With {@link #stepAsideWith(WorkPermits) work permits} (the migrator's {@code --parallel N}), a
 * caller gives its permit back once it has asked, while its round runs or is awaited, and takes one
 * again before it goes on; and the first caller to ask for the next round starts it only when no
 * caller is at work: so a round serves every queue in flight, not the few that asked while the last
 * round ran.
 *
 * @param <Q> how a queue is named: a {@link QueueRef} on the v1 source, a v2 name on the target
 */
public final class SharedScan<Q> implements KeySource<Q> {
    /** The most keys a queue's share of a scan holds; a larger queue scans its own keys, a page at a time. */
    static final int MAX_KEYS = 100_000;
    /** The most keys one round holds for all the queues it serves. */
    static final int ROUND_KEYS = 1_000_000;
    /** How often the first caller of a round looks whether everyone else has asked too. */
    static final long GATHER_MS = 5;
    private static final Bytes V2_START = Bytes.utf8("emq:{");
    private static final Bytes V2_END = Bytes.utf8("}:");

    private final UnifiedJedis jedis;
    private final Function<Bytes, Optional<Q>> owner;
    private final Function<Q, Bytes> sharedStart;
    private final Function<Q, Bytes> ownStart;
    private final int maxKeys;
    /** Whether a queue's scan of its own asks for its next page before it hands a page over ({@link KeyspaceScanner#askingAhead}). */
    private final boolean askAhead;
    private final Optional<WorkPermits> permits;
    private Round next = new Round();
    private boolean scanning;

    SharedScan(UnifiedJedis jedis, Function<Bytes, Optional<Q>> owner, Function<Q, Bytes> sharedStart,
               Function<Q, Bytes> ownStart, int maxKeys) {
        this(jedis, owner, sharedStart, ownStart, maxKeys, false, Optional.empty());
    }

    private SharedScan(UnifiedJedis jedis, Function<Bytes, Optional<Q>> owner, Function<Q, Bytes> sharedStart,
                       Function<Q, Bytes> ownStart, int maxKeys, boolean askAhead, Optional<WorkPermits> permits) {
        this.permits = permits;
        this.jedis = jedis;
        this.owner = owner;
        this.sharedStart = sharedStart;
        this.ownStart = ownStart;
        this.maxKeys = maxKeys;
        this.askAhead = askAhead;
    }

    /** The v1 source's queues: a key belongs to the queue with the longest base it starts with ({@link QueueBases}). */
    public static SharedScan<QueueRef> v1(UnifiedJedis jedis, QueueBases bases) {
        return new SharedScan<>(jedis, bases::owner, q -> q.prefix().concat(":"), QueueRef::base, MAX_KEYS);
    }

    /**
     * The v2 target's queues ({@code emq:{name}:…}). A cluster cannot be scanned in one {@code SCAN}, so
     * there each queue scans its own slot's node alone, as before. On a standalone server a queue that
     * scans alone asks for its next page before it hands a page over, so the server walks the keyspace
     * while the caller (verification's reader) decodes and hands on the page before; the scan holds a
     * connection of the pool meanwhile.
     */
    public static SharedScan<String> v2(UnifiedJedis jedis, boolean cluster) {
        return new SharedScan<>(jedis, SharedScan::v2Owner, q -> V2_START, q -> Bytes.utf8("emq:{" + q + "}:"),
                cluster ? 0 : MAX_KEYS, !cluster, Optional.empty());
    }

    /**
     * This scan, for callers that each hold one of {@code permits} while they work: a caller gives
     * its permit back once it has asked, and takes one again when its keys are there.
     */
    public SharedScan<Q> stepAsideWith(WorkPermits permits) {
        return new SharedScan<>(jedis, owner, sharedStart, ownStart, maxKeys, askAhead, Optional.of(permits));
    }

    private static Optional<String> v2Owner(Bytes key) {
        if (!key.startsWith(V2_START)) {
            return Optional.empty();
        }
        byte[] raw = key.raw();
        for (int i = V2_START.length(); i + 1 < raw.length; i++) {
            if (raw[i] == '}') {
                return raw[i + 1] == ':' ? Optional.of(key.slice(V2_START.length(), i).display()) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<Q> owner(Bytes key) {
        return owner.apply(key);
    }

    /**
     * The keys {@code queue} owns, in batches, from a scan started after this call: its share of a
     * shared scan, or (a queue too large to share) a scan of its own.
     */
    @Override
    public void keysOf(Q queue, Consumer<List<Bytes>> batches) {
        Optional<List<Bytes>> shared = maxKeys == 0 ? Optional.empty() : share(queue);
        if (shared.isPresent()) {
            List<Bytes> keys = shared.get();
            for (int from = 0; from < keys.size(); from += KeyspaceScanner.BATCH) {
                batches.accept(keys.subList(from, Math.min(keys.size(), from + KeyspaceScanner.BATCH)));
            }
            return;
        }
        KeyspaceScanner scanner = new KeyspaceScanner(jedis);
        (askAhead ? scanner.askingAhead() : scanner).scanKeys(ownStart.apply(queue), page -> {
            List<Bytes> mine = new ArrayList<>(page.size());
            for (Bytes key : page) {
                if (owner.apply(key).map(queue::equals).orElse(false)) {
                    mine.add(key);
                }
            }
            if (!mine.isEmpty()) {
                batches.accept(mine);
            }
        });
    }

    /** The queue's share of the next scan to start, or empty when it scans alone: alone in asking, or its keys do not fit a share. */
    Optional<List<Bytes>> share(Q queue) {
        Round mine;
        boolean leads;
        boolean alone = false;
        try {
            synchronized (this) {
                mine = next;
                leads = mine.asking.isEmpty();
                mine.asking.add(queue);
                permits.ifPresent(WorkPermits::leave); // after asking: a round that starts now serves this queue
                while (leads ? scanning || !everyoneAsked() : !mine.done) {
                    try {
                        wait(leads ? GATHER_MS : 0);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while waiting for the key scan", e);
                    }
                }
                if (leads) {
                    alone = mine.asking.size() == 1;
                    scanning = !alone;
                    next = new Round();
                }
            }
            if (leads && !alone) {
                runRound(mine);
            }
        } finally {
            permits.ifPresent(WorkPermits::enter);
        }
        return alone ? Optional.empty() : mine.take(queue);
    }

    /** Whether no caller is at work, so none will ask for the next round before it starts. */
    private boolean everyoneAsked() {
        return permits.map(WorkPermits::idle).orElse(true);
    }

    private void runRound(Round round) {
        try {
            round.run();
        } finally {
            synchronized (this) {
                round.done = true;
                scanning = false;
                notifyAll();
            }
        }
    }

    /** The queues one scan serves and the keys it found for each. */
    private final class Round {
        final Set<Q> asking = new HashSet<>();
        final Map<Q, List<Bytes>> keys = new HashMap<>();
        final Set<Q> overflowed = new HashSet<>();
        int held;
        boolean done;
        RuntimeException failed;

        void run() {
            try {
                Set<Bytes> starts = new HashSet<>();
                for (Q q : asking) {
                    starts.add(sharedStart.apply(q));
                    keys.put(q, new ArrayList<>());
                }
                KeyspaceScanner scanner = new KeyspaceScanner(jedis);
                for (Bytes start : starts) {
                    scanner.scanKeys(start, batch -> batch.forEach(this::sort));
                }
            } catch (RuntimeException e) {
                failed = e;
            }
        }

        private void sort(Bytes key) {
            owner.apply(key).ifPresent(q -> {
                List<Bytes> share = keys.get(q);
                if (share == null || overflowed.contains(q)) {
                    return;
                }
                if (share.size() == maxKeys) {
                    overflow(q);
                    return;
                }
                share.add(key);
                if (++held > ROUND_KEYS) {
                    keys.entrySet().stream().filter(e -> !overflowed.contains(e.getKey()))
                            .max((a, b) -> Integer.compare(a.getValue().size(), b.getValue().size()))
                            .ifPresent(largest -> overflow(largest.getKey()));
                }
            });
        }

        private void overflow(Q q) {
            held -= keys.get(q).size();
            overflowed.add(q);
            keys.put(q, List.of());
        }

        synchronized Optional<List<Bytes>> take(Q q) {
            if (failed != null) {
                throw failed;
            }
            return overflowed.contains(q) ? Optional.empty() : Optional.of(keys.get(q));
        }
    }
}
