package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * The code of one versioned step, run on one queue; its file in {@code migrations/} names it
 * ({@code "runs"}) and says what it is (see {@link StepDefinition}). Every step is idempotent: a
 * re-run after a crash finishes it. A step composes the migration's shared services; it never
 * creates or runs another step.
 */
interface Step {
    /**
     * The names of the {@link Checkpoints} this step passes, its own and those of the services it
     * composes, in the order a run first passes them: where a crash test may stop it
     * ({@code <version>:<name>}). {@code StepFilesTest} fails when a step passes one it does not declare.
     */
    List<String> checkpoints();

    /** Does the work; returns what it did, as counts for the history row. */
    Map<String, Long> apply(QueueMigration m);

    /**
     * The version of this class's code, part of the step's checksum: raise it when a change to the
     * class changes what the step writes, so queues it already ran on are told (validate, repair).
     */
    default int revision() {
        return 1;
    }
}
