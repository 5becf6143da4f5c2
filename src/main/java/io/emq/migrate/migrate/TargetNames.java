package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.plan.V2Names;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Optional;

/**
 * What a target holds under a v2 queue name, with reads only ({@code HMGET}, {@code EXISTS}): a
 * migration journal (unless abandoned) and the v1 queue it records, or a v2 queue's own keys.
 */
public final class TargetNames {
    private TargetNames() {
    }

    /** The lookup {@link V2Names} asks of the target. */
    public static Optional<V2Names.Holder> holder(Wire target, String name) {
        JournalHeader journal = new Journal(target, name).header();
        Optional<String> v1 = journal.get(JournalHeader.V1_QUEUE);
        if (v1.isPresent() && journal.get(JournalHeader.STATE).filter(s -> s == MigrationState.ABANDONED).isEmpty()) {
            return Optional.of(new V2Names.Holder.Migration(v1.get()));
        }
        Keys keys = Keys.queue(name);
        for (String key : List.of(keys.meta(), keys.pending(), keys.active(), keys.schedule(), keys.dead())) {
            if (target.exists(Utf8.bytes(key))) {
                return Optional.of(new V2Names.Holder.NativeQueue());
            }
        }
        return Optional.empty();
    }
}
