package io.emq.migrate.v1;

/** Decodes v1 zset scores (spec v1-keyspace §4): delayed {@code due*4096+seq}, prioritized {@code priority*2^32+seq}. */
public final class ScoreCodec {
    static final double MAX_EXACT = 9007199254740992d; // 2^53
    private static final long PRIORITY_SHIFT = 1L << 32;

    private ScoreCodec() {
    }

    /** A packed score is a non-negative integer that a double holds exactly. */
    public static boolean isPacking(double score) {
        return Double.isFinite(score) && score >= 0 && score < MAX_EXACT && score == Math.floor(score);
    }

    /** Due time in ms of a delayed score: {@code floor(score / 4096)}. */
    public static long dueAt(double score) {
        return ((long) score) >>> 12;
    }

    /** Sequence within the due millisecond. */
    public static long delayedSequence(double score) {
        return ((long) score) & 0xfff;
    }

    /** Priority of a prioritized score: {@code floor(score / 2^32)}. */
    public static long priority(double score) {
        return ((long) score) / PRIORITY_SHIFT;
    }

    /** A score as text, integral scores without a fraction. */
    public static String render(double score) {
        return isPacking(score) ? Long.toString((long) score) : Double.toString(score);
    }
}
