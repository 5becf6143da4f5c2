package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.BrandedId;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The rebrand rule. The {@code r}-th job (1-based) of a queue that gets an identity, in the queue's v1
 * serve order, gets {@code JOB} + base62 of {@code base × 2^36 + r}, where {@code base} is the
 * queue's id base: 17 bits, {@code CRC32(v2 name) mod 2^17} unless another queue on the target
 * already holds that base (the migration then takes the next free one and records it in the
 * journal). So ids are injective across all queues migrated into one target — a flow parent's
 * {@code :processed} hash, keyed by child id, never merges children of two queues — in serve order
 * within a queue, below 2^53 (exact in Lua), and far below any Snowflake a v2 minter issues
 * (those pass 2^56 within months of the 2024 epoch).
 */
public final class Rebrand {
    public static final int RANK_BITS = 36;
    public static final int BASE_BITS = 17;
    public static final long MAX_RANK = (1L << RANK_BITS) - 1;
    public static final int BASES = 1 << BASE_BITS;

    private Rebrand() {
    }

    /** The id base a queue asks for: CRC32 of its v2 name, mod 2^17. */
    public static long idBase(String queue) {
        CRC32 crc = new CRC32();
        crc.update(queue.getBytes(StandardCharsets.UTF_8));
        return crc.getValue() & (BASES - 1);
    }

    public static String jobId(long base, long rank) {
        if (rank < 1 || rank > MAX_RANK) {
            throw new IllegalArgumentException("ranks run from 1 to 2^36-1: " + rank);
        }
        if (base < 0 || base >= BASES) {
            throw new IllegalArgumentException("id bases run from 0 to 2^17-1: " + base);
        }
        return BrandedId.job((base << RANK_BITS) | rank).toString();
    }
}
