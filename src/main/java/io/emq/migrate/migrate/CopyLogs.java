package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * V90: each migrated job's {@code :logs} list is copied, in order, to {@code job:<id>:logs} ({@link LogCopier}).
 * Nothing is asked of the source when this run's fence began the change feed's watch and its read met no logs
 * list or flow key ({@link QueueMigration#noExtrasAtFence}): then V30-V50 read that same snapshot's jobs with no logs
 * ({@link Absorb}), so the digest they recorded of a job that has a logs list now (created since the scan,
 * which the feed tells) is not its digest now, and the catch-up copies that job again, its logs with it.
 */
final class CopyLogs implements Step {
    @Override
    public List<String> checkpoints() {
        return LogCopier.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        if (m.watch.isPresent() && m.noExtrasAtFence) {
            return Map.of("logs", 0L);
        }
        return Map.of("logs", LogCopier.copy(m, Migratable.rows(m.snapshot(), m.options)));
    }
}
