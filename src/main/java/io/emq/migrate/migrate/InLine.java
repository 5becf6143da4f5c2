package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The v2 state and attempts of every row-bearing job as the pass before read them: the last
 * successful pass left each job it read a row and an
 * expectation in line with what it read. A job the change feed tells untouched since (its hash and keys
 * under it unwritten) that the next pass still reads in a v1 state that becomes the same v2 state (a
 * waiting job the pause moved to paused does) with the same attempts still matches its expectation, so
 * that pass need not look it up (see {@link Resync}). One table serves every pass, updated in place:
 * a job the pass before did not read holds no more.
 *
 * <p>Kept compact (ten million jobs under a 512 MiB heap beside the snapshots): one record a job end to
 * end in one byte array (its id's length as a varint, its id's bytes, then one int: whether this pass read
 * it in the sign bit, what the pass before read in the others), and an open-addressing table of the
 * records' offsets; ids are compared byte for byte, never by hash alone. Each pass begins with a sweep of
 * the records: those the pass before did not read hold {@link #STALE} from there. A job with more
 * attempts than a record holds ({@link #MAX_ATTEMPTS}) is never held: it is looked up every pass.
 */
final class InLine {
    /** The most attempts a record holds: attempts and the v2 state (5 bits) below {@link #STALE}. */
    static final long MAX_ATTEMPTS = (1L << 26) - 2;
    /** What a record holds for a job the pass before did not read, or that is never held; no read packs to it. */
    private static final int STALE = Integer.MAX_VALUE;
    /** The bit of a record set when this pass read it. */
    private static final int READ_NOW = Integer.MIN_VALUE;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private byte[] records;
    /** Bytes of {@link #records} in use. */
    private int used;
    private int size;
    /** 1 + the offset of the record in each slot, 0 when empty; never more than three quarters full. */
    private int[] slots;

    /**
     * A table sized for {@code jobs} jobs whose ids take {@code idBytes} together (the snapshot its first pass
     * reads: that pass copies nothing as it fills it).
     */
    InLine(long jobs, long idBytes) {
        records = new byte[Math.toIntExact(Math.max(1 << 12, idBytes + jobs * (1 + Integer.BYTES)))];
        int capacity = 1 << 9;
        while (jobs * 4 > capacity * 3L) {
            capacity *= 2;
        }
        slots = new int[capacity];
    }

    /**
     * Begins a pass: from here {@link #read} tells what the pass before read. A record that pass read keeps
     * what it read; any other holds {@link #STALE}.
     */
    void nextPass() {
        for (int offset = 0; offset < used; offset = valueAt(offset) + Integer.BYTES) {
            int value = valueAt(offset);
            int held = (int) INT.get(records, value);
            INT.set(records, value, held < 0 ? held & ~READ_NOW : STALE);
        }
    }

    /**
     * Records that this pass read {@code job} as it is; returns whether the pass before read it in a
     * state that becomes the same v2 state, with the same attempts.
     */
    boolean read(JobFacts job) {
        byte[] id = job.id().raw();
        int read = packed(job);
        int at = find(id);
        if (slots[at] != 0) {
            int value = valueAt(slots[at] - 1);
            int before = (int) INT.get(records, value);
            INT.set(records, value, read | READ_NOW);
            return read != STALE && before == read;
        }
        int length = varintLength(id.length) + id.length + Integer.BYTES;
        if (used + length > records.length) {
            records = Arrays.copyOf(records, Math.max(grown(records.length), Math.addExact(used, length)));
        }
        int offset = used;
        int p = offset;
        for (int n = id.length; ; n >>>= 7) {
            if (n < 0x80) {
                records[p++] = (byte) n;
                break;
            }
            records[p++] = (byte) (n & 0x7f | 0x80);
        }
        System.arraycopy(id, 0, records, p, id.length);
        INT.set(records, p + id.length, read | READ_NOW);
        used += length;
        slots[at] = offset + 1;
        if (++size * 4L > slots.length * 3L) {
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

    private boolean sameId(int offset, byte[] id) {
        int start = idStart(offset);
        int end = valueAt(offset);
        return Arrays.equals(records, start, end, id, 0, id.length);
    }

    /** Where the id of the record at {@code offset} starts (past its length). */
    private int idStart(int offset) {
        int p = offset;
        while (records[p] < 0) {
            p++;
        }
        return p + 1;
    }

    /** Where the int of the record at {@code offset} is (right after its id). */
    private int valueAt(int offset) {
        int length = 0;
        int p = offset;
        for (int shift = 0; ; shift += 7) {
            byte b = records[p++];
            length |= (b & 0x7f) << shift;
            if (b >= 0) {
                return p + length;
            }
        }
    }

    private void grow() {
        slots = new int[slots.length * 2];
        int mask = slots.length - 1;
        for (int offset = 0; offset < used; offset = valueAt(offset) + Integer.BYTES) {
            int at = spread(hash(idStart(offset), valueAt(offset))) & mask;
            while (slots[at] != 0) {
                at = (at + 1) & mask;
            }
            slots[at] = offset + 1;
        }
    }

    /** {@link Arrays#hashCode(byte[])} of {@code records[from..to)}. */
    private int hash(int from, int to) {
        int h = 1;
        for (int p = from; p < to; p++) {
            h = 31 * h + records[p];
        }
        return h;
    }

    /** The records' next length: an eighth longer (they are most of the heap a job costs here; a pass adds few jobs). */
    private static int grown(int length) {
        return Math.toIntExact(Math.min(Integer.MAX_VALUE - 8L, length + (long) (length >> 3)));
    }

    private static int varintLength(int n) {
        return n < 1 << 7 ? 1 : n < 1 << 14 ? 2 : n < 1 << 21 ? 3 : n < 1 << 28 ? 4 : 5;
    }

    private static int spread(int h) {
        return h ^ (h >>> 16) ^ (h >>> 7);
    }

    /** Attempts and the v2 state (31 when none) in a non-negative int below {@link #STALE}; {@link #STALE} past {@link #MAX_ATTEMPTS}. */
    private static int packed(JobFacts job) {
        if (job.attempts() < 0 || job.attempts() > MAX_ATTEMPTS) {
            return STALE;
        }
        return (int) job.attempts() << 5 | job.state().becomes().map(Enum::ordinal).orElse(31);
    }
}
