package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.util.Arrays;

/**
 * The v2 state and attempts of every row-bearing job as the last successful pass of this run read them:
 * that pass left each of them a row and an expectation in line with what it read. A job the change feed
 * tells untouched since (its hash and keys under it unwritten) that is still read in a v1 state that
 * becomes the same v2 state (a waiting job the pause moved to paused does) with the same attempts still
 * matches its expectation, so the next pass need not look it up (see {@link Resync}).
 *
 * <p>Kept compact (a million jobs under a 256 MiB heap): the ids' bytes end to end, one long per job,
 * and an open-addressing table of positions; ids are compared byte for byte, never by hash alone.
 */
final class InLine {
    private byte[] ids = new byte[1 << 12];
    private int[] ends = new int[1 << 8];
    private long[] read = new long[1 << 8];
    private int size;
    /** Position + 1 of the job in each slot, 0 when empty; never more than half full. */
    private int[] slots = new int[1 << 9];

    void add(JobFacts job) {
        byte[] id = job.id().raw();
        int at = find(id);
        if (slots[at] != 0) {
            read[slots[at] - 1] = packed(job);
            return;
        }
        int start = size == 0 ? 0 : ends[size - 1];
        if (start + id.length > ids.length) {
            ids = Arrays.copyOf(ids, Math.max(ids.length * 2, start + id.length));
        }
        if (size == ends.length) {
            ends = Arrays.copyOf(ends, size * 2);
            read = Arrays.copyOf(read, size * 2);
        }
        System.arraycopy(id, 0, ids, start, id.length);
        ends[size] = start + id.length;
        read[size] = packed(job);
        slots[at] = ++size;
        if (size * 2 > slots.length) {
            grow();
        }
    }

    /** Whether the last pass read this job in a state that becomes the same v2 state, with the same attempts. */
    boolean holds(JobFacts job) {
        int at = find(job.id().raw());
        return slots[at] != 0 && read[slots[at] - 1] == packed(job);
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

    private static int spread(int h) {
        return h ^ (h >>> 16) ^ (h >>> 7);
    }

    private static long packed(JobFacts job) {
        return job.attempts() << 5 | job.state().becomes().map(Enum::ordinal).orElse(31);
    }
}
