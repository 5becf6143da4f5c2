package io.emq.migrate.v1;

import java.util.Arrays;

/** A {@code long} per job that is nearly always one default value: the array exists only once another value is set. */
final class LongColumn {
    private final int capacity;
    private final long otherwise;
    private long[] values;

    LongColumn(int capacity, long otherwise) {
        this.capacity = capacity;
        this.otherwise = otherwise;
    }

    void set(int i, long value) {
        if (values == null) {
            if (value == otherwise) {
                return;
            }
            values = new long[capacity];
            if (otherwise != 0) {
                Arrays.fill(values, otherwise);
            }
        }
        values[i] = value;
    }

    long get(int i) {
        return values == null ? otherwise : values[i];
    }
}
