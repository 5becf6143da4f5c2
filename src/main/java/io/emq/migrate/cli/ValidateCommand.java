package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.StepStatus;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;

/** {@code emq-migrate validate --target URI [--queue Q]}: recorded step checksums against this release's migrations/. */
public final class ValidateCommand {
    private ValidateCommand() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options = new Options()
                .addOption(null, "target", true, "the v2 server or cluster")
                .addOption(WireVersionOption.option())
                .addOption(null, "queue", true, "one v2 queue (default: every queue with a journal)");
        Optional<CommandLine> parsed = CommandLines.parse("validate", "--target URI [--queue Q]", options, args, out, err);
        if (parsed.isEmpty()) {
            return CommandLines.helpOrUsage(args);
        }
        CommandLine line = parsed.get();
        return Servers.withTarget("validate", line.getOptionValue("target"), WireVersionOption.of(line), err, wire -> {
            List<String> queues = line.hasOption("queue") ? List.of(line.getOptionValue("queue")) : Journals.queues(wire);
            int bad = 0;
            for (String q : queues) {
                List<StepStatus> invalid = Journals.invalid(wire, q);
                for (StepStatus s : invalid) {
                    out.printf("%s V%d %s: %s (recorded checksum %s)%n", q, s.version(), s.description(), s.status(),
                            s.row().map(r -> Integer.toString(r.checksum())).orElse("-"));
                }
                bad += invalid.size();
            }
            out.println(bad == 0 ? "validated " + queues.size() + " queues: every applied step matches migrations/"
                    : bad + " steps differ from migrations/: if the change is intended, run `emq-migrate repair`");
            return bad == 0 ? ExitCodes.OK : ExitCodes.REFUSED;
        });
    }
}
