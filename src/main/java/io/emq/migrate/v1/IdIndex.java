package io.emq.migrate.v1;

import java.util.List;

/**
 * The set of distinct ids in a {@link ByteArena}: an open-addressing table (linear probing, at
 * most three quarters full) whose slots hold an entry number beside the id's hash, so a probe compares the
 * hash first and reads the arena's bytes only when the hashes match; equal bytes decide, so there
 * are no false matches. Eight bytes a slot instead of a {@code HashMap} node, a boxed key and its
 * array. For each distinct id it remembers the first entry added. The slots are held in chunks of at most
 * {@value #CHUNK} slots (256 KiB), so no array is a humongous object for G1 at a heap of 512 MiB.
 */
final class IdIndex {
    /** The most slots a chunk holds: with its array's header 256 KiB, four to a G1 region of 1 MiB. */
    static final int CHUNK = HeapChunks.of(Long.BYTES);
    /** How many entries {@link #putAllIfAbsent} reads the slots of before it fills them. */
    private static final int BLOCK = 512;

    /** In {@link #findAll}: the key's first slot is empty (or the key is not under the base), or holds another hash. */
    private static final int EMPTY = -1;
    private static final int OTHER = -2;

    private final ByteArena arena;
    /** Slot {@code s} is {@code table[s / CHUNK][s % CHUNK]}: (entry + 1) << 32 | mixed hash; 0 is empty. */
    private long[][] table;
    private int mask;
    private int size;

    IdIndex(ByteArena arena, int expected) {
        this.arena = arena;
        int capacity = 16;
        while (full(expected, capacity)) {
            capacity *= 2;
        }
        this.table = slots(capacity);
        this.mask = capacity - 1;
    }

    /** Indexes arena entry {@code entry} unless its id is there already; returns the entry that was there, or -1. */
    int putIfAbsent(int entry) {
        return putIfAbsent(entry, mix(arena.hashAt(entry)));
    }

    /** Told an entry whose id an earlier entry holds, and that first entry. */
    interface Repeats {
        void listedBefore(int entry, int first);
    }

    /**
     * Indexes arena entries {@code from} to {@code to} in order, as {@link #putIfAbsent} each, and tells {@code repeats}
     * each entry whose id was there. In blocks of {@value #BLOCK}: their hashes, then the slot each lands on (the reads
     * of many slots, each a cache miss in a large table, waited for together rather than one after another), then the
     * inserts, which find those slots cached.
     */
    void putAllIfAbsent(int from, int to, Repeats repeats) {
        int block = Math.min(BLOCK, Math.max(0, to - from)); // a small queue's few ids take arrays of their size
        int[] hashes = new int[block];
        long[] landed = new long[block];
        for (int start = from; start < to; start += BLOCK) {
            int n = Math.min(block, to - start);
            for (int k = 0; k < n; k++) {
                hashes[k] = mix(arena.hashAt(start + k));
            }
            for (int k = 0; k < n; k++) {
                landed[k] = at(hashes[k] & mask);
            }
            for (int k = 0; k < n; k++) { // a slot found empty is read again: an insert of this block may have filled it
                int first = landed[k] == 0 && at(hashes[k] & mask) == 0 ? putNew(start + k, hashes[k] & mask, hashes[k])
                        : putIfAbsent(start + k, hashes[k]);
                if (first >= 0) {
                    repeats.listedBefore(start + k, first);
                }
            }
        }
    }

    private int putIfAbsent(int entry, int hash) {
        int slot = slotOf(entry, hash);
        long ref = at(slot);
        if (ref != 0) {
            return entryIn(ref);
        }
        return putNew(entry, slot, hash);
    }

    /** Puts {@code entry} into the empty {@code slot}; -1. */
    private int putNew(int entry, int slot, int hash) {
        set(slot, ((long) (entry + 1) << 32) | (hash & 0xffffffffL));
        if (full(++size, mask + 1)) {
            grow();
        }
        return -1;
    }

    /** The first entry holding this id, or -1. */
    int find(byte[] id) {
        return find(id, 0);
    }

    /** The first entry holding the id {@code key[from..]} (a key past its queue's prefix), or -1. */
    int find(byte[] key, int from) {
        return find(key, from, key.length);
    }

