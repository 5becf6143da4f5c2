package io.emq.migrate.v1;

import java.util.Arrays;

/** A set of 64-bit fingerprints (open addressing, linear probing, at most half full). */
final class FingerprintSet {
    private long[] table = new long[16];
    private int size;

    /** Adds a fingerprint; false when it was there. */
    boolean add(long fingerprint) {
        long f = fingerprint == 0 ? 1 : fingerprint; // 0 marks an empty slot
        int mask = table.length - 1;
        int slot = (int) (f ^ (f >>> 32)) & mask;
        while (table[slot] != 0) {
            if (table[slot] == f) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        table[slot] = f;
        if (++size * 2 > table.length) {
            grow();
        }
        return true;
    }

    private void grow() {
        long[] old = table;
        table = new long[old.length * 2];
        size = 0;
        Arrays.stream(old).filter(f -> f != 0).forEach(this::add);
    }

    /** A 64-bit fingerprint of a small tag and some bytes (FNV-1a, then a MurmurHash3 finaliser). */
    static long fingerprint(int tag, byte[] bytes) {
        long h = 0xcbf29ce484222325L ^ tag;
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb93e1a85ec53L;
        return h ^ (h >>> 33);
    }
}
