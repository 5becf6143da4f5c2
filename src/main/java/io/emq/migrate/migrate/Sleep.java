package io.emq.migrate.migrate;

/** The migrator's waits (for locks to lapse, a source to settle, a server to come back), interruptible. */
final class Sleep {
    private Sleep() {
    }

    /** Sleeps {@code ms}; an interrupt ends the wait as a refusal ({@code interrupted}), the interrupt kept. */
    static void millis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefused(MigrationRefused.Kind.INTERRUPTED, "interrupted while the migrator waited");
        }
    }
}
