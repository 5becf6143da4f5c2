package io.emq.migrate.v1;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A job's full v1 record, read lazily when the migration copies it: every hash field as bytes,
 * and the per-job keys (empty when absent). {@code dependencies} holds full child keys;
 * {@code unsuccessful} maps child key to the ms it failed.
 */
public record V1Job(QueueRef queue, Bytes id, Map<Bytes, Bytes> fields, List<Bytes> logs, List<Bytes> dependencies,
                    Map<Bytes, Bytes> processed, Map<Bytes, Bytes> failed, Map<Bytes, Double> unsuccessful,
                    long lockTtlMs) {

    public Optional<Bytes> field(String name) {
        return Optional.ofNullable(fields.get(Bytes.utf8(name)));
    }

    /** The raw {@code data} bytes (the payload), if the hash has them. */
    public Optional<Bytes> data() {
        return field("data");
    }
}
