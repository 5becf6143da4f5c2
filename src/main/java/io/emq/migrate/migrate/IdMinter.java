package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.List;

/**
 * Mints one branded id per job, in the order given (v1 serve order), in journal batches; ids already in
 * the journal are kept, so a crashed run resumes with the same ids. A batch of the clean case is minted
 * in the client, in a transaction ({@link ClientMint}), any other (and one whose transaction wrote
 * nothing) by {@code migrate_assign_ids}. Composed by the plan-identity step and by the re-sync (the jobs
 * added since).
 */
final class IdMinter {
    static final int BATCH = 1000;
    static final List<String> CHECKPOINTS = List.of("ids watched", "ids minted");

    private IdMinter() {
    }

    /** Mints (or keeps) the ids of these jobs, in order; returns how many jobs there were. */
    static long mint(QueueMigration m, Iterable<JobFacts> jobs) {
        try (JournalTransaction tx = new JournalTransaction(m, "ids watched")) {
            ClientMint inClient = new ClientMint(m.journal, tx);
            return Migratable.inBatches(jobs, BATCH, batch -> {
                List<byte[]> v1Ids = batch.stream().map(j -> j.id().raw()).toList();
                boolean keeps = m.options.keepBrandedIds() && IdentityMap.keeps(v1Ids, true).indexOf('1') >= 0;
                if (keeps || !inClient.minted(v1Ids)) {
                    m.journal.ids().assign(v1Ids, m.options.keepBrandedIds());
                }
                m.checkpoints.hit("ids minted");
            });
        }
    }
}
