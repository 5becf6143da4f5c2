package io.emq.migrate.v1;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Many short byte strings in chunks of at most {@value #CHUNK} bytes, with the end of each entry in chunks of
 * at most {@value #ENDS_CHUNK} ints: about a tenth of the heap that one {@link Bytes} object per string costs;
 * entries are materialised as {@link Bytes} on demand. Append-only.
 *
 * <p>No array is over 256 KiB, so none is a humongous object for G1 at a heap of 512 MiB (its regions are 1 MiB;
 * a humongous object needs contiguous free regions and a full collection does not move it), and growing copies
 * nothing already held: a new chunk is added beside the full ones (only the first chunk of a small arena grows by
 * copying, up to a chunk). An entry never spans two chunks: one that does not fit in what is left of the last
 * chunk starts the next (the rest is left unused); an entry longer than a chunk gets an array of its own.
 *
 * <p>A chunk's array with its header takes a quarter of a 1 MiB region (256 KiB): four fill a region, where arrays of
 * 256 KiB of data each left a quarter of every region their compacted run filled unused.
 *
 * <p>Entries are addressed in one space of ints: chunk {@code k} holds addresses {@code [k * SLOT, (k + 1) * SLOT)}
 * (its last {@code SLOT - CHUNK} unused),
 * and an entry's end address is kept. Entry {@code i} starts where entry {@code i - 1} ends, or at the start of
 * the chunk its last byte is in when that is later. An entry of its own array takes a whole chunk's addresses
 * (its array is the one longer than {@value #CHUNK}).
 */
final class ByteArena {
    private static final int CHUNK_BITS = 18;
    /** The addresses of a chunk. */
    private static final int SLOT = 1 << CHUNK_BITS;
    /** The most bytes a chunk holds (256 KiB less an array's header: {@link HeapChunks}). */
    static final int CHUNK = HeapChunks.BYTES;
    /** The most ends a chunk of ends holds. */
    static final int ENDS_CHUNK = HeapChunks.of(Integer.BYTES);
    /** The first chunk's size when nothing is known of the entries to come. */
    private static final int FIRST_CHUNK = 64;
    /** The chunks' addresses end below 2 GiB. */
    private static final int MAX_SLOTS = Integer.MAX_VALUE / SLOT;
    private static final byte[] EMPTY = new byte[0];

    private final int firstChunk;
    private byte[][] chunks = new byte[1][];
    private int[][] ends = new int[1][];
    private int size;
    /** The end address of the last entry: where the next one starts if it fits in that chunk. */
    private int top;
    /** The bytes of all entries together. */
    private int stored;

    /** An arena whose first chunks are sized for {@code expectedEntries} entries of a few bytes. */
    ByteArena(int expectedEntries) {
        this.firstChunk = (int) Math.min(CHUNK, Math.max(FIRST_CHUNK, expectedEntries * 8L));
    }

    /** Appends one entry; returns its index. */
    int add(byte[] value) {
        return add(value, 0, value.length);
    }

    /** Appends entry {@code i} of {@code other}, its bytes copied from that arena's chunk; returns its index. */
    int add(ByteArena other, int i) {
        long span = other.span(i);
        int from = from(span);
        return add(other.chunkAt(span), from, other.to(span) - from);
    }

    /** Appends {@code value[from..from + length)} as one entry; returns its index. */
    private int add(byte[] value, int from, int length) {
        int end;
        if (length > CHUNK) {
            int slot = chunkOf(top) + (top % SLOT == 0 ? 0 : 1);
            end = endOfSlot(slot);
            chunkSlot(slot);
            chunks[slot] = Arrays.copyOfRange(value, from, from + length);
        } else if (length == 0) {
            end = top;
        } else {
            int start = top % SLOT + length > CHUNK ? endOfSlot(chunkOf(top)) : top;
            end = start + length;
            byte[] chunk = chunkFor(checked(chunkOf(start)), start % SLOT + length);
            System.arraycopy(value, from, chunk, start % SLOT, length);
        }
        setEnd(size, end);
        top = end;
        stored += length;
        return size++;
    }

    int size() {
        return size;
    }

    /** The bytes of all entries together. */
    int bytes() {
        return stored;
    }

    Bytes get(int i) {
        long span = span(i);
        return Bytes.of(Arrays.copyOfRange(chunkAt(span), from(span), to(span)));
    }

    /** {@code prefix} followed by entry {@code i}, in a new array. */
    byte[] prefixed(byte[] prefix, int i) {
        long span = span(i);
        int from = from(span);
        int length = to(span) - from;
        byte[] out = Arrays.copyOf(prefix, prefix.length + length);
        if (length > 0) {
            System.arraycopy(chunkAt(span), from, out, prefix.length, length);
        }
        return out;
    }

    boolean equalsAt(int i, byte[] other) {
        return equalsAt(i, other, 0, other.length);
    }

    /** Whether entry {@code i} holds {@code other[from..to)}. */
    boolean equalsAt(int i, byte[] other, int from, int to) {
        long span = span(i);
        return Arrays.equals(chunkAt(span), from(span), to(span), other, from, to);
    }

    /**
     * For each {@code k} with {@code entries[k] >= 0}, whether entry {@code entries[k]} holds the bytes of
     * {@code keys.get(k)} past {@code from} (false for the others): the answers of {@link #equalsAt(int, byte[], int, int)}
     * each, in two passes (every entry's span, then the comparisons), so that the reads of entries far apart, each a
     * cache miss in a large arena, are waited for together rather than one after another.
     */
    boolean[] equalsEach(int[] entries, List<Bytes> keys, int from) {
        long[] spans = new long[entries.length];
        for (int k = 0; k < entries.length; k++) {
            if (entries[k] >= 0) {
                spans[k] = span(entries[k]);
            }
        }
        boolean[] same = new boolean[entries.length];
        for (int k = 0; k < entries.length; k++) {
            if (entries[k] >= 0) {
                byte[] key = keys.get(k).raw();
                long span = spans[k];
                same[k] = Arrays.equals(chunkAt(span), from(span), to(span), key, from, key.length);
            }
        }
        return same;
    }

    boolean equalsAt(int i, ByteArena other, int j) {
        long span = span(i);
        long otherSpan = other.span(j);
        return Arrays.equals(chunkAt(span), from(span), to(span), other.chunkAt(otherSpan), other.from(otherSpan), other.to(otherSpan));
    }

    /** The same hash as {@link Bytes#hashCode()} of the entry. */
    int hashAt(int i) {
        long span = span(i);
        return hash(chunkAt(span), from(span), to(span));
    }

    /** The hashes of these ids ({@link Bytes#hashCode()}, which {@link #hashAt} gives of an entry), sorted for a binary search. */
    static int[] hashesOf(Set<Bytes> ids) {
        int[] hashes = ids.stream().mapToInt(Bytes::hashCode).toArray();
        Arrays.sort(hashes);
        return hashes;
    }

    static int hash(byte[] b, int from, int to) {
        int h = 1;
        for (int k = from; k < to; k++) {
            h = 31 * h + b[k];
        }
        return h;
    }

    /**
     * Makes room in the lists of chunks for {@code entries} more entries of {@code bytesEach} bytes, so adding them
     * reallocates neither list (the chunks themselves are made as entries come).
     */
    void reserve(int entries, int bytesEach) {
        long bytes = Math.min((long) top + (long) entries * bytesEach, Integer.MAX_VALUE);
        int slots = (int) ((bytes + CHUNK - 1) / CHUNK);
        if (slots > chunks.length) {
            chunks = Arrays.copyOf(chunks, slots);
        }
        int endSlots = (int) (((long) size + entries + ENDS_CHUNK - 1) / ENDS_CHUNK);
        if (endSlots > ends.length) {
            ends = Arrays.copyOf(ends, endSlots);
        }
    }

    /**
     * Drops the spare capacity of the last chunk of bytes and of ends once no more entries come, where it is more
     * than a quarter of what that chunk holds (a copy of at most a chunk).
     */
    void trim() {
        if (top > 0 && top % SLOT != 0) {
            int slot = chunkOf(top);
            chunks[slot] = trimmed(chunks[slot], top % SLOT);
        }
        if (size > 0) {
            int slot = size / ENDS_CHUNK;
            int used = size % ENDS_CHUNK;
            if (used > 0 && ends[slot].length - used > used / 4) {
                ends[slot] = Arrays.copyOf(ends[slot], used);
            }
        }
    }

    /** How many chunks of bytes the list of chunks has room for (for tests: reserve makes room ahead). */
    int chunkSlots() {
        return chunks.length;
    }

    private static byte[] trimmed(byte[] chunk, int used) {
        return chunk.length - used > used / 4 ? Arrays.copyOf(chunk, used) : chunk;
    }

    private static int chunkOf(int address) {
        return address >>> CHUNK_BITS;
    }

    /** The address one past the last of this chunk's. */
    private static int endOfSlot(int slot) {
        return (checked(slot) + 1) * SLOT;
    }

    /** {@code slot}, when its addresses end below 2 GiB. */
    private static int checked(int slot) {
        if (slot >= MAX_SLOTS) {
            throw new IllegalStateException("more than 2 GiB of ids in one snapshot");
        }
        return slot;
    }

    /** Makes the list of chunks hold {@code slot}. */
    private void chunkSlot(int slot) {
        if (slot >= chunks.length) {
            chunks = Arrays.copyOf(chunks, Math.max(slot + 1, chunks.length * 2));
        }
    }

    /** Chunk {@code slot}, made or grown (only while it is under a chunk) to hold {@code needed} bytes. */
    private byte[] chunkFor(int slot, int needed) {
        chunkSlot(slot);
        byte[] chunk = chunks[slot];
        if (chunk == null) {
            chunk = new byte[slot == 0 ? Math.max(firstChunk, needed) : CHUNK];
        } else if (chunk.length < needed) {
            chunk = Arrays.copyOf(chunk, (int) Math.min(CHUNK, Math.max(needed, chunk.length * 2L)));
        }
        chunks[slot] = chunk;
        return chunk;
    }

    private void setEnd(int i, int end) {
        int slot = i / ENDS_CHUNK;
        int at = i % ENDS_CHUNK;
        if (slot >= ends.length) {
            ends = Arrays.copyOf(ends, Math.max(slot + 1, ends.length * 2));
        }
        int[] chunk = ends[slot];
        if (chunk == null) {
            chunk = new int[slot == 0 ? Math.min(ENDS_CHUNK, Math.max(16, firstChunk / 8)) : ENDS_CHUNK];
        } else if (chunk.length <= at) {
            chunk = Arrays.copyOf(chunk, Math.min(ENDS_CHUNK, chunk.length * 2));
        }
        chunk[at] = end;
        ends[slot] = chunk;
    }

    private int endOf(int i) {
        return ends[i / ENDS_CHUNK][i % ENDS_CHUNK];
    }

    /** Entry {@code i}'s start address (high half) and end address (low half); both equal for an empty entry. */
    private long span(int i) {
        int end = endOf(i);
        int before = i == 0 ? 0 : endOf(i - 1);
        int start = end == before ? end : Math.max(before, chunkOf(end - 1) << CHUNK_BITS);
        return (long) start << 32 | end & 0xffffffffL;
    }

    /** The chunk that holds a span's bytes (an empty array for an empty span). */
    private byte[] chunkAt(long span) {
        int end = (int) span;
        return end == (int) (span >>> 32) ? EMPTY : chunks[chunkOf(end - 1)];
    }

    /** Where a span's bytes start in its chunk. */
    private static int from(long span) {
        int start = (int) (span >>> 32);
        return start == (int) span ? 0 : start % SLOT;
    }

    /** Where a span's bytes end in its chunk: the whole array for an entry of its own array. */
    private int to(long span) {
        int start = (int) (span >>> 32);
        int end = (int) span;
        if (start == end) {
            return 0;
        }
        byte[] chunk = chunks[chunkOf(end - 1)];
        return chunk.length > CHUNK ? chunk.length : start % SLOT + end - start;
    }
}
