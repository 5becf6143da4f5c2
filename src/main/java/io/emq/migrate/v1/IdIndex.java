package io.emq.migrate.v1;

/**
 * The set of distinct ids in a {@link ByteArena}: an open-addressing table of entry numbers
 * (linear probing, at most half full), compared byte for byte against the arena, so there are
 * no false matches. Four to eight bytes per id instead of a {@code HashMap} node, a boxed key and
 * its array. For each distinct id it remembers the first entry added.
 */
final class IdIndex {
    private final ByteArena arena;
    private int[] table; // entry + 1; 0 is empty
    private int mask;
    private int size;

    IdIndex(ByteArena arena, int expected) {
        this.arena = arena;
        int capacity = Integer.highestOneBit(Math.max(16, expected) * 2 - 1) << 1;
        this.table = new int[capacity];
        this.mask = capacity - 1;
    }

    /** Indexes arena entry {@code entry} unless its id is there already; returns the entry that was there, or -1. */
    int putIfAbsent(int entry) {
        int slot = slotOf(entry);
        if (table[slot] != 0) {
            return table[slot] - 1;
        }
        table[slot] = entry + 1;
        if (++size * 2 > table.length) {
            grow();
        }
        return -1;
    }

    /** The first entry holding this id, or -1. */
    int find(byte[] id) {
        int slot = mix(ByteArena.hash(id, 0, id.length)) & mask;
        while (table[slot] != 0) {
            int entry = table[slot] - 1;
            if (arena.equalsAt(entry, id)) {
                return entry;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    /** The first entry holding the same id as arena entry {@code entry} (itself when it is the first), or -1 when not indexed. */
    int first(int entry) {
        return table[slotOf(entry)] - 1;
    }

    /** The slot that holds the id of arena entry {@code entry}, or the empty slot where it would go. */
    private int slotOf(int entry) {
        int slot = mix(arena.hashAt(entry)) & mask;
        while (table[slot] != 0 && !arena.equalsAt(table[slot] - 1, arena, entry)) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    boolean contains(Bytes id) {
        return find(id.raw()) >= 0;
    }

    private void grow() {
        int[] old = table;
        table = new int[old.length * 2];
        mask = table.length - 1;
        for (int ref : old) {
            if (ref != 0) {
                int slot = mix(arena.hashAt(ref - 1)) & mask;
                while (table[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = ref;
            }
        }
    }

    /** Spreads the polynomial byte hash (sequential ids differ only in low bits). */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }
}
