package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The id bases the journals of a target hold (see {@link Rebrand}), read once per run with one
 * pipeline, and handed out one queue at a time: a queue gets its own base (CRC32 of its v2 name) or
 * the next one no other queue holds. One object serves every queue of a run, so queues migrated
 * at once never take the same base, and a run of many queues reads the journals once, not once a queue.
 */
final class IdBases {
    private final Map<Long, String> holders = new HashMap<>();

    /** From the headers of the journals of {@code queues}: every queue with a journal on {@code target}. */
    IdBases(Wire target, List<String> queues) {
        List<List<byte[]>> bases = target.hmget(queues.stream().map(q -> Utf8.bytes(Keys.migrationJournal(q))).toList(),
                List.of(Utf8.bytes(JournalHeader.ID_BASE.name())));
        for (int i = 0; i < queues.size(); i++) {
            byte[] base = bases.get(i).get(0);
            if (base != null) {
                holders.put(Long.parseLong(Replies.asText(base)), queues.get(i));
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
