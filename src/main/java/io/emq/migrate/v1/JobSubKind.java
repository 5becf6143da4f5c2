package io.emq.migrate.v1;

/** The per-job keys {@code P:Q:<id>:<suffix>} (spec v1-keyspace §1.2) and their types. */
public enum JobSubKind {
    LOCK("lock", KeyType.STRING),
    LOGS("logs", KeyType.LIST),
    DEPENDENCIES("dependencies", KeyType.SET),
    PROCESSED("processed", KeyType.HASH),
    FAILED("failed", KeyType.HASH),
    UNSUCCESSFUL("unsuccessful", KeyType.ZSET);

    private final String suffix;
    private final Bytes colonSuffix;
    private final KeyType type;

    JobSubKind(String suffix, KeyType type) {
        this.suffix = suffix;
        this.colonSuffix = Bytes.utf8(":" + suffix);
        this.type = type;
    }

    /** {@code :<suffix>}, as bytes. */
    public Bytes colonSuffix() {
        return colonSuffix;
    }

    public String suffix() {
        return suffix;
    }

    public KeyType type() {
        return type;
    }
}
