package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.BrandedId;

/**
 * The rebrand rule: the job ranked {@code r} (1-based) in its queue's v1 serve order gets
 * {@code JOB} + the 11-character base62 of {@code r}; rank 1 is {@code JOB00000000001}, rank 42
 * {@code JOB0000000000g}. Injective, in serve order, and far below any Snowflake a v2 minter issues.
 */
public final class Rebrand {
    private Rebrand() {
    }

    public static String jobId(long rank) {
        if (rank < 1) {
            throw new IllegalArgumentException("ranks start at 1: " + rank);
        }
        return BrandedId.job(rank).toString();
    }
}
