package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.Map;

/**
 * V20: mint one branded id per job in rank order (v1 serve order per state), in journal batches;
 * ids already in the journal are kept, so a crashed run resumes with the same ids.
 */
final class PlanIdentity implements Step {
    static final int BATCH = 1000;

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        long ids = mint(m, Migratable.identities(m.snapshot(), m.options));
        return Map.of("ids", ids, "hwm", m.journal.ids().highWaterMark());
    }

    /** Mints (or keeps) the ids of these jobs, in order; returns how many jobs there were. */
    static long mint(QueueMigration m, Iterable<JobFacts> jobs) {
        return Migratable.inBatches(jobs, BATCH, batch -> {
            m.journal.ids().assign(batch.stream().map(j -> j.id().raw()).toList(), m.options.keepBrandedIds());
            m.checkpoints.hit("ids minted");
        });
    }
}
