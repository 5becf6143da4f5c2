package io.emq.migrate.cli;

import java.util.Locale;
import org.apache.commons.cli.Options;

/**
 * One CLI command: a class {@code <Word>Command} with its own options and its work; what it is
 * besides (help, servers, traits) is the row {@code <word>} of {@code commands.json}
 * ({@link Declaration}). {@link Cli} parses and validates the line, runs {@link #run}, renders
 * failures and maps them to the one set of {@link ExitCodes}.
 */
interface Command {
    /** The command word: the class name without {@code Command}, in lower case ({@code RepairCommand}: {@code repair}). */
    default String name() {
        return getClass().getSimpleName().replaceFirst("Command$", "").toLowerCase(Locale.ROOT);
    }

    /** The command's own options; the shared ones (--help, --json, --debug, …) are added by {@link Cli}. */
    void options(Options options);

    /** Does the work; prints the result; returns the exit code or throws a {@link CliException}. */
    int run(Invocation in) throws Exception;
}
