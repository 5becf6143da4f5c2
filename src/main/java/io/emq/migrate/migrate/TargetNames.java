package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.plan.V2Names;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a target holds under a v2 queue name, with reads only ({@code HMGET}, {@code EXISTS}): a
 * migration journal (unless abandoned) and the v1 queue it records, or a v2 queue's own keys.
 */
public final class TargetNames {
    private TargetNames() {
    }

    /** The lookup {@link V2Names} asks of the target. */
    public static Optional<V2Names.Holder> holder(UnifiedJedis target, String name) {
        List<String> journal = target.hmget(Keys.migrationJournal(name), "v1_queue", Journal.STATE);
        String state = journal.get(1);
        if (journal.get(0) != null && !Journal.State.ABANDONED.wireName().equals(state)) {
            return Optional.of(new V2Names.Holder.Migration(journal.get(0)));
        }
        Keys keys = Keys.queue(name);
        for (String key : List.of(keys.meta(), keys.pending(), keys.active(), keys.schedule(), keys.dead())) {
            if (target.exists(key)) {
                return Optional.of(new V2Names.Holder.NativeQueue());
            }
        }
        return Optional.empty();
    }
}
