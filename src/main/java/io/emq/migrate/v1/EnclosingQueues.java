package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queues whose bases enclose another's: with queues {@code a} and {@code a:b}, the key {@code bull:a:b:1} lies
 * under {@code a:b}'s base, but is job {@code b:1} of {@code a} when {@code a} lists that id (a custom id may hold a
 * colon). A queue's reader asks, of the job hashes it lists nowhere, whether a queue enclosing it lists them (then each
 * is that queue's job, not an orphan of this one, which would migrate it a second time or delete it at retirement);
 * and, of the jobs it lists under another queue's base, whether that queue lists them too (v1 serves them in both).
 * Each queue asked is read once for all the keys asked of it: each list whole, in one {@code LRANGE} (a walk in chunks
 * steps over an entry that a live worker's {@code LREM} nearer the head shifts across a chunk's end: an enclosing
 * queue is not paused), its zsets a pipeline of scores.
 */
final class EnclosingQueues {
    /** Scores asked in one pipeline. */
    static final int CHUNK = 10_000;

    private EnclosingQueues() {
    }

    /**
     * Of these job keys under {@code queue}'s base, those a queue enclosing it lists, each with the nearest such queue
     * (nothing is read when no queue encloses it).
     */
    static Map<Bytes, QueueRef> listedByEnclosing(UnifiedJedis jedis, KeySource<QueueRef> keys, QueueRef queue,
                                                  Collection<Bytes> jobKeys) {
        Map<Bytes, QueueRef> out = new HashMap<>();
        Set<Bytes> left = new HashSet<>(jobKeys);
        Optional<QueueRef> outer = enclosing(keys, queue);
        while (outer.isPresent() && !left.isEmpty()) {
            for (Bytes key : listedBy(jedis, outer.get(), left)) {
                out.put(key, outer.get());
            }
            left.removeAll(out.keySet());
            outer = enclosing(keys, outer.get());
        }
        return out;
    }

    /** The queue whose base is the longest one shorter than {@code inner}'s that it begins with. */
    private static Optional<QueueRef> enclosing(KeySource<QueueRef> keys, QueueRef inner) {
        Bytes base = inner.base();
        return keys.owner(base.slice(0, base.length() - 1));
    }

    /**
     * The queue nested in the queue of {@code base} under whose base that queue's job hash {@code key} lies, if any: only
     * a job whose id holds a colon can (the others are not looked up).
     */
    static Optional<QueueRef> nestedOwner(KeySource<QueueRef> keys, Bytes base, byte[] key) {
        return idHoldsAColon(key, base.length()) ? keys.owner(Bytes.of(key)).filter(q -> q.base().length() > base.length())
                : Optional.empty();
    }

    /** Whether the id of the job key {@code key}, past its queue's base of {@code base} bytes, holds a colon. */
    static boolean idHoldsAColon(byte[] key, int base) {
        for (int i = base; i < key.length; i++) {
            if (key[i] == ':') {
                return true;
            }
        }
        return false;
    }

    /** Of these job keys under {@code lister}'s base, those it lists (each as the key past its base) in a state structure. */
    static Set<Bytes> listedBy(UnifiedJedis jedis, QueueRef lister, Collection<Bytes> jobKeys) {
        Map<Bytes, Bytes> byId = new HashMap<>();
        jobKeys.forEach(k -> byId.put(k.dropPrefix(lister.base()), k));
        List<Response<String>> types = new ArrayList<>();
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            V1State.LISTED.forEach(s -> types.add(p.type(lister.key(s.wireName()).raw())));
            p.sync();
        }
        Set<Bytes> out = new HashSet<>();
        for (int i = 0; i < types.size(); i++) {
            byte[] structure = lister.key(V1State.LISTED.get(i).wireName()).raw();
            switch (KeyType.parse(types.get(i).get())) {
                case LIST -> jedis.lrange(structure, 0, -1).forEach(id -> Optional.ofNullable(byId.get(Bytes.of(id))).ifPresent(out::add));
                case ZSET -> {
                    List<Bytes> ids = new ArrayList<>(byId.keySet());
                    for (int from = 0; from < ids.size(); from += CHUNK) {
                        List<Bytes> some = ids.subList(from, Math.min(ids.size(), from + CHUNK));
                        List<Response<Double>> scores = new ArrayList<>();
                        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
                            some.forEach(id -> scores.add(p.zscore(structure, id.raw())));
                            p.sync();
                        }
                        for (int k = 0; k < some.size(); k++) {
                            if (scores.get(k).get() != null) {
                                out.add(byId.get(some.get(k)));
                            }
                        }
                    }
                }
                default -> { }
            }
        }
        return out;
    }
}
