package io.emq.migrate.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code emq-migrate <command> [options]}: dispatches to one command and exits with its code. */
public final class Main {
    /** A command: arguments after the command word, standard out and err, returns the exit code. */
    @FunctionalInterface
    public interface Command {
        int run(String[] args, PrintStream out, PrintStream err);
    }

    record Entry(Command command, String summary) {
    }

    static final Map<String, Entry> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("demo", new Entry(DemoCommand::run, "the tour: a scratch server, a recorded v1 keyspace, dry run (--migrate: migrate, verify, drain)"));
        COMMANDS.put("key", new Entry(KeyCommand::run, "parse v2 keys: kind, queue, type, slot, mint time"));
        COMMANDS.put("discover", new Entry(DiscoverCommand::run, "list v1 queues with their counts (reads only)"));
        COMMANDS.put("plan", new Entry(PlanCommand::run, "dry run: what each v1 queue becomes in v2, anomalies, refusals"));
        COMMANDS.put("migrate", new Entry(MigrateCommand::run, "migrate v1 queues into v2, step by step, journaled"));
        COMMANDS.put("info", new Entry(InfoCommand::run, "each migrated queue's state and steps (like flyway info)"));
        COMMANDS.put("validate", new Entry(ValidateCommand::run, "check applied steps' checksums against migrations/"));
        COMMANDS.put("repair", new Entry(RepairCommand::run, "clear failed steps and realign checksums after a fix"));
        COMMANDS.put("abandon", new Entry(AbandonCommand::run, "undo an unretired migration; resume the v1 queue"));
        COMMANDS.put("verify", new Entry(VerifyCommand::run, "re-check a migrated queue against its journal (reads only)"));
        COMMANDS.put("lookup", new Entry(LookupCommand::run, "the v1 id <-> branded id mapping of a queue"));
        COMMANDS.put("drain", new Entry(DrainCommand::run, "serve a migrated queue until empty and validate it against its journal"));
        COMMANDS.put("conformance", new Entry(ConformanceCommand::run, "run the v2 wire conformance scenarios against a target"));
    }

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            usage(args.length == 0 ? err : out);
            return args.length == 0 ? ExitCodes.USAGE : ExitCodes.OK;
        }
        Entry entry = COMMANDS.get(args[0]);
        if (entry == null) {
            err.println("emq-migrate: unknown command '" + args[0] + "'");
            usage(err);
            return ExitCodes.USAGE;
        }
        return entry.command().run(Arrays.copyOfRange(args, 1, args.length), out, err);
    }

    private static void usage(PrintStream s) {
        s.println("usage: emq-migrate <command> [options]   (emq-migrate <command> --help for its options)");
        s.println();
        COMMANDS.forEach((name, e) -> s.printf("  %-12s %s%n", name, e.summary()));
    }
}
