package io.emq.migrate.v1;

/** A typed anomaly: the key it concerns, its kind, and the concrete reason. */
public record Anomaly(AnomalyKind kind, Bytes key, String reason) {
}
