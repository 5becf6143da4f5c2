package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobSubKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Copies migrated jobs' {@code :logs} lists, in order, to {@code job:<id>:logs} (each replaced whole),
 * in batches, through the fenced {@code migrate_write}. Composed by the copy-logs step and by the
 * re-sync (the jobs it writes again).
 */
final class LogCopier {
    /** Jobs whose logs are read, then written, at once. */
    static final int BATCH = 256;
    static final List<String> CHECKPOINTS = List.of("logs read", "logs copied");

    private LogCopier() {
    }

    /** Copies the logs of these jobs; returns how many had logs. */
    static long copy(QueueMigration m, Iterable<JobFacts> jobs) {
        long[] copied = {0};
        Migratable.inBatches(jobs, BATCH, batch -> copied[0] += copyBatch(m, batch));
        return copied[0];
    }

    private static long copyBatch(QueueMigration m, List<JobFacts> batch) {
        List<byte[]> keys = batch.stream().map(j -> m.source.jobSubKey(j.id(), JobSubKind.LOGS).raw()).toList();
        if (m.sourceWire.existing(List.of(keys)).get(0) == 0) { // one EXISTS for the batch (a queue's keys share a slot)
            return 0;
        }
        List<String> types = m.sourceWire.types(keys);
        List<JobFacts> withLogs = new ArrayList<>();
        List<byte[]> logKeys = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if ("list".equals(types.get(i))) {
                withLogs.add(batch.get(i));
                logKeys.add(keys.get(i));
            }
        }
        if (withLogs.isEmpty()) {
            return 0;
        }
        List<List<byte[]>> logs = m.sourceWire.lists(logKeys);
        List<Optional<BrandedId>> ids = m.journal.ids().lookupV1(withLogs.stream().map(j -> j.id().raw()).toList());
        m.checkpoints.hit("logs read");
        TargetWrites w = new TargetWrites(m);
        for (int i = 0; i < withLogs.size(); i++) {
            if (ids.get(i).isEmpty()) {
                continue; // added after the ids were minted (v1 live): the re-sync copies its logs with it
            }
            String key = m.keys.job(ids.get(i).get(), JobSub.LOGS);
            w.del(key).rpush(key, logs.get(i));
        }
        w.flush();
        m.checkpoints.hit("logs copied");
        return withLogs.size();
    }
}
