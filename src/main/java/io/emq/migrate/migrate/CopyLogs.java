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

/** V9: each migrated job's {@code :logs} list is copied, in order, to {@code job:<id>:logs} (replaced whole). */
final class CopyLogs implements Step {
    @Override
    public Map<String, Long> apply(QueueMigration m) {
        List<JobFacts> jobs = m.snapshot().jobsInRankOrder().stream().filter(j -> Migratable.getsRow(j, m.options)).toList();
        return Map.of("logs", copy(m, jobs));
    }

    static long copy(QueueMigration m, List<JobFacts> jobs) {
        long copied = 0;
        for (int from = 0; from < jobs.size(); from += JobWriter.BATCH) {
            List<JobFacts> batch = jobs.subList(from, Math.min(jobs.size(), from + JobWriter.BATCH));
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
                continue;
            }
            List<Response<List<byte[]>>> logs = new ArrayList<>();
            try (AbstractPipeline p = m.sourceClient().pipelined()) {
                for (JobFacts j : withLogs) {
                    logs.add(p.lrange(m.source.jobSubKey(j.id(), JobSubKind.LOGS).raw(), 0, -1));
                }
                p.sync();
            }
            List<Optional<BrandedId>> ids = m.journal.lookupV1(withLogs.stream().map(j -> j.id().raw()).toList());
            try (AbstractPipeline p = m.targetClient().pipelined()) {
                for (int i = 0; i < withLogs.size(); i++) {
                    byte[] key = RowBuilder.bytes(m.keys.job(ids.get(i).orElseThrow(), JobSub.LOGS));
                    p.del(key);
                    p.rpush(key, logs.get(i).get().toArray(new byte[0][]));
                }
                p.sync();
            }
            m.checkpoints.hit("logs read");
            copied += withLogs.size();
            m.checkpoints.hit("logs copied");
        }
        return copied;
    }
}
