package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.Arrays;

/**
 * The v2 state and attempts of every row-bearing job as the passes of this run read them, each marked
 * with the pass that read it last: the last successful pass left each job it read a row and an
 * expectation in line with what it read. A job the change feed tells untouched since (its hash and keys
 * under it unwritten) that the next pass still reads in a v1 state that becomes the same v2 state (a
 * waiting job the pause moved to paused does) with the same attempts still matches its expectation, so
 * that pass need not look it up (see {@link Resync}). One table serves every pass, updated in place:
 * a job the pass before did not read holds no more.
 *
 * <p>Kept compact (a million jobs under a 256 MiB heap): the ids' bytes end to end, one long and one
 * int per job, and an open-addressing table of positions; ids are compared byte for byte, never by
 * hash alone.
 */
final class InLine {
    private byte[] ids = new byte[1 << 12];
    private int[] ends = new int[1 << 8];
    private long[] read = new long[1 << 8];
    /** The pass that read each job last. */
    private int[] readIn = new int[1 << 8];
    private int size;
    /** The pass under way; 0 before the first. */
    private int pass;
    /** Position + 1 of the job in each slot, 0 when empty; never more than three quarters full. */
    private int[] slots = new int[1 << 9];

    /** Begins a pass: from here {@link #read} tells what the pass before read. */
    void nextPass() {
        pass++;
    }

    /**
     * Records that this pass read {@code job} as it is; returns whether the pass before read it in a
     * state that becomes the same v2 state, with the same attempts.
     */
    boolean read(JobFacts job) {
        byte[] id = job.id().raw();
        int at = find(id);
        if (slots[at] != 0) {
            int i = slots[at] - 1;
            boolean held = readIn[i] == pass - 1 && read[i] == packed(job);
            read[i] = packed(job);
            readIn[i] = pass;
            return held;
        }
        int start = size == 0 ? 0 : ends[size - 1];
        if (start + id.length > ids.length) {
            ids = Arrays.copyOf(ids, Math.max(grown(ids.length), start + id.length));
        }
        if (size == ends.length) {
            ends = Arrays.copyOf(ends, grown(size));
            read = Arrays.copyOf(read, grown(size));
            readIn = Arrays.copyOf(readIn, grown(size));
        }
        System.arraycopy(id, 0, ids, start, id.length);
        ends[size] = start + id.length;
        read[size] = packed(job);
        readIn[size] = pass;
        slots[at] = ++size;
        if (size * 4L > slots.length * 3L) {
            grow();
        }
        return false;
    }

    /** The slot that holds this id, or the empty slot where it would go. */
    private int find(byte[] id) {
        int mask = slots.length - 1;
        for (int at = spread(Arrays.hashCode(id)) & mask; ; at = (at + 1) & mask) {
            if (slots[at] == 0 || sameId(slots[at] - 1, id)) {
                return at;
            }
        }
    }

    private boolean sameId(int job, byte[] id) {
        int start = job == 0 ? 0 : ends[job - 1];
        return Arrays.equals(ids, start, ends[job], id, 0, id.length);
    }

    private void grow() {
        slots = new int[slots.length * 2];
        int mask = slots.length - 1;
        for (int job = 0; job < size; job++) {
            int start = job == 0 ? 0 : ends[job - 1];
            int at = spread(Arrays.hashCode(Arrays.copyOfRange(ids, start, ends[job]))) & mask;
            while (slots[at] != 0) {
                at = (at + 1) & mask;
            }
            slots[at] = job + 1;
        }
    }

    /** A column's next length: half as long again (the columns are most of the heap a job costs here). */
    private static int grown(int length) {
        return length + (length >> 1);
    }

    private static int spread(int h) {
        return h ^ (h >>> 16) ^ (h >>> 7);
    }

    private static long packed(JobFacts job) {
        return job.attempts() << 5 | job.state().becomes().map(Enum::ordinal).orElse(31);
    }
}
