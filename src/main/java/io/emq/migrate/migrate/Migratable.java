package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.Planner;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Which v1 jobs get a branded id and a row, in rank order (the contract's mapping, §3). The jobs
 * come as lazy {@link Iterable}s over the snapshot's views: a million-job queue is walked, never
 * copied into a list; steps take them a batch at a time ({@link #inBatches}).
 */
final class Migratable {
    private Migratable() {
    }

    /** Jobs that get a branded id: every row-bearing job, plus completed flow children (for the parents' :processed). */
    static Iterable<JobFacts> identities(QueueSnapshot snap, MigrationOptions options) {
        return () -> snap.jobsInRankOrder().stream().filter(j -> getsIdentity(j, options)).iterator();
    }

    static boolean getsIdentity(JobFacts j, MigrationOptions options) {
        return Planner.getsIdentity(j, options.acceptAnomalies());
    }

    /** Jobs that become v2 rows (the plan's rule, {@link Planner#getsRow}). */
    static boolean getsRow(JobFacts j, MigrationOptions options) {
        return Planner.getsRow(j, options.acceptAnomalies());
    }

    /** Every row-bearing job, in rank order. */
    static Iterable<JobFacts> rows(QueueSnapshot snap, MigrationOptions options) {
        return () -> snap.jobsInRankOrder().stream().filter(j -> getsRow(j, options)).iterator();
    }

    /** The row-bearing jobs of some v1 states, in each state's serve order. */
    static Iterable<JobFacts> rows(QueueSnapshot snap, List<V1State> states, MigrationOptions options) {
        return () -> states.stream().flatMap(s -> snap.jobs(s).stream()).filter(j -> getsRow(j, options)).iterator();
    }

    /** Hands the jobs on in lists of at most {@code size}; returns how many there were. */
    static long inBatches(Iterable<JobFacts> jobs, int size, Consumer<List<JobFacts>> each) {
        List<JobFacts> batch = new ArrayList<>(size);
        long n = 0;
        for (JobFacts j : jobs) {
            batch.add(j);
            n++;
            if (batch.size() == size) {
                each.accept(batch);
                batch = new ArrayList<>(size);
            }
        }
        if (!batch.isEmpty()) {
            each.accept(batch);
        }
        return n;
    }
}
