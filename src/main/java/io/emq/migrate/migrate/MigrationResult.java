package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.V2State;
import java.util.Map;

/**
 * How one queue's run ended: {@code retired}, {@code verified} (stopped before retire), {@code refused}
 * or {@code failed} (nothing destroyed in either case), with what moved and how fast.
 */
public record MigrationResult(String v1Queue, String v2Queue, String outcome, Map<String, Long> moved,
                              String refusalKind, String message, long millis, long jobs) {
    public boolean ok() {
        return outcome.equals("retired") || outcome.equals("verified");
    }

    /** The jobs this run moved into {@code state}. */
    public long moved(V2State state) {
        return moved.getOrDefault(state.wireName(), 0L);
    }

    public double jobsPerSecond() {
        return millis == 0 ? jobs : jobs * 1000.0 / millis;
    }
}
