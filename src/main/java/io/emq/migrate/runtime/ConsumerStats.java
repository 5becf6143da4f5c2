package io.emq.migrate.runtime;

import java.time.Duration;

/** A snapshot of a consumer's counters. */
public record ConsumerStats(long claimed, long completed, long retried, long dead, long staleRefused, long gone,
                            long leaseLost, long errors, Duration elapsed) {

    /** Jobs settled (completed, retried or dead) per second of running time. */
    public double jobsPerSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? 0 : (completed + retried + dead) / seconds;
    }
}
