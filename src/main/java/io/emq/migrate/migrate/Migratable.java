package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.Planner;
import java.util.List;

/** Which v1 jobs get a branded id and a row, in rank order (the contract's mapping, §3). */
final class Migratable {
    private Migratable() {
    }

    /** Jobs that get a branded id: every row-bearing job, plus completed flow children (for the parents' :processed). */
    static List<JobFacts> identities(QueueSnapshot snap, MigrationOptions options) {
        return snap.jobsInRankOrder().stream().filter(j -> getsIdentity(j, options)).toList();
    }

    static boolean getsIdentity(JobFacts j, MigrationOptions options) {
        return Planner.getsIdentity(j, options.acceptAnomalies());
    }

    /** Jobs that become v2 rows (the plan's rule, {@link Planner#getsRow}). */
    static boolean getsRow(JobFacts j, MigrationOptions options) {
        return Planner.getsRow(j, options.acceptAnomalies());
    }

    /** The row-bearing jobs of some v1 states, in each state's serve order. */
    static List<JobFacts> rows(QueueSnapshot snap, List<V1State> states, MigrationOptions options) {
        return states.stream().flatMap(s -> snap.jobs(s).stream()).filter(j -> getsRow(j, options)).toList();
    }
}
