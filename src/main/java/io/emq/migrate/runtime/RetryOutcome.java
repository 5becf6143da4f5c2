package io.emq.migrate.runtime;

/** Where a failed job went: back to the schedule, or to the dead set at max attempts. */
public enum RetryOutcome {
    SCHEDULED,
    DEAD
}
