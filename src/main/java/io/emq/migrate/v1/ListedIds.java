package io.emq.migrate.v1;

import java.util.Arrays;

/**
 * Every id a queue's structures list, state by state in {@link V1State#LISTED} order (each in its
 * v1 serve order), then the orphans ({@link V1State#UNKNOWN}, sorted), in one {@link ByteArena};
 * the zset states keep their scores beside them. An id listed twice has two entries. No array is over 256 KiB
 * (none is a humongous object for G1 at a heap of 512 MiB).
 */
final class ListedIds {
    /** A generated BullMQ id of a queue of millions (longer ids grow the arena as they come). */
    private static final int TYPICAL_ID_BYTES = 8;
    private final ByteArena arena = new ByteArena(1024);
    private final int[] from = new int[V1State.values().length];
    private final int[] to = new int[V1State.values().length];
    private final Scores[] scores = new Scores[V1State.values().length];
    private V1State open;

    /** Makes room for {@code entries} more ids of the open state (of a typical length), so reading them copies nothing. */
    void reserve(long entries) {
        arena.reserve((int) Math.min(entries, Integer.MAX_VALUE / 2), TYPICAL_ID_BYTES);
    }

    /** Starts the entries of a state; states come in {@link V1State#LISTED} order, then {@link V1State#UNKNOWN}. */
    void begin(V1State state, boolean scored) {
        open = state;
        from[state.ordinal()] = arena.size();
        to[state.ordinal()] = arena.size();
        scores[state.ordinal()] = scored ? new Scores() : null;
    }

    void add(byte[] id, double score) {
        int s = open.ordinal();
        arena.add(id);
        to[s]++;
        if (scores[s] != null) {
            scores[s].add(score);
        }
    }

    void add(byte[] id) {
        add(id, Double.NaN);
    }

    /** The entries {@code before} holds of {@code state}, with their scores, as this one's of that state (its turn in order). */
    void copy(ListedIds before, V1State state) {
        int s = state.ordinal();
        begin(state, before.scores[s] != null);
        for (int entry = before.from[s]; entry < before.to[s]; entry++) {
            arena.add(before.arena, entry);
            to[s]++;
            if (scores[s] != null) {
                scores[s].add(before.score(entry, state));
            }
        }
    }

    /** Drops spare capacity once every state is read (again: a refresh that keeps these ids trims them as they are). */
    void trim() {
        arena.trim();
        for (Scores s : scores) {
            if (s != null) {
                s.trim();
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
        Scores s = scores[state.ordinal()];
        return s == null ? Double.NaN : s.get(entry - from[state.ordinal()]);
    }

    /** One zset state's scores in order, in chunks of at most 256 KiB: adding copies none held (but a small first chunk's). */
    private static final class Scores {
        /** With its array's header 256 KiB, four to a G1 region of 1 MiB. */
        private static final int CHUNK = HeapChunks.of(Double.BYTES);
        private double[][] chunks = new double[1][];
        private int size;

        void add(double score) {
            int c = size / CHUNK;
            int at = size % CHUNK;
            if (c == chunks.length) {
                chunks = Arrays.copyOf(chunks, c * 2);
            }
            if (chunks[c] == null) {
                chunks[c] = new double[c == 0 ? 16 : CHUNK];
            } else if (at == chunks[c].length) {
                chunks[c] = Arrays.copyOf(chunks[c], Math.min(CHUNK, at * 2));
            }
            chunks[c][at] = score;
            size++;
        }

        double get(int i) {
            return chunks[i / CHUNK][i % CHUNK];
        }

        /** Drops the last chunk's spare room (again: no copy when there is none). */
        void trim() {
            int c = size / CHUNK;
            int used = size % CHUNK;
            if (used > 0 && chunks[c].length != used) {
                chunks[c] = Arrays.copyOf(chunks[c], used);
            }
        }
    }
}
