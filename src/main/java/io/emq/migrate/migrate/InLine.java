package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import java.util.HashMap;
import java.util.Map;

/**
 * The v2 state and attempts of every row-bearing job as the last successful pass of this run read them:
 * that pass left each of them a row and an expectation in line with what it read. A job the change feed
 * tells untouched since (its hash and keys under it unwritten) that is still read in a v1 state that
 * becomes the same v2 state (a waiting job the pause moved to paused does) with the same attempts still
 * matches its expectation, so the next pass need not look it up (see {@link Resync}).
 */
final class InLine {
    private final Map<Bytes, Long> read = new HashMap<>();

    void add(JobFacts job) {
        read.put(job.id(), packed(job));
    }

    /** Whether the last pass read this job in a state that becomes the same v2 state, with the same attempts. */
    boolean holds(JobFacts job) {
        Long was = read.get(job.id());
        return was != null && was == packed(job);
    }

    private static long packed(JobFacts job) {
        return job.attempts() << 5 | job.state().becomes().map(Enum::ordinal).orElse(31);
    }
}
