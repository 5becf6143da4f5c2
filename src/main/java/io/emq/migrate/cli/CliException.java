package io.emq.migrate.cli;

/** A command stops with one line for the operator and the exit code that says why. */
final class CliException extends RuntimeException {
    private final int exitCode;

    private CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** The command line cannot be run as given (exit 2). */
    static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }

    /** The command ran and refused: nothing was destroyed (exit 3). */
    static CliException refused(String message) {
        return new CliException(ExitCodes.REFUSED, message);
    }

    int exitCode() {
        return exitCode;
    }
}
