package io.emq.migrate.v1;

import java.util.Arrays;

/**
 * Every id a queue's structures list, state by state in {@link V1State#LISTED} order (each in its
 * v1 serve order), then the orphans ({@link V1State#UNKNOWN}, sorted), in one {@link ByteArena};
 * the zset states keep their scores beside them. An id listed twice has two entries.
 */
final class ListedIds {
    /** A generated BullMQ id of a queue of millions (longer ids grow the arena as they come). */
    private static final int TYPICAL_ID_BYTES = 8;
    private final ByteArena arena = new ByteArena(1024);
    private final int[] from = new int[V1State.values().length];
    private final int[] to = new int[V1State.values().length];
    private final double[][] scores = new double[V1State.values().length][];
    private V1State open;

    /** Makes room for {@code entries} more ids of the open state (of a typical length), so reading them copies nothing. */
    void reserve(long entries) {
        int n = (int) Math.min(entries, Integer.MAX_VALUE / 2);
        arena.reserve(n, TYPICAL_ID_BYTES);
        double[] s = scores[open.ordinal()];
        int local = count(open);
        if (s != null && local + n > s.length) {
            scores[open.ordinal()] = Arrays.copyOf(s, local + n);
        }
    }

    /** Starts the entries of a state; states come in {@link V1State#LISTED} order, then {@link V1State#UNKNOWN}. */
    void begin(V1State state, boolean scored) {
        open = state;
        from[state.ordinal()] = arena.size();
        to[state.ordinal()] = arena.size();
        scores[state.ordinal()] = scored ? new double[16] : null;
    }

    void add(byte[] id, double score) {
        int s = open.ordinal();
        int local = arena.add(id) - from[s];
        to[s]++;
        if (scores[s] != null) {
            if (local == scores[s].length) {
                scores[s] = Arrays.copyOf(scores[s], local + (local >> 1) + 16);
            }
            scores[s][local] = score;
        }
    }

    void add(byte[] id) {
        add(id, Double.NaN);
    }

    /** Drops spare capacity once every state is read (again: a refresh that keeps these ids trims them as they are). */
    void trim() {
        arena.trim();
        for (V1State s : V1State.values()) {
            if (scores[s.ordinal()] != null && scores[s.ordinal()].length != count(s)) {
                scores[s.ordinal()] = Arrays.copyOf(scores[s.ordinal()], count(s));
            }
        }
    }

    ByteArena arena() {
        return arena;
    }

    int from(V1State state) {
        return from[state.ordinal()];
    }

    int count(V1State state) {
        return to[state.ordinal()] - from[state.ordinal()];
    }

    /** The state whose structure holds this entry. */
    V1State stateOf(int entry) {
        for (V1State s : V1State.values()) {
            if (entry >= from[s.ordinal()] && entry < to[s.ordinal()]) {
                return s;
            }
        }
        throw new IllegalArgumentException("no entry " + entry);
    }

    Bytes id(int entry) {
        return arena.get(entry);
    }

    /** The zset score of an entry; NaN for list states and orphans. */
    double score(int entry, V1State state) {
        double[] s = scores[state.ordinal()];
        return s == null ? Double.NaN : s[entry - from[state.ordinal()]];
    }
}
