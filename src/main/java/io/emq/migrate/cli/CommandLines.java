package io.emq.migrate.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/** Parses one command's options; on a usage error prints the message and the command's help. */
final class CommandLines {
    private CommandLines() {
    }

    /** Parsed options, or empty after printing the error (or the help, for --help) to the right stream. */
    static Optional<CommandLine> parse(String command, String argsSyntax, Options options, String[] args,
                                       PrintStream out, PrintStream err) {
        options.addOption("h", "help", false, "show this help");
        try {
            CommandLine line = new DefaultParser().parse(options, args);
            if (line.hasOption("help")) {
                help(command, argsSyntax, options, out);
                return Optional.empty();
            }
            return Optional.of(line);
        } catch (ParseException e) {
            err.println("emq-migrate " + command + ": " + e.getMessage());
            help(command, argsSyntax, options, err);
            return Optional.empty();
        }
    }

    /** The exit code after {@link #parse} returned empty: 0 for --help, 2 for a usage error. */
    static int helpOrUsage(String[] args) {
        for (String a : args) {
            if (a.equals("-h") || a.equals("--help")) {
                return ExitCodes.OK;
            }
        }
        return ExitCodes.USAGE;
    }

    static void help(String command, String argsSyntax, Options options, PrintStream s) {
        PrintWriter w = new PrintWriter(s, true);
        new HelpFormatter().printHelp(w, 100, "emq-migrate " + command + " " + argsSyntax, null, options, 2, 2, null);
        w.flush();
    }
}
