package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueSnapshot;

/**
 * The estimate {@code plan} gives of a queue's pause window: how long its v1 queue stays paused, from
 * the pause before the last re-sync pass (V120) until the v2 queue serves. The bulk is copied, re-synced
 * and verified while v1 serves; under the pause the last pass still reads the listings of every job
 * exactly and looks up in the journal the jobs touched or added since the catch-up (every job when the
 * change feed broke), so the window grows with the queue (the guard of that read and the atomic
 * retirement are O(1): {@link SourceGuard}): the estimate is the jobs times
 * the cost per job {@code bench/run-migration} measured (bench/RESULTS.md), on a server as busy as that
 * one.
 */
public final class PauseWindow {
    /**
     * The window per job, rounded up from what {@code MigrationBench --jobs 5000000} measured once the
     * read's proof and the retirement became O(1) ({@link SourceGuard}): 7,754 ms, 1.55 µs a job, at load
     * average 2.4 (bench/RESULTS.md), doubled for a server as busy as the 1M runs' (load average ~10,
     * where the read took about twice as long a job). A producer adds the jobs it added since the catch-up's
     * last pass to the window (6.5-11.6 s at 1M with 1,000 jobs/s), which the estimate does not foresee.
     */
    static final double MICROS_PER_JOB = 3;

    private PauseWindow() {
    }

    public static long estimateMs(QueueSnapshot snap) {
        return Math.round(snap.jobCount() * MICROS_PER_JOB / 1000);
    }
}
