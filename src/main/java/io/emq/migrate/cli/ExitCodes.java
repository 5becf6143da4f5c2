package io.emq.migrate.cli;

/** The exit codes every command shares; README.md's "Exit codes" table lists the same. */
public final class ExitCodes {
    /** Done; nothing blocks. */
    public static final int OK = 0;
    /** {@code key}: some argument was rejected by the grammar. */
    public static final int REJECTED = 1;
    /** Bad usage, or a server that could not be used. */
    public static final int USAGE = 2;
    /** Refused, anomalies found, or verification failed; nothing was destroyed. */
    public static final int REFUSED = 3;
    /** An unexpected error inside the tool (a bug): one line, {@code --debug} shows the trace. */
    public static final int INTERNAL = 4;
    /**
     * Interrupted (SIGINT): the command stopped where it is safe and said where. The process exits 128 + the signal's
     * number, whatever the command returned: 130 for SIGINT, 143 for SIGTERM.
     */
    public static final int INTERRUPTED = 130;

    /** A command's exit codes for its help: what 0 and 3 mean for it (3 omitted when null), 2 and 4 as always. */
    static java.util.Map<Integer, String> meanings(String ok, String refused) {
        java.util.Map<Integer, String> m = new java.util.LinkedHashMap<>();
        m.put(OK, ok);
        m.put(USAGE, "bad usage, or a server that could not be used (the message says what to check)");
        if (refused != null) {
            m.put(REFUSED, refused + "; nothing of a refused queue was destroyed");
        }
        m.put(INTERNAL, "an internal error (a bug; --debug shows the trace)");
        return m;
    }

    private ExitCodes() {
    }
}
