package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queues whose bases enclose another's: with queues {@code a} and {@code a:b}, the key {@code bull:a:b:1} lies
 * under {@code a:b}'s base, but is job {@code b:1} of {@code a} when {@code a} lists that id (a custom id may hold a
 * colon). A queue's reader asks, of a job hash it lists nowhere, whether a queue enclosing it lists it: then the hash
 * is that queue's job, not an orphan of this one (which would migrate it a second time, or delete it at retirement).
 */
final class EnclosingQueues {
    private EnclosingQueues() {
    }

    /**
     * The first queue, from the nearest out, whose base encloses {@code queue}'s and that lists the job at {@code key} (a
     * key under {@code queue}'s base) in one of its eight state structures (a structure of another type lists nothing).
     */
    static Optional<QueueRef> listing(UnifiedJedis jedis, KeySource<QueueRef> keys, QueueRef queue, Bytes key) {
        QueueRef inner = queue;
        while (true) {
            Optional<QueueRef> outer = keys.owner(key.slice(0, inner.base().length() - 1)); // a shorter base than inner's
            if (outer.isEmpty()) {
                return Optional.empty();
            }
            if (lists(jedis, outer.get(), key.dropPrefix(outer.get().base()))) {
                return outer;
            }
            inner = outer.get();
        }
    }

    /**
     * The queue nested in {@code queue} under whose base the job hash {@code key} of {@code queue} lies, when that queue
     * lists it too (its own id for it is the rest of the key): v1 serves the job in both. Only a job whose id holds a
     * colon can lie under another queue's base: the others are not looked up.
     */
    static Optional<QueueRef> nestedListing(UnifiedJedis jedis, KeySource<QueueRef> keys, QueueRef queue, byte[] key) {
        int base = queue.base().length();
        boolean colon = false;
        for (int i = base; i < key.length && !colon; i++) {
            colon = key[i] == ':';
        }
        if (!colon) {
            return Optional.empty();
        }
        Bytes job = Bytes.of(key);
        return keys.owner(job).filter(q -> q.base().length() > base).filter(q -> lists(jedis, q, job.dropPrefix(q.base())));
    }

    /** Whether a state structure of {@code queue} lists {@code id}: each structure's type, then one look in each list or zset. */
    private static boolean lists(UnifiedJedis jedis, QueueRef queue, Bytes id) {
        List<Response<String>> types = new ArrayList<>();
        try (AbstractPipeline p = jedis.pipelined()) {
            V1State.LISTED.forEach(s -> types.add(p.type(queue.key(s.wireName()).raw())));
            p.sync();
        }
        List<Response<?>> found = new ArrayList<>();
        try (AbstractPipeline p = jedis.pipelined()) {
            for (int i = 0; i < types.size(); i++) {
                byte[] structure = queue.key(V1State.LISTED.get(i).wireName()).raw();
                switch (KeyType.parse(types.get(i).get())) {
                    case LIST -> found.add(p.lpos(structure, id.raw()));
                    case ZSET -> found.add(p.zscore(structure, id.raw()));
                    default -> { }
                }
            }
            p.sync();
        }
        return found.stream().anyMatch(r -> r.get() != null);
    }
}
