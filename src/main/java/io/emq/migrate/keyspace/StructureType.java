package io.emq.migrate.keyspace;

import java.util.Optional;

/** The closed registry of per-queue structure suffixes (v2 protocol §1.4). */
public enum StructureType {
    PENDING("pending"),
    ACTIVE("active"),
    SCHEDULE("schedule"),
    DEAD("dead"),
    META("meta"),
    LIMITER("limiter"),
    RING("ring"),
    WAKE("wake"),
    PAUSED("paused"),
    GACTIVE("gactive"),
    GLIMIT("glimit"),
    GWEIGHT("gweight"),
    REPEAT("repeat"),
    EVENTS("events"),
    FLOW_OUTBOX("flow:outbox");

    private final String suffix;

    StructureType(String suffix) {
        this.suffix = suffix;
    }

    public String suffix() {
        return suffix;
    }

    public static Optional<StructureType> ofSuffix(String suffix) {
        for (StructureType t : values()) {
            if (t.suffix.equals(suffix)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
