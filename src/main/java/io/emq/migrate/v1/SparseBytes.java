package io.emq.migrate.v1;

import java.util.Arrays;

/** Byte-string values that few jobs have ({@code parentKey}, {@code rjk}), by job index; indexes are added in increasing order. */
final class SparseBytes {
    private final ByteArena values = new ByteArena(4);
    private int[] keys = new int[4];
    private int size;

    void put(int index, Bytes value) {
        if (value == null) {
            return;
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
        }
        keys[size++] = index;
        values.add(value.raw());
    }

    /** The value of job {@code index}, or null. */
    Bytes get(int index) {
        int at = Arrays.binarySearch(keys, 0, size, index);
        return at < 0 ? null : values.get(at);
    }
}
