package io.emq.migrate.runtime;

/** Set sizes and lifetime metric counts of one queue. */
public record Counts(long pending, long active, long scheduled, long dead, long completed, long failed) {
}
