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
     * The window per job {@code bench/run-migration --jobs 1000000} measured (26.5 µs, load average 11;
     * bench/RESULTS.md), rounded up. With a 1,000 jobs/s producer it was 49.6 µs per job (the last pass
     * also copies what was added while V100 and V110 ran), which the estimate does not foresee. Measured
     * before the pass looked up only the delta: with it the producer run's window fell from 19.9 s to
     * 13.5 s at a lower load, so the estimate now errs long.
     */
    static final double MICROS_PER_JOB = 27;

    private PauseWindow() {
    }

    public static long estimateMs(QueueSnapshot snap) {
        return Math.round(snap.jobCount() * MICROS_PER_JOB / 1000);
    }
}
