package io.emq.migrate.wire;

/**
 * A refusal on the v2 wire. Each wire class of the protocol ({@code EMQKIND}, {@code EMQSTALE},
 * {@code EMQRATE}, {@code EMQLOCK}, {@code EMQSTATE}) has one subtype; an {@code EMQ*} word this
 * runtime does not know is a {@link Protocol}; the version fence and a script whose server SHA-1
 * differs from the local one have their own subtypes.
 */
public abstract sealed class EmqWireException extends RuntimeException {

    private final String wireClass;

    EmqWireException(String wireClass, String message) {
        super(message);
        this.wireClass = wireClass;
    }

    /** The class word that led the reply, e.g. {@code EMQSTALE}; {@code FENCE} / {@code SHA} for the local checks. */
    public String wireClass() {
        return wireClass;
    }

    /** The server's text after the class word. */
    public String detail() {
        String m = getMessage();
        int space = m.indexOf(' ');
        return space < 0 ? "" : m.substring(space + 1);
    }

    /** {@code EMQKIND}: the job id is not {@code JOB}-namespaced. */
    public static final class Kind extends EmqWireException {
        Kind(String message) {
            super("EMQKIND", message);
        }
    }

    /** {@code EMQSTALE}: the token is superseded (the job was re-claimed) or the job is gone. */
    public static final class Stale extends EmqWireException {
        Stale(String message) {
            super("EMQSTALE", message);
        }

        /** True for {@code EMQSTALE job gone}: no row at all, rather than a token mismatch. */
        public boolean jobGone() {
            return detail().equals("job gone");
        }
    }

    /**
     * {@code EMQRATE}: the queue is at its concurrency ceiling ({@code is_maxed}), or its rate limit's
     * window is spent ({@code rate limited, retry after <ms> ms} from a claim).
     */
    public static final class Rate extends EmqWireException {
        private static final java.util.regex.Pattern RETRY_AFTER = java.util.regex.Pattern.compile("retry after (\\d+) ms");

        Rate(String message) {
            super("EMQRATE", message);
        }

        /** How long until a claim may succeed again, when the server said so. */
        public java.util.OptionalLong retryAfterMs() {
            java.util.regex.Matcher m = RETRY_AFTER.matcher(detail());
            return m.find() ? java.util.OptionalLong.of(Long.parseLong(m.group(1))) : java.util.OptionalLong.empty();
        }
    }

    /**
     * {@code EMQLOCK}: a worker holds the job, or another migrator the queue; also raised by the migrator's
     * own check of the token on a v1 queue's meta, read within its {@code WATCH}.
     */
    public static final class Lock extends EmqWireException {
        public Lock(String message) {
            super("EMQLOCK", message);
        }
    }

    /** {@code EMQSTATE}: the job or queue is not in the state the verb needs. */
    public static final class State extends EmqWireException {
        State(String message) {
            super("EMQSTATE", message);
        }
    }

    /** An {@code EMQ*} class word this runtime does not know; the text is carried as is. */
    public static final class Protocol extends EmqWireException {
        Protocol(String message) {
            super(message.split(" ", 2)[0], message);
        }
    }

    /** The deployment's {@code {emq}:version} is not the version this runtime speaks. */
    public static final class VersionFence extends EmqWireException {
        private final String found;
        private final String expected;

        VersionFence(String found, String expected) {
            super("FENCE", "version fence: {emq}:version is '" + found + "', this runtime speaks '" + expected
                    + "'; to speak the deployment's version pass --wire-version " + found + " (or set EMQ_WIRE_VERSION="
                    + found + "), else upgrade the runtime or migrate the deployment before connecting");
            this.found = found;
            this.expected = expected;
        }

        public String found() {
            return found;
        }

        public String expected() {
            return expected;
        }
    }

    /** {@code SCRIPT LOAD} answered a SHA-1 other than the local one: the server altered the script. */
    public static final class ScriptMismatch extends EmqWireException {
        ScriptMismatch(Script script, String got) {
            super("SHA", "script " + script.fileName() + " loaded as " + got + ", expected " + script.sha());
        }
    }
}
