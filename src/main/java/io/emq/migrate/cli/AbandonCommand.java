package io.emq.migrate.cli;

import io.emq.migrate.migrate.Abandon;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code emq-migrate abandon --source URI [--target URI] --queue Q}: undo a migration that has not
 * retired its source; removes what it wrote on the target and resumes the v1 queue as it was.
 */
public final class AbandonCommand {
    private AbandonCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "source", true, "the v1 server")
                .addOption(null, "target", true, "the v2 server or cluster (default: the source)")
                .addOption(WireVersionOption.option())
                .addOption(null, "queue", true, "the v2 queue");
        Optional<CommandLine> parsed = CommandLines.parse("abandon", "--source URI [--target URI] --queue Q", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        if (!line.hasOption("queue")) {
            err.println("emq-migrate abandon: --queue Q is required");
            return ExitCodes.USAGE;
        }
        Optional<Endpoint> source = Servers.endpoint("abandon", "source", line.getOptionValue("source"), "SOURCE", err);
        if (source.isEmpty()) {
            return ExitCodes.USAGE;
        }
        String target = line.getOptionValue("target", line.getOptionValue("source"));
        return Servers.withTarget("abandon", target, WireVersionOption.of(line), err, wire -> {
            try (UnifiedJedis sourceClient = source.get().open()) {
                Map<String, Long> counts = Abandon.run(Wire.source(sourceClient), wire, line.getOptionValue("queue"),
                        MigrationOptions.DEFAULT_LEASE);
                out.println("abandoned " + line.getOptionValue("queue") + ": " + counts
                        + "; the v1 queue is as it was before the migration");
                return ExitCodes.OK;
            }
        });
    }
}
