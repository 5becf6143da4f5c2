package io.emq.migrate.keyspace;

import java.time.Instant;

/** The 63-bit Snowflake layout: 41 bits of ms since 2024-01-01, 10 bits of node, 12 bits of sequence. */
public final class Snowflake {
    public static final long EPOCH_MS = 1704067200000L;
    public static final int NODE_BITS = 10;
    public static final int SEQ_BITS = 12;
    public static final long MAX_NODE = (1L << NODE_BITS) - 1;
    public static final long MAX_SEQ = (1L << SEQ_BITS) - 1;

    private Snowflake() {
    }

    public static long compose(long msSinceEpoch, long node, long seq) {
        return (msSinceEpoch << (NODE_BITS + SEQ_BITS)) | (node << SEQ_BITS) | seq;
    }

    public static Instant instantOf(long snowflake) {
        return Instant.ofEpochMilli((snowflake >>> (NODE_BITS + SEQ_BITS)) + EPOCH_MS);
    }

    public static long nodeOf(long snowflake) {
        return (snowflake >>> SEQ_BITS) & MAX_NODE;
    }

    public static long sequenceOf(long snowflake) {
        return snowflake & MAX_SEQ;
    }
}
