package io.emq.migrate.v1;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The queue-level keys {@code P:Q:<suffix>} a v1 keyspace may hold (spec v1-keyspace §1.1, §8),
 * with the type each must have. {@link #evidence()} marks the ones whose presence with the right
 * type proves a queue exists; legacy shapes come from BullMQ 4.x and older.
 */
public enum QueueStructure {
    ID("id", KeyType.STRING, true, false),
    WAIT("wait", KeyType.LIST, true, false),
    PAUSED("paused", KeyType.LIST, true, false),
    ACTIVE("active", KeyType.LIST, true, false),
    PRIORITIZED("prioritized", KeyType.ZSET, true, false),
    PC("pc", KeyType.STRING, false, false),
    DELAYED("delayed", KeyType.ZSET, true, false),
    WAITING_CHILDREN("waiting-children", KeyType.ZSET, true, false),
    COMPLETED("completed", KeyType.ZSET, true, false),
    FAILED("failed", KeyType.ZSET, true, false),
    STALLED("stalled", KeyType.SET, true, false),
    STALLED_CHECK("stalled-check", KeyType.STRING, false, false),
    META("meta", KeyType.HASH, true, false),
    EVENTS("events", KeyType.STREAM, true, false),
    MARKER("marker", KeyType.ZSET, true, false),
    LIMITER("limiter", KeyType.STRING, false, false),
    REPEAT("repeat", KeyType.ZSET, true, false),
    METRICS_COMPLETED("metrics:completed", KeyType.HASH, false, false),
    METRICS_FAILED("metrics:failed", KeyType.HASH, false, false),
    METRICS_COMPLETED_DATA("metrics:completed:data", KeyType.LIST, false, false),
    METRICS_FAILED_DATA("metrics:failed:data", KeyType.LIST, false, false),
    LEGACY_PRIORITY("priority", KeyType.ZSET, false, true),
    LEGACY_DELAY("delay", KeyType.ZSET, false, true);

    private final String suffix;
    private final Bytes colonSuffix;
    private final KeyType type;
    private final boolean evidence;
    private final boolean legacy;

    QueueStructure(String suffix, KeyType type, boolean evidence, boolean legacy) {
        this.suffix = suffix;
        this.colonSuffix = Bytes.utf8(":" + suffix);
        this.type = type;
        this.evidence = evidence;
        this.legacy = legacy;
    }

    private static final Map<Bytes, QueueStructure> BY_SUFFIX = new HashMap<>();

    static {
        for (QueueStructure s : values()) {
            BY_SUFFIX.put(Bytes.utf8(s.suffix), s);
        }
    }

    public static Optional<QueueStructure> bySuffix(Bytes suffix) {
        return Optional.ofNullable(BY_SUFFIX.get(suffix));
    }

    /** The structure that holds a listed state. */
    public static QueueStructure of(V1State state) {
        return switch (state) {
            case WAIT -> WAIT;
            case PAUSED -> PAUSED;
            case ACTIVE -> ACTIVE;
            case PRIORITIZED -> PRIORITIZED;
            case DELAYED -> DELAYED;
            case WAITING_CHILDREN -> WAITING_CHILDREN;
            case COMPLETED -> COMPLETED;
            case FAILED -> FAILED;
            case UNKNOWN -> throw new IllegalArgumentException("no structure holds unknown jobs");
        };
    }

    public String suffix() {
        return suffix;
    }

    /** {@code :<suffix>}, as bytes. */
    public Bytes colonSuffix() {
        return colonSuffix;
    }

    public KeyType type() {
        return type;
    }

    public boolean evidence() {
        return evidence;
    }

    public boolean legacy() {
        return legacy;
    }
}
