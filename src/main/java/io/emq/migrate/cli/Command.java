package io.emq.migrate.cli;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.cli.Options;

/**
 * One CLI command. It declares its words, help and options; {@link Cli} parses and validates the
 * line, runs {@link #run}, renders failures and maps them to the one set of {@link ExitCodes}.
 */
interface Command {
    String name();

    /** One line for the command list. */
    String summary();

    /** The arguments after the command word, as the help shows them. */
    String syntax();

    /** Complete command lines an operator can copy. */
    List<String> examples();

    /** The exit codes this command ends with (0 included) and what each means for it. */
    Map<Integer, String> exits();

    /** The servers the command talks to; each brings its URI and certificate options. */
    Set<Side> servers();

    /** The command's own options; the shared ones (--help, --json, --debug, …) are added by {@link Cli}. */
    void options(Options options);

    /** Whether the command opens its target as a v2 deployment (then --wire-version applies). */
    default boolean opensV2Target() {
        return servers().contains(Side.TARGET);
    }

    /** Options that may be given more than once; any other option given twice is a usage error. */
    default Set<String> repeatable() {
        return Set.of();
    }

    /** Whether words after the options are taken (else they are a usage error). */
    default boolean takesArguments() {
        return false;
    }

    /** Whether the command shows progress (then --quiet and --no-progress apply). */
    default boolean showsProgress() {
        return false;
    }

    /** Whether the command can destroy data (then --yes confirms it off a terminal). */
    default boolean destroys() {
        return false;
    }

    /** Does the work; prints the result; returns the exit code or throws a {@link CliException}. */
    int run(Invocation in) throws Exception;
}
