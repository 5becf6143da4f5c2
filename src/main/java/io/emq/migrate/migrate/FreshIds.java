package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.plan.Rebrand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The ids V20 minted in this run that follow from a job's rank alone: the jobs of ranks 1 to {@code ranks}
 * of the snapshot it minted from each got an identity, and the client minted them ({@link ClientMint}) in
 * one unbroken run of ranks from {@code first}, so the job of rank r holds
 * {@code JOB} + base62 of {@code base × 2^36 + first - 1 + r}. Each of those ranks is above the high-water
 * mark the journal held before (it never reuses one), and a v2 minter's ids are far above every rank
 * ({@link Rebrand}): so no row of any of them existed before this run, and one is new until this run
 * writes it ({@link QueueMigration#freshIds} holds these only while that is known).
 */
record FreshIds(long base, long first, long ranks) {
    /** The ids of these jobs of the snapshot V20 minted from, in order; empty unless every one's rank is in the run. */
    Optional<List<Optional<BrandedId>>> of(List<JobFacts> jobs) {
        List<Optional<BrandedId>> ids = new ArrayList<>(jobs.size());
        for (JobFacts job : jobs) {
            if (job.rank() < 1 || job.rank() > ranks) {
                return Optional.empty();
            }
            ids.add(Optional.of(BrandedId.job(base << Rebrand.RANK_BITS | first - 1 + job.rank())));
        }
        return Optional.of(ids);
    }
}
