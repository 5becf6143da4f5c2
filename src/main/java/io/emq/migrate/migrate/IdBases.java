package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * The id bases the journals of a target hold (see {@link Rebrand}), read once per run with one
 * pipeline, and handed out one queue at a time: a queue gets its own base (CRC32 of its v2 name) or
 * the next one no other queue holds. One object serves every queue of a run, so queues migrated
 * at once never take the same base, and a run of many queues reads the journals once, not once a queue.
 */
final class IdBases {
    private final Map<Long, String> holders = new HashMap<>();

    IdBases(Wire target) {
        List<String> queues = Journals.queues(target);
        List<Response<String>> bases = new ArrayList<>(queues.size());
        try (AbstractPipeline p = target.client().pipelined()) {
            for (String q : queues) {
                bases.add(p.hget(Keys.migrationJournal(q), "id_base"));
            }
            p.sync();
        }
        for (int i = 0; i < queues.size(); i++) {
            String base = bases.get(i).get();
            if (base != null) {
                holders.put(Long.parseLong(base), queues.get(i));
            }
        }
    }

    /** The base for {@code queue}: its own unless another queue holds it, then the next free one; held from now on. */
    synchronized long claim(String queue) {
        long base = Rebrand.idBase(queue);
        while (holders.containsKey(base) && !holders.get(base).equals(queue)) {
            base = (base + 1) % Rebrand.BASES;
        }
        holders.put(base, queue);
        return base;
    }
}
