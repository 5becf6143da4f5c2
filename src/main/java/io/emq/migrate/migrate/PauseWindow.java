package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueSnapshot;

/**
 * The estimate {@code plan} gives of a queue's pause window: how long its v1 queue stays paused, from
 * the pause in V120 until the v2 queue serves. The bulk is copied, re-synced and verified while v1
 * serves, and V120 catches up again and proves those rows just before it pauses; under the pause the
 * last pass still walks the listings of every job and checks each against what the pass before read
 * ({@link InLine}), and looks up in the journal only the jobs touched or added since (every job when the
 * change feed broke), so the window still grows with the queue, slowly (the guard of that read and the
 * retirement of the structures are O(1): {@link SourceGuard}). The estimate is the jobs times the cost
 * per job {@code bench/run-migration} measured (bench/RESULTS.md).
 */
public final class PauseWindow {
    /**
     * The window per job, rounded up from what {@code bench/run-migration --jobs 1000000 --producer 1000}
     * measured on the tree that caught up before the pause: 997 ms for 1,079,560 jobs at load average 1.2
     * (0.92 µs a job) and 1,702 ms for 1,123,913 jobs at load average 8 (1.5 µs a job). A producer adds the
     * jobs it added during the last live pass to the window (about a second's worth), which the estimate
     * does not foresee.
     */
    static final double MICROS_PER_JOB = 1.5;

    private PauseWindow() {
    }

    public static long estimateMs(QueueSnapshot snap) {
        return Math.round(snap.jobCount() * MICROS_PER_JOB / 1000);
    }
}
