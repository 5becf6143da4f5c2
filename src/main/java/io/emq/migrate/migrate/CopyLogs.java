package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueSnapshot;
import java.util.List;
import java.util.Map;

/**
 * V90: each migrated job's {@code :logs} list is copied, in order, to {@code job:<id>:logs} ({@link LogCopier}).
 * When this run's fence began the change feed's watch and its read met no flow key
 * ({@link QueueMigration#noFlowKeysAtFence}), only the jobs that read met a logs list of are asked about: V30-V50
 * read that same snapshot's other jobs as jobs with no logs ({@link SourceFence#asScanned}), so the digest they
 * recorded of such a job that has a logs list now (created since the scan, which the feed tells) is not its digest
 * now, and the catch-up copies that job again, its logs with it.
 */
final class CopyLogs implements Step {
    @Override
    public List<String> checkpoints() {
        return LogCopier.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        QueueSnapshot read = m.snapshot();
        boolean byTheScan = m.watch.isPresent() && m.noFlowKeysAtFence;
        return Map.of("logs", LogCopier.copy(m, byTheScan ? Migratable.rowsWithLogs(read, m.rule()) : Migratable.rows(read, m.rule())));
    }
}
