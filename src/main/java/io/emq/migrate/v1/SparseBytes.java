package io.emq.migrate.v1;

import java.util.Arrays;
import java.util.function.IntConsumer;

/** Byte-string values that few jobs have ({@code parentKey}, {@code rjk}), by job index; indexes are added in increasing order. */
final class SparseBytes {
    private static final int[] NONE = new int[0];
    /** Made with the first value (most columns never get one). */
    private ByteArena values;
    private int[] keys = NONE;
    private int size;

    void put(int index, Bytes value) {
        if (value == null) {
            return;
        }
        if (values == null) {
            values = new ByteArena(4);
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2 + 4);
        }
        keys[size++] = index;
        values.add(value.raw());
    }

    /** Hands on the index of each job that has a value, in index order. */
    void forEachIndex(IntConsumer each) {
        for (int k = 0; k < size; k++) {
            each.accept(keys[k]);
        }
    }

    /** The value of job {@code index}, or null. */
    Bytes get(int index) {
        int at = Arrays.binarySearch(keys, 0, size, index);
        return at < 0 ? null : values.get(at);
    }
}
