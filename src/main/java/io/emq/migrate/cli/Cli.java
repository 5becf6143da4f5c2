package io.emq.migrate.cli;

import io.emq.migrate.wire.VersionFence;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/**
 * The command skeleton every command runs through: find the command, answer {@code --help} and
 * {@code --version}, parse and validate the options (a repeated single-value option is an error),
 * read the settings, run, and render any failure as one line (or one JSON document with
 * {@code --json}) with the exit code {@link Failures} gives it. Standard output passes through
 * {@link Printable#escaping}, so no server text can drive the terminal.
 */
final class Cli {
    static final Map<String, Command> COMMANDS = new LinkedHashMap<>();
    private static final Map<String, Declaration> DECLARED = Declaration.table();

    static {
        for (Command c : List.of(new DemoCommand(), new FixtureCommand(), new KeyCommand(), new DiscoverCommand(),
                new PlanCommand(), new MigrateCommand(), new InfoCommand(), new ValidateCommand(), new RepairCommand(),
                new AbandonCommand(), new ForgetCommand(), new VerifyCommand(), new LookupCommand(), new DrainCommand(),
                new ConformanceCommand())) {
            COMMANDS.put(c.name(), c);
        }
        if (!DECLARED.keySet().equals(COMMANDS.keySet())) {
            throw new IllegalStateException("commands.json declares " + DECLARED.keySet() + " but the commands are "
                    + COMMANDS.keySet());
        }
    }

    /** What a command is: its help, servers and traits ({@link Declaration}). */
    static Declaration declared(Command command) {
        return DECLARED.get(command.name());
    }

    private Cli() {
    }

    static int run(String[] args, PrintStream rawOut, PrintStream err, Environment environment) {
        PrintStream out = new PrintStream(Printable.escaping(rawOut), true, StandardCharsets.UTF_8);
        try {
            return dispatch(args, out, err, environment);
        } finally {
            out.flush();
        }
    }

    private static int dispatch(String[] args, PrintStream out, PrintStream err, Environment environment) {
        if (args.length == 0) {
            usage(err);
            return ExitCodes.USAGE;
        }
        String first = args[0];
        if (first.equals("-h") || first.equals("--help") || first.equals("help")) {
            if (first.equals("help") && args.length > 1) {
                Command c = COMMANDS.get(args[1]);
                if (c == null) {
                    err.println("emq-migrate help: no command '" + Printable.line(args[1]) + "'; `emq-migrate help` lists them");
                    return ExitCodes.USAGE;
                }
                help(c, out);
                return ExitCodes.OK;
            }
            usage(out);
            return ExitCodes.OK;
        }
        if (first.equals("--version") || first.equals("-V") || first.equals("version")) {
            out.println("emq-migrate " + version() + " (wire " + VersionFence.configured() + ", Java "
                    + System.getProperty("java.version") + ")");
            return ExitCodes.OK;
        }
        Command command = COMMANDS.get(first);
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        boolean json = Arrays.asList(rest).contains("--json");
        boolean debug = Arrays.asList(rest).contains("--debug");
        if (command == null) {
            return fail("emq-migrate", new Failures.Failure(ExitCodes.USAGE, "usage", "unknown command '"
                    + first + "'; `emq-migrate help` lists the commands"), json, out, err);
        }
        if (Arrays.asList(rest).contains("--help") || Arrays.asList(rest).contains("-h")) {
            help(command, out);
            return ExitCodes.OK;
        }
        CommandLine line;
        try {
            line = DefaultParser.builder().setAllowPartialMatching(false).build().parse(options(command), rest); // --queu is no --queue
        } catch (ParseException e) {
            return fail(command.name(), new Failures.Failure(ExitCodes.USAGE, "usage", e.getMessage()
                    + "; `emq-migrate help " + command.name() + "` shows the options"), json, out, err);
        }
        try (Invocation in = new Invocation(checked(command, line), out, err, environment,
                declared(command).servers().isEmpty() ? Settings.none(line, environment) : Settings.of(line, environment))) {
            return command.run(in);
        } catch (Exception | Error e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (debug) {
                e.printStackTrace(err);
            }
            return fail(command.name(), Failures.of(e), json, out, err);
        }
    }

    /** The line, once single-value options given twice and stray words are refused. */
    private static CommandLine checked(Command command, CommandLine line) {
        Map<String, Integer> seen = new TreeMap<>();
        for (Option o : line.getOptions()) {
            if (o.hasArg() && !declared(command).repeatable().contains(o.getLongOpt())) {
                seen.merge(o.getLongOpt(), 1, Integer::sum);
            }
        }
        seen.forEach((name, n) -> {
            if (n > 1) {
                throw CliException.usage("--" + name + " was given " + n + " times; give it once");
            }
        });
        if (!declared(command).takesArguments() && !line.getArgList().isEmpty()) {
            throw CliException.usage("unexpected argument '" + line.getArgList().get(0) + "'; `emq-migrate help "
                    + command.name() + "` shows the options");
        }
        return line;
    }

