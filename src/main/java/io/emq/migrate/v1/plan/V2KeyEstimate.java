package io.emq.migrate.v1.plan;

/** A family of v2 keys the migration would write: a key or pattern, its type, how many, estimated bytes of memory. */
public record V2KeyEstimate(String key, String type, long count, long bytes) {
}
