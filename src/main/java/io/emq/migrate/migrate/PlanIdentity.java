package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.List;
import java.util.Map;

/**
 * V2: mint one branded id per job in rank order (v1 serve order per state), in journal batches;
 * ids already in the journal are kept, so a crashed run resumes with the same ids.
 */
final class PlanIdentity implements Step {
    static final int BATCH = 1000;

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        List<JobFacts> jobs = Migratable.identities(m.snapshot(), m.options);
        mint(m, jobs);
        return Map.of("ids", (long) jobs.size(), "hwm", m.journal.highWaterMark());
    }

    static void mint(QueueMigration m, List<JobFacts> jobs) {
        for (int from = 0; from < jobs.size(); from += BATCH) {
            List<byte[]> ids = jobs.subList(from, Math.min(jobs.size(), from + BATCH)).stream()
                    .map(j -> j.id().raw()).toList();
            m.journal.assignIds(ids, m.options.keepBrandedIds());
            m.checkpoints.hit("ids minted");
        }
    }
}
