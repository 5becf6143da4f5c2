package io.emq.migrate.runtime;

/** What {@code complete} did: deleted the row, or found no row. */
public enum Completion {
    COMPLETED,
    GONE
}
