package io.emq.migrate.runtime;

/**
 * What is left of a queue being drained; {@code scheduledDue} counts schedule members due within a
 * horizon, {@code inLanes} the jobs waiting in the queue's lanes ({@code g:<group>:pending}).
 */
public record DrainStatus(long pending, long active, long scheduled, long scheduledDue, long inLanes) {
}
