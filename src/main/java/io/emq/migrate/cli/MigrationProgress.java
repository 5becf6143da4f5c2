package io.emq.migrate.cli;

import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.StepDefinition;
import java.util.Map;

/**
 * What {@code migrate} shows on standard error while it runs: a {@link Progress} over the jobs
 * moved (the v1 jobs listed in the named queues; unknown with {@code --all}, then a count and a
 * rate), labelled with the step in flight; off a terminal also one line per finished step.
 */
final class MigrationProgress implements Migrator.Listener, AutoCloseable {
    private final Invocation in;
    private final Progress bar;
    /** Each queue's step in flight (several with {@code --parallel}), and the last one started. */
    private final Map<String, String> inFlight = new java.util.TreeMap<>();
    private String last = "starting";

    /** Progress over {@code jobs} of {@code migrator}'s run, which says what server it waits on ({@link Migrator#waitingFor}). */
    MigrationProgress(Invocation in, long jobs, Migrator migrator) {
        this.in = in;
        this.bar = in.progress("migrate", jobs, "jobs");
        bar.waitingFor(migrator::waitingFor);
    }

    /** The steps running now (else the last one started), for an interruption message. */
    synchronized String inFlight() {
        return inFlight.isEmpty() ? last : String.join(", ", inFlight.values());
    }

    @Override
    public synchronized void stepStarted(String queue, StepDefinition step) {
        last = "queue " + queue + " at step V" + step.version() + " (" + step.description() + ")";
        inFlight.put(queue, last);
        bar.label("migrate " + queue + " V" + step.version() + " " + step.description());
    }

    @Override
    public synchronized void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
        inFlight.remove(queue);
        bar.advance(jobs);
        if (!in.environment().stderrTerminal() && in.progressShown()) {
            in.note(String.format("%-20s V%-3d %-32s %6d ms  %s", queue, step.version(), step.description(), millis,
                    Table.counts(counts)));
        }
    }

    /**
     * Every queue ended well: the jobs moved were all of the work. The total read before the run counts every job v1
     * lists, so a run resumed after an earlier one moved some (after --no-retire: only those v1 took in since) would
     * otherwise end below 100 %.
     */
    void finished() {
        bar.complete();
    }

    @Override
    public void close() {
        bar.label("migrate");
        bar.close();
    }
}
