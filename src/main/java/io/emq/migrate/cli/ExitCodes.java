package io.emq.migrate.cli;

/** The exit codes every command shares. */
public final class ExitCodes {
    /** Done; nothing blocks. */
    public static final int OK = 0;
    /** {@code key}: some argument was rejected by the grammar. */
    public static final int REJECTED = 1;
    /** Bad usage, or the server could not be reached. */
    public static final int USAGE = 2;
    /** Refused, anomalies found, or verification failed; nothing was destroyed. */
    public static final int REFUSED = 3;

    private ExitCodes() {
    }
}
