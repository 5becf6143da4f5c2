package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import java.util.List;

/**
 * The v2 {@code metrics:completed} count of a migrated queue: the v1 completed jobs folded in once,
 * however often it is called (a fenced {@code migrate_count_completed}). Composed by the
 * count-completed step and by the re-sync.
 */
final class CompletedCount {
    private CompletedCount() {
    }

    /**
     * Makes metrics:completed hold the v1 completed jobs {@code listed} once, however often it is called. A count
     * this run folded last is not sent again: the script would write nothing (only a migrator holding the lease
     * writes what it folded, and abandon must take the lease first), and every pass calls it.
     */
    static void fold(QueueMigration m, long listed) {
        if (m.completedFolded == listed) {
            return;
        }
        m.targetWire.eval(new ScriptCall<>(Script.MIGRATE_COUNT_COMPLETED, List.of(Utf8.bytes(m.keys.meta()), Utf8.bytes(m.keys.metricsCompleted())),
                List.of(Utf8.bytes(m.journal.token()), Utf8.bytes(Long.toString(listed))), Replies::ignored));
        m.completedFolded = listed;
    }
}
