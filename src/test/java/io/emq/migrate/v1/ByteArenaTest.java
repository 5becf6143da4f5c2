package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The segmented {@link ByteArena}: every entry reads back as added (bytes, hash, equality with an array and with an
 * entry of another arena laid out at other places, a prefix) at the edges of its chunks of bytes and of ends, for
 * an entry longer than a chunk, for empty entries, after a trim, and copied entry by entry from another arena; room
 * reserved ahead is not reallocated.
 */
class ByteArenaTest {
    private static final int CHUNK = ByteArena.CHUNK;

    @Test
    void entriesEndingAtAChunkEdgeOrNotFittingInItReadBackAsAdded() {
        List<byte[]> entries = new ArrayList<>();
        entries.add(filled(CHUNK - 10, 1));
        entries.add(filled(10, 2)); // ends exactly at the first chunk's edge
        entries.add(filled(7, 3)); // starts the second chunk at its first byte
        entries.add(filled(CHUNK - 10, 4)); // 3 bytes left in the second chunk
        entries.add(filled(4, 5)); // does not fit: starts the third chunk, the 3 bytes stay unused
        entries.add(filled(CHUNK, 6)); // exactly a chunk: does not fit either, fills the fourth
        entries.add(filled(1, 7));
        assertReadsBack(entries);
        ByteArena arena = arenaOf(entries);
        assertEquals(entries.stream().mapToInt(e -> e.length).sum(), arena.bytes(), "unused chunk ends are not counted");
    }

    @Test
    void anEntryLongerThanAChunkGetsAnArrayOfItsOwnBetweenShortOnes() {
        List<byte[]> entries = new ArrayList<>();
        entries.add(filled(CHUNK + 1, 1)); // the first entry
        entries.add(filled(5, 2)); // after it: a chunk's first byte
        entries.add(filled(3 * CHUNK + 17, 3)); // in the middle of a chunk: the next slot
        entries.add(filled(CHUNK + 2, 4)); // right after another long one
        entries.add(new byte[0]);
        entries.add(filled(9, 5));
        assertReadsBack(entries);
    }

    @Test
    void emptyEntriesAnywhereReadBackEmpty() {
        List<byte[]> entries = new ArrayList<>();
        entries.add(new byte[0]); // the first entry, no chunk yet
        entries.add(new byte[0]);
        entries.add(filled(CHUNK, 1)); // a full chunk: the next entry's address is the next chunk's first
        entries.add(new byte[0]);
        entries.add(filled(3, 2));
        entries.add(new byte[0]);
        entries.add(filled(CHUNK + 5, 3));
        entries.add(new byte[0]);
        assertReadsBack(entries);
        ByteArena arena = arenaOf(entries);
        assertTrue(arena.equalsAt(0, new byte[0]));
        assertTrue(arena.equalsAt(3, arena, 7));
        assertEquals(Bytes.of(new byte[0]).hashCode(), arena.hashAt(5));
    }

    @Test
    void manyEntriesOfEveryLengthAcrossChunksOfBytesAndOfEndsReadBackAsAdded() {
        Random random = new Random(7);
        List<byte[]> entries = new ArrayList<>();
        while (entries.size() < 3 * ByteArena.ENDS_CHUNK + 11) {
            int length = random.nextInt(2_000) == 0 ? random.nextInt(CHUNK / 2) : random.nextInt(40);
            byte[] e = new byte[length];
            random.nextBytes(e);
            entries.add(e);
        }
        assertReadsBack(entries);
    }

    @Test
    void entriesOfTwoArenasLaidOutDifferentlyCompareByTheirBytes() {
        ByteArena one = new ByteArena(1);
        ByteArena other = new ByteArena(1);
        other.add(filled(CHUNK - 3, 9)); // the other arena's entries start 3 bytes before a chunk's edge
        for (int i = 0; i < 5_000; i++) {
            byte[] id = ("job-" + i).getBytes();
            one.add(id);
            other.add(id);
        }
        for (int i = 0; i < 5_000; i++) {
            assertTrue(one.equalsAt(i, other, i + 1), "entry " + i);
            assertEquals(one.hashAt(i), other.hashAt(i + 1));
            assertFalse(one.equalsAt(i, other, i == 0 ? 2 : i));
        }
    }

