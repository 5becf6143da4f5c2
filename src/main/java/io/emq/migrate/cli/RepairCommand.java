package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.MigrationOptions;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;

/** {@code emq-migrate repair --target URI --queue Q}: clear failed steps and realign checksums, after the cause is fixed. */
public final class RepairCommand {
    private RepairCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "target", true, "the v2 server or cluster")
                .addOption(WireVersionOption.option())
                .addOption(null, "queue", true, "the v2 queue to repair");
        Optional<CommandLine> parsed = CommandLines.parse("repair", "--target URI --queue Q", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        if (!line.hasOption("queue")) {
            err.println("emq-migrate repair: --queue Q is required");
            return ExitCodes.USAGE;
        }
        return Servers.withTarget("repair", line.getOptionValue("target"), WireVersionOption.of(line), err, wire -> {
            List<String> changed = Journals.repair(wire, line.getOptionValue("queue"), MigrationOptions.DEFAULT_LEASE);
            changed.forEach(out::println);
            out.println(changed.isEmpty() ? "nothing to repair" : "repaired " + changed.size() + " steps; run migrate again");
            return ExitCodes.OK;
        });
    }
}
