package io.emq.migrate.drain;

import io.emq.migrate.runtime.ConsumerStats;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a drain (or a dry run) found on one queue: jobs per state before and after, the consumer's
 * counters (absent for a dry run, which claims nothing), the verdict lines and the first problems.
 */
public record DrainReport(String queue, boolean dryRun, int workers, Map<String, Long> before, Map<String, Long> after,
                          Optional<ConsumerStats> stats, List<Check> checks, List<String> problems, long problemCount) {

    /** True when no check failed. */
    public boolean passed() {
        return checks.stream().noneMatch(Check::failed);
    }
}
