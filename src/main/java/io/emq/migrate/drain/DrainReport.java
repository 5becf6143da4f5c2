package io.emq.migrate.drain;

import io.emq.migrate.runtime.ConsumerStats;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a drain (or a dry run) found on one queue: jobs per state before and after the drain (for a
 * dry run: what the journal migrated, and what is queued now; the journal has no completed count),
 * the consumer's
 * counters (absent for a dry run, which claims nothing), the verdict lines and the first problems.
 */
public record DrainReport(String queue, boolean dryRun, int workers, Map<String, Long> before, Map<String, Long> after,
                          Optional<ConsumerStats> stats, List<Check> checks, List<String> problems, long problemCount) {

    public String beforeLabel() {
        return dryRun ? "migrated (journal)" : "before the drain";
    }

    public String afterLabel() {
        return dryRun ? "queued now" : "after the drain";
    }

    /** True when no check failed. */
    public boolean passed() {
        return checks.stream().noneMatch(Check::failed);
    }
}
