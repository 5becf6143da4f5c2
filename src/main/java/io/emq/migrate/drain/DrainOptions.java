package io.emq.migrate.drain;

import io.emq.migrate.runtime.Backoff;
import java.time.Duration;

/**
 * How a drain runs the bundled consumer.
 *
 * @param workers            worker threads; serve order is checked per worker, and globally with one
 * @param untilEmptySchedule wait for every scheduled job, however far away its due time
 * @param lease              lease per claim (extended while a handler runs)
 * @param beat               interval of reap and promote
 * @param backoff            delay before a failed job runs again (exec)
 * @param maxAttempts        attempts after which a failing job is dead-lettered (exec)
 * @param lanes              claim through the queue's lanes (the ring), one job per turn, as the
 *                           reference's {@code EchoMQ.Consumer} does; else from the flat pending set
 */
public record DrainOptions(int workers, boolean untilEmptySchedule, Duration lease, Duration beat, Backoff backoff,
                           long maxAttempts, boolean lanes) {
    /**
     * Jobs per claim ({@code claim_batch}; their completions go back in one {@code complete_batch}):
     * 64 measured fastest with one worker (bench/run-drain; 16 gave about two thirds of it).
     */
    public static final int BATCH_SIZE = 64;

    public static DrainOptions defaults() {
        return new DrainOptions(1, false, Duration.ofSeconds(30), Duration.ofMillis(250),
                Backoff.fixed(Duration.ofSeconds(1)), 3, false);
    }

    public DrainOptions withWorkers(int n) {
        return new DrainOptions(n, untilEmptySchedule, lease, beat, backoff, maxAttempts, lanes);
    }

    public DrainOptions withUntilEmptySchedule(boolean wait) {
        return new DrainOptions(workers, wait, lease, beat, backoff, maxAttempts, lanes);
    }

    public DrainOptions withLanes(boolean throughLanes) {
        return new DrainOptions(workers, untilEmptySchedule, lease, beat, backoff, maxAttempts, throughLanes);
    }

    /**
     * How far ahead a scheduled job counts as due: every one with {@code untilEmptySchedule}, else
     * those due before the retry backoff and two beats have passed (so retried jobs run again).
     */
    Duration horizon() {
        return untilEmptySchedule ? Duration.ofDays(365L * 100) : backoff.ceiling().plus(beat.multipliedBy(2));
    }
}
