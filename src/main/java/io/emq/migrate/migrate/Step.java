package io.emq.migrate.migrate;

import java.util.Map;

/** One versioned step's work on one queue. Every step is idempotent: a re-run after a crash finishes it. */
interface Step {
    /** Does the work; returns what it did, as counts for the history row. */
    Map<String, Long> apply(QueueMigration m);

    /** The implementation of a step definition's action. */
    static Step of(StepDefinition def) {
        return switch (def.action()) {
            case "fence-source" -> new FenceSource();
            case "plan-identity" -> new PlanIdentity();
            case "absorb" -> new Absorb(def.states());
            case "absorb-flows" -> new AbsorbFlows();
            case "absorb-dedup-and-schedulers" -> new AbsorbDedupAndSchedulers();
            case "count-completed" -> new CountCompleted();
            case "copy-logs" -> new CopyLogs();
            case "catch-up" -> new CatchUp();
            case "verify" -> new VerifyStep();
            case "retire-source" -> new RetireSource();
            default -> throw new IllegalStateException("step " + def.fileName() + " has unknown action '" + def.action() + "'");
        };
    }
}