    /** The first entry holding {@code key[from..to)}, or -1. */
    int find(byte[] key, int from, int to) {
        int hash = mix(ByteArena.hash(key, from, to));
        for (int slot = hash & mask; at(slot) != 0; slot = (slot + 1) & mask) {
            long ref = at(slot);
            if ((int) ref == hash && arena.equalsAt(entryIn(ref), key, from, to)) {
                return entryIn(ref);
            }
        }
        return -1;
    }

    /**
     * For each key, the first entry holding its id past {@code base} (as {@link #find(byte[], int)}), or -1, also
     * for a key that does not start with {@code base}. The same answers as a find per key, in three passes over
     * the keys (their hashes, then the slot each hash lands on, then the comparisons, {@link ByteArena#equalsEach}), so
     * that the reads of many slots, each a cache miss in a large table, are waited for together rather than one after
     * another.
     */
    int[] findAll(List<Bytes> keys, Bytes base) {
        int n = keys.size();
        int from = base.length();
        int[] found = new int[n];
        int[] hashes = new int[n];
        for (int k = 0; k < n; k++) {
            byte[] key = keys.get(k).raw();
            if (keys.get(k).startsWith(base)) {
                hashes[k] = mix(ByteArena.hash(key, from, key.length));
            } else {
                found[k] = -1;
            }
        }
        int[] landed = new int[n];
        for (int k = 0; k < n; k++) {
            long ref = at(hashes[k] & mask);
            landed[k] = found[k] < 0 || ref == 0 ? EMPTY : (int) ref == hashes[k] ? entryIn(ref) : OTHER;
        }
        boolean[] same = arena.equalsEach(landed, keys, from);
        for (int k = 0; k < n; k++) {
            byte[] key = keys.get(k).raw();
            found[k] = landed[k] == EMPTY ? -1 : same[k] ? landed[k] : find(key, from, key.length);
        }
        return found;
    }

    /** The first entry holding the id of {@code other}'s entry {@code entry}, or -1. */
    int find(ByteArena other, int entry) {
        int hash = mix(other.hashAt(entry));
        for (int slot = hash & mask; at(slot) != 0; slot = (slot + 1) & mask) {
            long ref = at(slot);
            if ((int) ref == hash && arena.equalsAt(entryIn(ref), other, entry)) {
                return entryIn(ref);
            }
        }
        return -1;
    }

    /** The first entry holding the same id as arena entry {@code entry} (itself when it is the first), or -1 when not indexed. */
    int first(int entry) {
        long ref = at(slotOf(entry, mix(arena.hashAt(entry))));
        return ref == 0 ? -1 : entryIn(ref);
    }

    /** The slot that holds the id of arena entry {@code entry} (whose mixed hash is {@code hash}), or the empty slot where it would go. */
    private int slotOf(int entry, int hash) {
        int slot = hash & mask;
        while (at(slot) != 0 && ((int) at(slot) != hash || !arena.equalsAt(entryIn(at(slot)), arena, entry))) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    boolean contains(Bytes id) {
        return find(id.raw()) >= 0;
    }

    /** Whether {@code entries} ids fill more than three quarters of {@code slots}. */
    private static boolean full(long entries, int slots) {
        return entries * 4 > slots * 3L;
    }

    private static int entryIn(long ref) {
        return (int) (ref >>> 32) - 1;
    }

    private void grow() {
        long[][] old = table;
        table = slots(Math.multiplyExact(mask + 1, 2));
        mask = mask * 2 + 1;
        for (long[] chunk : old) {
            for (long ref : chunk) {
                if (ref != 0) {
                    int slot = (int) ref & mask;
                    while (at(slot) != 0) {
                        slot = (slot + 1) & mask;
                    }
                    set(slot, ref);
                }
            }
        }
    }

    /** Empty slots, {@code capacity} of them (a power of two), in chunks. */
    private static long[][] slots(int capacity) {
        long[][] chunks = new long[(capacity + CHUNK - 1) / CHUNK][];
        for (int c = 0; c < chunks.length; c++) {
            chunks[c] = new long[Math.min(CHUNK, capacity - c * CHUNK)];
        }
        return chunks;
    }

    private long at(int slot) {
        return table[slot / CHUNK][slot % CHUNK];
    }

    private void set(int slot, long ref) {
        table[slot / CHUNK][slot % CHUNK] = ref;
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
