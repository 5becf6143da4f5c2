package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobSubKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/** V90: each migrated job's {@code :logs} list is copied, in order, to {@code job:<id>:logs} (replaced whole). */
final class CopyLogs implements Step {
    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return Map.of("logs", copy(m, Migratable.rows(m.snapshot(), m.options)));
    }

    static long copy(QueueMigration m, Iterable<JobFacts> jobs) {
        long[] copied = {0};
        Migratable.inBatches(jobs, JobWriter.BATCH, batch -> copied[0] += copyBatch(m, batch));
        return copied[0];
    }

    private static long copyBatch(QueueMigration m, List<JobFacts> batch) {
        List<Response<String>> types = new ArrayList<>();
        try (AbstractPipeline p = m.sourceClient().pipelined()) {
            for (JobFacts j : batch) {
                types.add(p.type(m.source.jobSubKey(j.id(), JobSubKind.LOGS).raw()));
            }
            p.sync();
        }
        List<JobFacts> withLogs = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if ("list".equals(types.get(i).get())) {
                withLogs.add(batch.get(i));
            }
        }
        if (withLogs.isEmpty()) {
            return 0;
        }
        List<Response<List<byte[]>>> logs = new ArrayList<>();
        try (AbstractPipeline p = m.sourceClient().pipelined()) {
            for (JobFacts j : withLogs) {
                logs.add(p.lrange(m.source.jobSubKey(j.id(), JobSubKind.LOGS).raw(), 0, -1));
            }
            p.sync();
        }
        List<Optional<BrandedId>> ids = m.journal.ids().lookupV1(withLogs.stream().map(j -> j.id().raw()).toList());
        m.checkpoints.hit("logs read");
        TargetWrites w = new TargetWrites(m);
        for (int i = 0; i < withLogs.size(); i++) {
            String key = m.keys.job(ids.get(i).orElseThrow(), JobSub.LOGS);
            w.del(key).rpush(key, logs.get(i).get());
        }
        w.flush();
        m.checkpoints.hit("logs copied");
        return withLogs.size();
    }
}
