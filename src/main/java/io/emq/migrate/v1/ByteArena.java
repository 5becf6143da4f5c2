package io.emq.migrate.v1;

import java.util.Arrays;

/**
 * Many short byte strings in one {@code byte[]} with an {@code int[]} of offsets: entry {@code i}
 * is {@code bytes[offsets[i] .. offsets[i + 1])}. About a tenth of the heap that one {@link Bytes}
 * object per string costs; entries are materialised as {@link Bytes} on demand. Append-only.
 */
final class ByteArena {
    private byte[] bytes;
    private int[] offsets;
    private int size;

    ByteArena(int expectedEntries) {
        int n = Math.max(4, expectedEntries);
        this.bytes = new byte[n * 8];
        this.offsets = new int[n + 1];
    }

    /** Appends one entry; returns its index. */
    int add(byte[] value) {
        int length = value.length;
        int end = offsets[size];
        if (end + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, grown(bytes.length, end + length));
        }
        if (size + 2 > offsets.length) {
            offsets = Arrays.copyOf(offsets, grown(offsets.length, size + 2));
        }
        System.arraycopy(value, 0, bytes, end, length);
        offsets[++size] = end + length;
        return size - 1;
    }

    int size() {
        return size;
    }

    /** The bytes of all entries together. */
    int bytes() {
        return offsets[size];
    }

    Bytes get(int i) {
        return Bytes.of(Arrays.copyOfRange(bytes, offsets[i], offsets[i + 1]));
    }

    /** {@code prefix} followed by entry {@code i}, in a new array. */
    byte[] prefixed(byte[] prefix, int i) {
        byte[] out = Arrays.copyOf(prefix, prefix.length + offsets[i + 1] - offsets[i]);
        System.arraycopy(bytes, offsets[i], out, prefix.length, offsets[i + 1] - offsets[i]);
        return out;
    }

    boolean equalsAt(int i, byte[] other) {
        return equalsAt(i, other, 0, other.length);
    }

    /** Whether entry {@code i} holds {@code other[from..to)}. */
    boolean equalsAt(int i, byte[] other, int from, int to) {
        return Arrays.equals(bytes, offsets[i], offsets[i + 1], other, from, to);
    }

    boolean equalsAt(int i, ByteArena other, int j) {
        return Arrays.equals(bytes, offsets[i], offsets[i + 1], other.bytes, other.offsets[j], other.offsets[j + 1]);
    }

    /** The same hash as {@link Bytes#hashCode()} of the entry. */
    int hashAt(int i) {
        return hash(bytes, offsets[i], offsets[i + 1]);
    }

    static int hash(byte[] b, int from, int to) {
        int h = 1;
        for (int k = from; k < to; k++) {
            h = 31 * h + b[k];
        }
        return h;
    }

    /** Makes room for {@code entries} more entries of {@code bytesEach} bytes, so adding them copies nothing. */
    void reserve(int entries, int bytesEach) {
        long needed = Math.min((long) offsets[size] + (long) entries * bytesEach, Integer.MAX_VALUE - 16);
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) needed);
        }
        if (size + entries + 1 > offsets.length) {
            offsets = Arrays.copyOf(offsets, size + entries + 1);
        }
    }

    /**
     * Drops the spare capacity once no more entries come, where it is more than a quarter of what is
     * used (a copy of a little spare would briefly double the arena).
     */
    void trim() {
        if (bytes.length - offsets[size] > offsets[size] / 4) {
            bytes = Arrays.copyOf(bytes, offsets[size]);
        }
        if (offsets.length - (size + 1) > (size + 1) / 4) {
            offsets = Arrays.copyOf(offsets, size + 1);
        }
    }

    private static int grown(int current, int needed) {
        long next = Math.max((long) needed, current + (current >> 1) + 16);
        if (next > Integer.MAX_VALUE - 16) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("more than 2 GiB of ids in one snapshot");
            }
            next = Integer.MAX_VALUE - 16;
        }
        return (int) next;
    }
}
