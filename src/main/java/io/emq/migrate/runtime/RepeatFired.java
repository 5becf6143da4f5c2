package io.emq.migrate.runtime;

/** One occurrence of a repeatable job, enqueued as job {@code id}; {@code occurrenceMs} is its due time. */
public record RepeatFired(String id, String name, long occurrenceMs) {
}