    /** G1's regions are 1 MiB at a heap of 512 MiB: four chunks fill one, each array with its header. */
    @Test
    void aChunkWithItsArrayHeaderIsAQuarterOfARegion() {
        assertEquals(1 << 18, ByteArena.CHUNK + HeapChunks.HEADER);
        assertEquals(1 << 18, ByteArena.ENDS_CHUNK * Integer.BYTES + HeapChunks.HEADER);
        assertEquals(1 << 18, PackedColumn.CHUNK + HeapChunks.HEADER);
        assertEquals(1 << 18, IdIndex.CHUNK * Long.BYTES + HeapChunks.HEADER);
        assertEquals(0, PackedColumn.CHUNK % Long.BYTES, "no value spans two chunks");
    }

    @Test
    void addingWhatWasReservedReallocatesNoListOfChunks() {
        ByteArena arena = new ByteArena(1);
        arena.add(filled(3, 1));
        arena.reserve(200_000, 8);
        int slots = arena.chunkSlots();
        assertTrue(slots >= 200_000 * 8 / CHUNK, "room for the chunks of 1.6 MB: " + slots);
        for (int i = 0; i < 200_000; i++) {
            arena.add(filled(8, i));
        }
        assertEquals(slots, arena.chunkSlots(), "the list of chunks is the one reserve made");
    }

    @Test
    void aTrimmedArenaReadsBackAndTakesMoreEntries() {
        List<byte[]> entries = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            entries.add(filled(i % 13, i));
        }
        ByteArena arena = arenaOf(entries);
        arena.trim();
        entries.add(filled(1_000, 5));
        arena.add(entries.get(entries.size() - 1));
        assertSame(entries, arena);
    }

    private static void assertReadsBack(List<byte[]> entries) {
        ByteArena added = arenaOf(entries);
        assertSame(entries, added);
        ByteArena sized = new ByteArena(entries.size());
        entries.forEach(sized::add);
        sized.trim();
        assertSame(entries, sized);
        ByteArena copied = new ByteArena(1);
        for (int i = 0; i < added.size(); i++) {
            assertEquals(i, copied.add(added, i));
        }
        assertSame(entries, copied);
    }

    private static ByteArena arenaOf(List<byte[]> entries) {
        ByteArena arena = new ByteArena(1);
        for (int i = 0; i < entries.size(); i++) {
            assertEquals(i, arena.add(entries.get(i)));
        }
        return arena;
    }

    private static void assertSame(List<byte[]> entries, ByteArena arena) {
        assertEquals(entries.size(), arena.size());
        byte[] prefix = {'p', ':'};
        for (int i = 0; i < entries.size(); i++) {
            byte[] e = entries.get(i);
            assertEquals(Bytes.of(e), arena.get(i), "entry " + i);
            assertEquals(Bytes.of(e).hashCode(), arena.hashAt(i), "entry " + i);
            assertTrue(arena.equalsAt(i, e), "entry " + i);
            assertTrue(arena.equalsAt(i, arena, i));
            byte[] padded = new byte[e.length + 2];
            System.arraycopy(e, 0, padded, 1, e.length);
            assertTrue(arena.equalsAt(i, padded, 1, e.length + 1), "entry " + i + " inside a longer array");
            assertFalse(arena.equalsAt(i, padded), "entry " + i + " against another length");
            byte[] prefixed = arena.prefixed(prefix, i);
            assertArrayEquals(prefix, Arrays.copyOf(prefixed, 2));
            assertArrayEquals(e, Arrays.copyOfRange(prefixed, 2, prefixed.length));
        }
        assertEqualsEachAnswersAsEqualsAt(entries, arena);
    }

    /** {@link ByteArena#equalsEach}: each entry against its own key, the next entry's key, and no entry (-1). */
    private static void assertEqualsEachAnswersAsEqualsAt(List<byte[]> entries, ByteArena arena) {
        byte[] prefix = {'p', ':'};
        List<Bytes> keys = new ArrayList<>();
        int[] own = new int[3 * entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            byte[] key = Arrays.copyOf(prefix, prefix.length + entries.get(i).length);
            System.arraycopy(entries.get(i), 0, key, prefix.length, entries.get(i).length);
            for (int copy = 0; copy < 3; copy++) {
                keys.add(Bytes.of(key));
            }
            own[3 * i] = i;
            own[3 * i + 1] = (i + 1) % entries.size();
            own[3 * i + 2] = -1;
        }
        boolean[] same = arena.equalsEach(own, keys, prefix.length);
        for (int k = 0; k < keys.size(); k++) {
            byte[] key = keys.get(k).raw();
            boolean alone = own[k] >= 0 && arena.equalsAt(own[k], key, prefix.length, key.length);
            assertEquals(alone, same[k], "key " + k + " against entry " + own[k]);
        }
        for (int i = 0; i < entries.size(); i++) {
            assertTrue(same[3 * i], "entry " + i + " holds its own key");
        }
    }

    private static byte[] filled(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }
}
