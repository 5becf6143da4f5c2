package io.emq.migrate.cli;

import java.io.PrintStream;

/** {@code emq-migrate <command> [options]}: runs one command through {@link Cli} and exits with its code. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command line in this process's environment; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.run(args, out, err, Environment.system());
    }
}
