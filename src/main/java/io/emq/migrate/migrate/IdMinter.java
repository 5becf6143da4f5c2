package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.List;

/**
 * Mints one branded id per job, in the order given (v1 serve order), in journal batches; ids already in
 * the journal are kept, so a crashed run resumes with the same ids. Composed by the plan-identity step
 * and by the re-sync (the jobs added since).
 */
final class IdMinter {
    static final int BATCH = 1000;
    static final List<String> CHECKPOINTS = List.of("ids minted");

    private IdMinter() {
    }

    /** Mints (or keeps) the ids of these jobs, in order; returns how many jobs there were. */
    static long mint(QueueMigration m, Iterable<JobFacts> jobs) {
        return Migratable.inBatches(jobs, BATCH, batch -> {
            m.journal.ids().assign(batch.stream().map(j -> j.id().raw()).toList(), m.options.keepBrandedIds());
            m.checkpoints.hit("ids minted");
        });
    }
}
