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

    /** Whether {@code rest} (a key past the queue's base) is a job id then this kind's {@code :<suffix>}. */
    public boolean shapes(Bytes rest) {
        return rest.endsWith(colonSuffix) && rest.length() > colonSuffix.length();
    }

    public String suffix() {
        return suffix;
    }

    public KeyType type() {
        return type;
    }
}
