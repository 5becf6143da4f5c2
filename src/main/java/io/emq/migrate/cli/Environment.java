package io.emq.migrate.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a run sees around its arguments: the environment variables, the working directory (where an
 * {@code emq-migrate.conf} is looked for), whether a person can answer a question on standard input,
 * and whether standard error is a terminal (progress bars go there).
 */
record Environment(Map<String, String> variables, Path directory, boolean interactive, boolean stderrTerminal) {

    /** The process's own environment. */
    static Environment system() {
        return new Environment(System.getenv(), Path.of("").toAbsolutePath(), isTerminal(0), isTerminal(2));
    }

    /** A variable's value as set (a password may start or end with a space); null when unset or empty. */
    String variable(String name) {
        String v = variables.get(name);
        return v == null || v.isEmpty() ? null : v;
    }

    /**
     * A standard stream is a terminal when its file descriptor names a terminal device (Linux), so a
     * redirected standard output ({@code migrate … > log}) changes nothing for the other two; where
     * that cannot be read, when the JVM has a console.
     */
    private static boolean isTerminal(int descriptor) {
        Path fd = Path.of("/proc/self/fd/" + descriptor);
        try {
            String target = Files.readSymbolicLink(fd).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException notLinux) {
            return System.console() != null;
        }
    }
}
