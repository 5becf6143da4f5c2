package io.emq.migrate.v1;

/**
 * Reads v1 zset scores (spec v1-keyspace §4): delayed {@code due*4096+seq}, prioritized
 * {@code priority*2^32+seq} (the priority itself is read from the job hash; the zset keeps the
 * order). A score is the double Redis stores; every double at or above 2^53 is an integer, so a
 * packed score below 2^63 converts to a {@code long} exactly and decodes with integer arithmetic
 * (priority 2^21 gives scores past 2^53; a delay to 2040 gives 9165087024496640).
 */
public final class ScoreCodec {
    private static final double TWO_63 = 9223372036854775808d;
    /** The due time of a score beyond every packing: later than any v1 promotion will reach. */
    static final long NEVER_DUE = Long.MAX_VALUE >>> 12;

    private ScoreCodec() {
    }

    /** A packed score is a non-negative integer below 2^63 (as every score BullMQ writes is). */
    public static boolean isPacking(double score) {
        return score >= 0 && score < TWO_63 && score == Math.floor(score);
    }

    /**
     * Due time in ms of a delayed score, exactly {@code floor(score / 4096)}: the first ms at which
     * v1's promotion (every score up to {@code (now+1)*4096-1}) takes it. A negative or NaN score is
     * due at once (v1 promotes it at the next check); one at or beyond 2^63 is {@link #NEVER_DUE}.
     */
    public static long dueAt(double score) {
        if (!(score >= 0)) {
            return 0;
        }
        if (score >= TWO_63) {
            return NEVER_DUE;
        }
        return ((long) Math.floor(score)) >>> 12;
    }

    /** A score as text, integral scores without a fraction. */
    public static String render(double score) {
        return isPacking(score) ? Long.toString((long) score) : Double.toString(score);
    }
}
