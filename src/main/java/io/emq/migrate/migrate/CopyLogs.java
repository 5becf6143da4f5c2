package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/** V90: each migrated job's {@code :logs} list is copied, in order, to {@code job:<id>:logs} ({@link LogCopier}). */
final class CopyLogs implements Step {
    @Override
    public List<String> checkpoints() {
        return LogCopier.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return Map.of("logs", LogCopier.copy(m, Migratable.rows(m.snapshot(), m.options)));
    }
}
