package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.List;
import java.util.Optional;

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

    /** How many jobs there were, and the ids among them that follow from a job's rank ({@link FreshIds}; empty when none). */
    record Minted(long jobs, Optional<FreshIds> fresh) {
    }

    /**
     * Mints (or keeps) the ids of these jobs, in order. Its {@link Minted#fresh}: the first jobs given whose ranks
     * ({@link JobFacts#rank}) are their places among the jobs given (a snapshot's jobs in rank order up to the first
     * that gets no identity), as far as the client minted them, batch after batch from the first.
     */
    static Minted mint(QueueMigration m, Iterable<JobFacts> jobs) {
        try (JournalTransaction tx = new JournalTransaction(m, "ids watched")) {
            ClientMint inClient = new ClientMint(m.journal, tx);
            long[] walked = {0};
            long[] inRun = {0}; // as long as it is walked[0], every job so far is in the run
            long n = Migratable.inBatches(jobs, BATCH, batch -> {
                List<byte[]> v1Ids = batch.stream().map(j -> j.id().raw()).toList();
                boolean keeps = m.options.keepBrandedIds() && IdentityMap.keeps(v1Ids, true).indexOf('1') >= 0;
                boolean client = !keeps && inClient.minted(v1Ids);
                if (!client) {
                    m.journal.ids().assign(v1Ids, m.options.keepBrandedIds());
                }
                if (client && inRun[0] == walked[0]) {
                    inRun[0] += atTheirRanks(batch, walked[0]);
                }
                walked[0] += batch.size();
                m.checkpoints.hit("ids minted");
            });
            return new Minted(n, inRun[0] == 0 ? Optional.empty() : Optional.of(inClient.fresh(inRun[0])));
        }
    }

    /** How many jobs of this batch, which follows {@code before} jobs, have their place as their rank, from its first on. */
    private static int atTheirRanks(List<JobFacts> batch, long before) {
        int n = 0;
        while (n < batch.size() && batch.get(n).rank() == before + n + 1) {
            n++;
        }
        return n;
    }
}
