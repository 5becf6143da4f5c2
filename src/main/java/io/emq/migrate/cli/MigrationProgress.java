package io.emq.migrate.cli;

import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.StepCatalog;
import io.emq.migrate.migrate.StepDefinition;
import java.io.PrintStream;
import java.util.Map;

/**
 * What {@code migrate} shows while it runs. On a terminal: a {@link Progress} bar over the steps
 * (queues × steps; unknown with {@code --all} until discovery, so then a count and a rate), naming
 * the step in flight. Otherwise: one plain line per finished step with its figures, unless the
 * output is JSON.
 */
final class MigrationProgress implements Migrator.Listener, AutoCloseable {
    private final PrintStream out;
    private final Progress bar;

    private MigrationProgress(PrintStream out, Progress bar) {
        this.out = out;
        this.bar = bar;
    }

    /** {@code queues}: how many were named (0 with --all); {@code json}: keep standard output for the document. */
    static MigrationProgress on(PrintStream out, PrintStream err, int queues, boolean json) {
        if (System.console() != null) {
            return new MigrationProgress(null, Progress.start("migrate", (long) queues * StepCatalog.load().steps().size(),
                    "steps", err));
        }
        return new MigrationProgress(json ? null : out, null);
    }

    @Override
    public void stepStarted(String queue, StepDefinition step) {
        if (bar != null) {
            bar.label("migrate " + queue + " V" + step.version() + " " + step.description());
        }
    }

    @Override
    public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long millis) {
        if (bar != null) {
            bar.advance(1);
        } else if (out != null) {
            out.printf("%-20s V%-2d %-32s %6d ms  %s%n", queue, step.version(), step.description(), millis, counts);
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.label("migrate");
            bar.close();
        }
    }
}
