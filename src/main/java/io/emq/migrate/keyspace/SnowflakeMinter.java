package io.emq.migrate.keyspace;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Mints branded ids from Snowflakes, strictly increasing per node and thread-safe. One atomic cell
 * holds {@code ms << 12 | seq}; each mint moves it to {@code max(now << 12, last + 1)}, so bursts
 * count the sequence up, a full sequence borrows the next millisecond, and a clock that steps back
 * keeps counting from the logical clock instead of blocking.
 */
public final class SnowflakeMinter {
    private final long node;
    private final LongSupplier clockMs;
    private final AtomicLong cell = new AtomicLong(-1);

    public SnowflakeMinter(long node) {
        this(node, System::currentTimeMillis);
    }

    public SnowflakeMinter(long node, LongSupplier clockMs) {
        if (node < 0 || node > Snowflake.MAX_NODE) {
            throw new IllegalArgumentException("node must be in 0..1023: " + node);
        }
        this.node = node;
        this.clockMs = clockMs;
    }

    public long nextSnowflake() {
        long nowPart = Math.max(0, clockMs.getAsLong() - Snowflake.EPOCH_MS) << Snowflake.SEQ_BITS;
        long next = cell.updateAndGet(last -> Math.max(nowPart, last + 1));
        long ms = next >>> Snowflake.SEQ_BITS;
        return Snowflake.compose(ms, node, next & Snowflake.MAX_SEQ);
    }

    public BrandedId mint(String namespace) {
        return new BrandedId(namespace, nextSnowflake());
    }

    public BrandedId mintJob() {
        return mint(BrandedId.JOB);
    }
}
