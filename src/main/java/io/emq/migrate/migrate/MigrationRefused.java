package io.emq.migrate.migrate;

/**
 * The migration of a queue stopped without destroying anything: a refusal of the plan, a source
 * that changed under the migration, or a failed verification. The message says what to do next.
 */
public final class MigrationRefused extends RuntimeException {
    private final String kind;

    public MigrationRefused(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** A short word for machines: live-lock, anomalies, source-changed, verification, checksum, … */
    public String kind() {
        return kind;
    }
}
