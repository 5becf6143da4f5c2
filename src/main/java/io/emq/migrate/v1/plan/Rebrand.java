package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.BrandedId;

/**
 * The rebrand rule: the {@code r}-th job (1-based) that gets an identity, in its queue's v1 serve
 * order, gets {@code JOB} + the 11-character base62 of {@code r}; 1 is {@code JOB00000000001}, 42
 * {@code JOB0000000000g}. Injective, in serve order, and far below any Snowflake a v2 minter issues.
 */
public final class Rebrand {
    private Rebrand() {
    }

    public static String jobId(long ordinal) {
        if (ordinal < 1) {
            throw new IllegalArgumentException("ordinals start at 1: " + ordinal);
        }
        return BrandedId.job(ordinal).toString();
    }
}