    private static int fail(String command, Failures.Failure f, boolean json, PrintStream out, PrintStream err) {
        if (json) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("command", command);
            error.put("exitCode", f.exitCode());
            error.put("kind", f.kind());
            error.put("message", f.message());
            f.refusal().ifPresent(kind -> error.put("refusal", kind));
            Json.print(Map.of("error", error), out);
        } else {
            err.println(Printable.line((command.equals("emq-migrate") ? "" : "emq-migrate ") + command + ": " + f.message()));
        }
        return f.exitCode();
    }

    /** Every option of a command: its own, its servers', and the shared ones. */
    static Options options(Command command) {
        Declaration declared = declared(command);
        Options options = new Options();
        command.options(options);
        for (Side side : declared.servers()) {
            options.addOption(valued(Settings.option(side, ""), "URI", side.description()
                    + ": redis://[user[:password]@]host:port[/db], rediss://… (TLS), or cluster seeds h1:p1,h2:p2 (also "
                    + Settings.variable(side, "") + ")"));
            options.addOption(valued(Settings.option(side, "cacert"), "FILE", "PEM CA certificate that signed the "
                    + side.word() + "'s TLS certificate (also " + Settings.variable(side, "cacert") + ")"));
            options.addOption(valued(Settings.option(side, "cert"), "FILE", "PEM client certificate for the "
                    + side.word() + " (also " + Settings.variable(side, "cert") + ")"));
            options.addOption(valued(Settings.option(side, "key"), "FILE", "PKCS#8 PEM key of that certificate (also "
                    + Settings.variable(side, "key") + ")"));
        }
        if (declared.opensV2Target()) {
            options.addOption(valued(Invocation.WIRE_VERSION, "V", "the {emq}:version the v2 target speaks (default "
                    + VersionFence.configured() + ", from " + VersionFence.VERSION_ENV + " or the built-in "
                    + VersionFence.DEFAULT_VERSION + "); e.g. echomq:3.0.0 for a deployment the reference connector fenced"));
        }
        if (!declared.servers().isEmpty()) {
            options.addOption(valued("config", "FILE", "read settings from FILE (default ./" + Settings.DEFAULT_FILE
                    + " when present); a flag wins over EMQ_* variables, which win over the file"));
        }
        if (declared.showsProgress()) {
            options.addOption(null, "quiet", false, "print only the result and errors");
            options.addOption(null, "no-progress", false, "no progress on standard error");
        }
        if (declared.destroys()) {
            options.addOption(null, "yes", false, "confirm a destructive action (needed when not on a terminal)");
        }
        options.addOption(null, "json", false, "print one JSON document (errors too)");
        options.addOption(null, "debug", false, "on an error, also print its stack trace");
        options.addOption("h", "help", false, "show this help");
        return options;
    }

    static Option valued(String name, String arg, String description) {
        return Option.builder().longOpt(name).hasArg().argName(arg).desc(description).get();
    }

    private static void usage(PrintStream s) {
        s.println("usage: emq-migrate <command> [options]");
        s.println();
        COMMANDS.values().forEach(c -> s.printf("  %-12s %s%n", c.name(), declared(c).summary()));
        s.println();
        s.println("  emq-migrate help <command>   a command's options, an example and its exit codes");
        s.println("  emq-migrate --version        the release and the wire version it speaks");
        s.println();
        s.println("Servers can be named by flag (--source, --target), by EMQ_SOURCE / EMQ_TARGET, or in "
                + Settings.DEFAULT_FILE + ".");
        s.println("Exit codes: 0 done; 1 key rejected; 2 bad usage or an unusable server; 3 refused; 4 internal error.");
    }

    static void help(Command c, PrintStream s) {
        StringWriter text = new StringWriter();
        PrintWriter w = new PrintWriter(text);
        Declaration d = declared(c);
        w.println("usage: emq-migrate " + c.name() + " " + d.syntax());
        w.println();
        w.println(d.summary());
        w.println();
        w.println("options:");
        HelpFormatter f = new HelpFormatter();
        f.setSyntaxPrefix("");
        f.printOptions(w, 100, options(c), 2, 2);
        w.println();
        w.println(d.examples().size() == 1 ? "example:" : "examples:");
        d.examples().forEach(e -> w.println("  " + e));
        w.println();
        w.println("exit codes:");
        d.exitMeanings().forEach((code, meaning) -> w.println("  " + code + "  " + meaning));
        w.flush();
        s.print(text);
    }

    static String version() {
        try (InputStream in = Cli.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "(unknown version)");
        } catch (IOException e) {
            return "(unknown version)";
        }
    }
}
