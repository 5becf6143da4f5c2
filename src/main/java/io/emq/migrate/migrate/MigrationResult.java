package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.V2State;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How one queue's run ended: {@code retired}, {@code verified} (stopped before retire), {@code refused}
 * or {@code failed} (nothing destroyed in either case), with what moved and how fast, how long this run paused the
 * v1 queue (the pause window, when this run retired the source; a re-run after that reports none), and where v2's order
 * breaks v1's at the cutover ({@link ServeOrder}; empty when nowhere or unchecked), and why a re-sync pass of this run
 * had no change feed (each such pass reads every job again; empty when every pass had it, or none ran). {@code moved} and
 * {@code jobs} are what this run wrote into v2 (a re-run writes only what changed since the last; a queue that did not end
 * {@link #ok} wrote a copy, not a migration); {@code inV2} the jobs the queue's migration wrote into v2 over all its runs, as
 * its journal counts them (empty when the run ended before it read a journal, or the journal has no count).
 */
public record MigrationResult(String v1Queue, String v2Queue, Outcome outcome, Map<String, Long> moved,
                              Optional<MigrationRefused.Kind> refusalKind, String message, long millis, long jobs,
                              Optional<Long> pauseWindowMs, Optional<String> orderDrift, Optional<String> withoutFeed,
                              Optional<Long> inV2) {
    /** A queue whose run ended before it began (nothing written): refused ({@code refusal}), or retired already (none). */
    static MigrationResult notRun(String v1Queue, String v2Queue, Outcome outcome, Optional<MigrationRefused.Kind> refusal,
                                  String message) {
        return new MigrationResult(v1Queue, v2Queue, outcome, Map.of(), refusal, message, 0, 0, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty());
    }

    /** Where a run left its queue: the journal's state when it ran to its end, else refused or failed. */
    public enum Outcome {
        PLANNED, RUNNING, VERIFIED, RETIRED, ABANDONED, REFUSED, FAILED;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Outcome of(MigrationState state) {
            return valueOf(state.name());
        }
    }

    public boolean ok() {
        return outcome == Outcome.RETIRED || outcome == Outcome.VERIFIED;
    }

    /** The jobs this run wrote into {@code state}. */
    public long moved(V2State state) {
        return moved.getOrDefault(state.wireName(), 0L);
    }

    public double jobsPerSecond() {
        return millis == 0 ? jobs : jobs * 1000.0 / millis;
    }
}
