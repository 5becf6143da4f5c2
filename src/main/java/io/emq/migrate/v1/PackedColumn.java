package io.emq.migrate.v1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A {@code long} per job, held as its difference from one base value in the fewest bytes (0, 1, 2, 4
 * or 8) that hold every difference set so far; it widens when a value does not fit. A column where
 * every job has the same value costs no array, one of small numbers a byte a job, one of timestamps
 * made within a few weeks four. The base is given, or else the first value set; a value never set
 * reads as the base. Widening copies the values up to the last one set, not the whole capacity: a column
 * filled in order widens early, while it holds few values. The values are held in chunks of at most
 * {@value #CHUNK} bytes (a value never spans two), so no array is a humongous object for G1 at a heap of 512 MiB;
 * a chunk is made when a value is first set in it (a chunk never made holds the base), so a column that widens
 * half filled holds the wider chunks of only that half beside the narrower ones while it copies.
 */
final class PackedColumn {
    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** The most bytes a chunk of values holds: with its array's header 256 KiB, four to a G1 region of 1 MiB; a multiple of 8. */
    static final int CHUNK = HeapChunks.BYTES;

    private final int capacity;
    private long base;
    private boolean based;
    private int width;
    /** Value {@code i} is at byte {@code i * width} of the chunks end to end. */
    private byte[][] values;
    /** One past the highest index set: the values beyond it are all the base. */
    private int filled;

    /** Room for {@code capacity} values; the first value set becomes the base. */
    PackedColumn(int capacity) {
        this.capacity = capacity;
    }

    /** Room for {@code capacity} values, each {@code base} until set. */
    PackedColumn(int capacity, long base) {
        this(capacity);
        this.base = base;
        this.based = true;
    }

    void set(int i, long value) {
        if (!based) {
            base = value;
            based = true;
        }
        long difference = value - base; // wraps for extreme values; base + difference gives value back all the same
        int needed = widthOf(difference);
        if (needed > width) {
            widen(needed);
        }
        if (width > 0) {
            put(values, width, i, difference);
        }
        filled = Math.max(filled, i + 1);
    }

    long get(int i) {
        return width == 0 ? base : base + at(values, width, i);
    }

    private void widen(int to) {
        byte[][] wider = new byte[(int) (((long) capacity * to + CHUNK - 1) / CHUNK)][];
        for (int i = 0; width > 0 && i < filled; i++) {
            put(wider, to, i, at(values, width, i));
        }
        values = wider;
        width = to;
    }

    private static int widthOf(long v) {
        return v == 0 ? 0 : v == (byte) v ? 1 : v == (short) v ? 2 : v == (int) v ? 4 : 8;
    }

    private static long at(byte[][] chunks, int width, int i) {
        long offset = (long) i * width;
        byte[] a = chunks[(int) (offset / CHUNK)];
        if (a == null) {
            return 0;
        }
        int at = (int) (offset % CHUNK);
        return switch (width) {
            case 1 -> a[at];
            case 2 -> (short) SHORTS.get(a, at);
            case 4 -> (int) INTS.get(a, at);
            default -> (long) LONGS.get(a, at);
        };
    }

    /** Sets value {@code i} of chunks of values {@code width} bytes wide, making its chunk if it is the first there. */
    private void put(byte[][] chunks, int width, int i, long v) {
        long offset = (long) i * width;
        int c = (int) (offset / CHUNK);
        byte[] a = chunks[c];
        if (a == null) {
            a = new byte[(int) Math.min(CHUNK, (long) capacity * width - (long) c * CHUNK)];
            chunks[c] = a;
        }
        int at = (int) (offset % CHUNK);
        switch (width) {
            case 1 -> a[at] = (byte) v;
            case 2 -> SHORTS.set(a, at, (short) v);
            case 4 -> INTS.set(a, at, (int) v);
            default -> LONGS.set(a, at, v);
        }
    }
}
