package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.Planner;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Which v1 jobs get a branded id and a row, in rank order (the contract's mapping, §3). The jobs
 * come as lazy {@link Iterable}s over the snapshot's views: a million-job queue is walked, never
 * copied into a list; steps take them a batch at a time ({@link #inBatches}).
 */
final class Migratable {
    private Migratable() {
    }

    /**
     * Which jobs of a snapshot get a branded id and a row: the plan's rule ({@link Planner#getsIdentity}, {@link Planner#getsRow}),
     * orphans only with the anomalies accepted, less the orphans {@code unsettled}, which a read while v1 served cannot tell
     * from jobs added or moved as it read ({@link QueueMigration#rule}; none in any other read).
     */
    record Rule(boolean acceptAnomalies, Set<Bytes> unsettled) {
        /** The rule of a read that settles every orphan: a read under the v1 pause, or of a source at rest. */
        static Rule of(MigrationOptions options) {
            return new Rule(options.acceptAnomalies(), Set.of());
        }

        boolean getsIdentity(JobFacts j) {
            return Planner.getsIdentity(j, acceptAnomalies) && settled(j);
        }

        /**
         * Whether the job becomes a v2 row (the plan's rule), except a job a live v1 worker holds: it is never pending in
         * v2 while it is held (the last pass, under the v1 pause, waits for such locks or refuses the queue).
         */
        boolean getsRow(JobFacts j) {
            return Planner.getsRow(j, acceptAnomalies) && !held(j) && settled(j);
        }

        private boolean settled(JobFacts j) {
            return j.state() != V1State.UNKNOWN || !unsettled.contains(j.id());
        }
    }

    /** Jobs that get a branded id: every row-bearing job, plus completed flow children (for the parents' :processed). */
    static Iterable<JobFacts> identities(QueueSnapshot snap, Rule rule) {
        return select(List.of(snap.jobsInRankOrder()), rule::getsIdentity);
    }

    /** A job a live v1 worker holds. */
    static boolean held(JobFacts j) {
        return j.state() == V1State.ACTIVE && j.hasLiveLock();
    }

    /** Every row-bearing job, in rank order. */
    static Iterable<JobFacts> rows(QueueSnapshot snap, Rule rule) {
        return select(List.of(snap.jobsInRankOrder()), rule::getsRow);
    }

    /** The jobs that become rows ({@link #rows}) of which the snapshot met a logs list ({@link QueueSnapshot#hasLogs}). */
    static Iterable<JobFacts> rowsWithLogs(QueueSnapshot snap, Rule rule) {
        return select(List.of(snap.jobsInRankOrder()), j -> snap.hasLogs(j.id()) && rule.getsRow(j));
    }

    /**
     * How many jobs become rows ({@link #rows}), counted by state: whether a job gets a row depends on its
     * state alone ({@link Planner#getsRow}) but for an active one, which a live lock holds, and an orphan the rule
     * leaves unsettled; so only the active jobs are walked, and the orphans when some are unsettled.
     */
    static long rowCount(QueueSnapshot snap, Rule rule) {
        long n = 0;
        for (V1State s : V1State.values()) {
            List<JobFacts> jobs = snap.jobs(s);
            if (s == V1State.ACTIVE || s == V1State.UNKNOWN && !rule.unsettled().isEmpty()) {
                n += jobs.stream().filter(rule::getsRow).count();
            } else if (!jobs.isEmpty() && rule.getsRow(jobs.get(0))) {
                n += jobs.size();
            }
        }
        return n;
    }

    /** The row-bearing jobs of some v1 states, in each state's serve order. */
    static Iterable<JobFacts> rows(QueueSnapshot snap, List<V1State> states, Rule rule) {
        return select(states.stream().map(snap::jobs).toList(), rule::getsRow);
    }

    /**
     * The jobs of these views, one view after the other, that pass {@code keep}, one at a time. (Not a
     * stream: a {@code flatMap} pulled through an iterator buffers each whole inner stream.)
     */
    static Iterable<JobFacts> select(List<List<JobFacts>> views, Predicate<JobFacts> keep) {
        return () -> new Iterator<>() {
            private int view;
            private int next;
            private JobFacts ahead;

            @Override
            public boolean hasNext() {
                while (ahead == null && view < views.size()) {
                    List<JobFacts> jobs = views.get(view);
                    if (next < jobs.size()) {
                        JobFacts j = jobs.get(next++);
                        ahead = keep.test(j) ? j : null;
                    } else {
                        view++;
                        next = 0;
                    }
                }
                return ahead != null;
            }

            @Override
            public JobFacts next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                JobFacts j = ahead;
                ahead = null;
                return j;
            }
        };
    }

    /** Whether there are {@code n} items or fewer (it walks {@code n + 1} at most). */
    static boolean atMost(Iterable<?> items, int n) {
        Iterator<?> walk = items.iterator();
        for (int i = 0; i <= n; i++) {
            if (!walk.hasNext()) {
                return true;
            }
            walk.next();
        }
        return false;
    }

    /** Hands the items (jobs, queues, calls) on in lists of at most {@code size}; returns how many there were. */
    static <T> long inBatches(Iterable<T> items, int size, Consumer<List<T>> each) {
        List<T> batch = new ArrayList<>(size);
        long n = 0;
        for (T j : items) {
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
