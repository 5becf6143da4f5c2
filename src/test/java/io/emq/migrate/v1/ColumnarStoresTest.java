package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The compact stores behind {@link QueueSnapshot}: arena, id index, sparse columns, bounded anomalies. */
class ColumnarStoresTest {
    @Test
    void theIndexFindsEveryIdOnceAndItsFirstEntryWithoutFalseMatches() {
        ByteArena arena = new ByteArena(2);
        // "Aa" and "BB" share a Java hash code; the empty id and a binary id are ids too
        byte[][] ids = {b("Aa"), b("BB"), b(""), {(byte) 0xff, 0, 1}, b("Aa"), b("7")};
        for (byte[] id : ids) {
            arena.add(id);
        }
        for (int i = 0; i < 50_000; i++) {
            arena.add(b(Integer.toString(i + 100))); // past several growths of arena and table
        }
        IdIndex index = new IdIndex(arena, 4);
        Set<Integer> firstEntries = new HashSet<>();
        for (int e = 0; e < arena.size(); e++) {
            int first = index.putIfAbsent(e);
            if (first >= 0) {
                firstEntries.add(first);
                assertEquals(4, e, "only the second Aa is listed twice");
                assertEquals(0, first);
            }
        }
        assertEquals(Set.of(0), firstEntries);
        assertEquals(0, index.first(4));
        assertEquals(1, index.find(b("BB")));
        assertEquals(2, index.find(b("")));
        assertEquals(3, index.find(new byte[] {(byte) 0xff, 0, 1}));
        assertEquals(6 + 49_999, index.find(b("50099")));
        assertEquals(-1, index.find(b("A")));
        assertEquals(-1, index.find(b("50100")));
        assertTrue(index.contains(Bytes.utf8("7")));
        assertEquals(Bytes.of(new byte[] {(byte) 0xff, 0, 1}), arena.get(3));
        assertEquals(Bytes.utf8("Aa").hashCode(), arena.hashAt(0));
    }

    @Test
    void indexingManyEntriesAtOnceAnswersAsIndexingEachAlone() {
        ByteArena arena = new ByteArena(2);
        java.util.Random random = new java.util.Random(13);
        for (String id : new String[] {"Aa", "BB", "", "Aa", ""}) { // "Aa" and "BB" share a hash code
            arena.add(b(id));
        }
        for (int i = 0; i < 5_000; i++) {
            arena.add(b(Integer.toString(random.nextInt(3_000)))); // repeats near and far, across many blocks
        }
        IdIndex alone = new IdIndex(arena, 4);
        java.util.List<String> told = new java.util.ArrayList<>();
        for (int e = 0; e < arena.size(); e++) {
            int first = alone.putIfAbsent(e);
            if (first >= 0) {
                told.add(e + "<-" + first);
            }
        }
        IdIndex atOnce = new IdIndex(arena, 4); // grows while it fills, as the one alone
        java.util.List<String> toldAtOnce = new java.util.ArrayList<>();
        atOnce.putAllIfAbsent(0, 3, (entry, first) -> toldAtOnce.add(entry + "<-" + first)); // fewer than a block
        atOnce.putAllIfAbsent(3, 3, (entry, first) -> toldAtOnce.add(entry + "<-" + first)); // none
        atOnce.putAllIfAbsent(3, 1_000, (entry, first) -> toldAtOnce.add(entry + "<-" + first));
        atOnce.putAllIfAbsent(1_000, arena.size(), (entry, first) -> toldAtOnce.add(entry + "<-" + first));
        assertEquals(told, toldAtOnce);
        assertTrue(told.contains("3<-0") && told.contains("4<-2"), "the second Aa and the second empty id");
        for (int e = 0; e < arena.size(); e++) {
            assertEquals(alone.first(e), atOnce.first(e), "entry " + e);
        }
    }

    @Test
    void findingManyKeysAtOnceAnswersAsFindingEachAlone() {
        ByteArena arena = new ByteArena(2);
        for (String id : new String[] {"Aa", "BB", "", "Aa"}) { // "Aa" and "BB" share a hash code
            arena.add(b(id));
        }
        for (int i = 0; i < 20_000; i += 2) {
            arena.add(b(Integer.toString(i)));
        }
        IdIndex index = new IdIndex(arena, 4);
        for (int e = 0; e < arena.size(); e++) {
            index.putIfAbsent(e);
        }
        Bytes base = Bytes.utf8("bull:q:");
        java.util.List<Bytes> keys = new java.util.ArrayList<>();
        for (String k : new String[] {"bull:q:Aa", "bull:q:BB", "bull:q:", "bull:q", "bull:r:Aa", "other", "bull:q:Ab", "bull:q:Aa:lock"}) {
            keys.add(Bytes.utf8(k));
        }
        for (int i = 0; i < 20_000; i++) {
            keys.add(Bytes.utf8("bull:q:" + i)); // half listed, half not: every probe length the table has
        }
        int[] found = index.findAll(keys, base);
        assertEquals(keys.size(), found.length);
        for (int k = 0; k < keys.size(); k++) {
            byte[] key = keys.get(k).raw();
            int alone = keys.get(k).startsWith(base) ? index.find(key, base.length()) : -1;
            assertEquals(alone, found[k], keys.get(k).display());
        }
        assertEquals(0, found[0]);
        assertEquals(1, found[1]);
        assertEquals(2, found[2]);
        assertEquals(-1, found[3], "shorter than the base");
        assertEquals(-1, found[4], "another base");
    }

    @Test
    void theIndexFindsAnIdInsideALongerKeyAndTheArenaPrefixesAnEntry() {
        ByteArena arena = new ByteArena(2);
        arena.add(b("bull:q:"));
        arena.add(b("bull:q:7"));
        IdIndex index = new IdIndex(arena, 2);
        index.putIfAbsent(0);
        index.putIfAbsent(1);
        byte[] key = b("bull:q:7:lock");
        assertEquals(0, index.find(key, 0, 7));
        assertEquals(1, index.find(key, 0, 8));
        assertEquals(-1, index.find(key, 0, 9));
        assertEquals(-1, index.find(key, 1, 8));
        assertEquals("jobs:bull:q:7", new String(arena.prefixed(b("jobs:"), 1), StandardCharsets.UTF_8));
        assertEquals("bull:q:", new String(arena.prefixed(new byte[0], 0), StandardCharsets.UTF_8));
    }

    @Test
    void theIdSetHoldsEachIdOnce() {
        IdSet set = new IdSet();
        for (int i = 0; i < 5_000; i++) {
            set.add(Bytes.utf8(Integer.toString(i % 2_000))); // past the first growth, every id added more than once
        }
        set.add(Bytes.of(new byte[0]));
        assertEquals(2_001, set.size());
        assertTrue(set.contains(Bytes.utf8("1999")));
        assertTrue(set.contains(Bytes.of(new byte[0])));
        assertFalse(set.contains(Bytes.utf8("2000")));
    }

    @Test
    void aColumnSetOutOfOrderKeepsEveryValueAsItWidens() {
        PackedColumn column = new PackedColumn(1_000, 10);
        column.set(500, 12);
        column.set(7, 11); // below the highest index set
        column.set(8, 10 + 300); // widens to 2 bytes: copies up to index 500, not past it
        column.set(600, 10 + 70_000); // widens to 4 bytes past the highest index set before
        column.set(3, 10 - (1L << 40)); // and to 8
        assertEquals(12, column.get(500));
        assertEquals(11, column.get(7));
        assertEquals(310, column.get(8));
        assertEquals(70_010, column.get(600));
        assertEquals(10 - (1L << 40), column.get(3));
        assertEquals(10, column.get(999), "never set: the base");
        assertEquals(10, column.get(0), "never set: the base");
    }

    @Test
    void aColumnOfMoreThanAChunkKeepsEveryValueAcrossItsChunksAsItWidens() {
        int n = PackedColumn.CHUNK / 4 + 3; // 4-byte values spill into a second chunk, 8-byte ones into a third
        PackedColumn column = new PackedColumn(n, 0);
        for (int i = 0; i < n; i++) {
            column.set(i, i * 3L); // widens to 1, 2, then 4 bytes
        }
        column.set(n - 2, Long.MAX_VALUE); // and to 8
        for (int i = 0; i < n; i++) {
            assertEquals(i == n - 2 ? Long.MAX_VALUE : i * 3L, column.get(i), "value " + i);
        }
        PackedColumn last = new PackedColumn(n, 7);
        last.set(n - 1, 7 + 100_000); // 4 bytes a value: only the second chunk is made
        assertEquals(7, last.get(0), "in a chunk never made: the base");
        assertEquals(7, last.get(n - 2));
        assertEquals(7 + 100_000, last.get(n - 1));
    }

    @Test
    void theScoresOfAZsetStateOfMoreThanAChunkAreKeptBesideTheirIds() {
        ListedIds ids = new ListedIds();
        ids.begin(V1State.WAIT, false);
        ids.add(b("w"));
        ids.begin(V1State.DELAYED, true);
        ids.reserve(70_000);
        for (int i = 0; i < 70_000; i++) {
            ids.add(b("d" + i), i * 4096.0 + 0.5); // past two chunks of 32 Ki scores
        }
        ids.trim();
        ids.trim(); // a refresh that keeps these ids trims them again
        assertEquals(70_000, ids.count(V1State.DELAYED));
        for (int i = 0; i < 70_000; i++) {
            assertEquals(i * 4096.0 + 0.5, ids.score(ids.from(V1State.DELAYED) + i, V1State.DELAYED), "score " + i);
        }
        assertTrue(Double.isNaN(ids.score(0, V1State.WAIT)), "a list state has no scores");
        assertEquals(Bytes.utf8("d69999"), ids.id(70_000));
    }

    @Test
    void sparseAndDefaultColumnsAnswerForEveryIndex() {
        PackedColumn ttl = new PackedColumn(5, -2);
        ttl.set(0, -2);
        assertEquals(-2, ttl.get(4));
        ttl.set(3, 1500);
        assertEquals(1500, ttl.get(3));
        assertEquals(-2, ttl.get(0));
        assertEquals(-2, ttl.get(4));
        long[] values = {1_764_547_200_123L, 1_764_547_200_123L, 1_764_547_200_000L, 1_764_547_260_000L,
            1_764_547_200_123L + Integer.MAX_VALUE + 1, Long.MIN_VALUE, Long.MAX_VALUE, -1, 0};
        PackedColumn created = new PackedColumn(values.length); // the first value is the base; widens 0 -> 1 -> 2 -> 4 -> 8 bytes
        for (int i = 0; i < values.length; i++) {
            created.set(i, values[i]);
            for (int k = 0; k <= i; k++) {
                assertEquals(values[k], created.get(k), "value " + k + " after " + (i + 1) + " were set");
            }
        }
        SparseBytes parents = new SparseBytes();
        for (int i = 0; i < 20; i += 3) {
            parents.put(i, Bytes.utf8("bull:p:" + i));
        }
        parents.put(21, null);
        assertEquals(Bytes.utf8("bull:p:9"), parents.get(9));
        assertNull(parents.get(10));
        assertNull(parents.get(21));
        NameTable names = new NameTable();
        assertEquals(names.ref("send"), names.ref("send"));
        assertEquals(-1, names.ref(null));
        assertNull(names.name(-1));
        assertEquals("café", names.name(names.ref("café")));
        for (int i = 0; i < NameTable.DISTINCT + 10; i++) {
            names.ref("job-" + i);
        }
        int past = names.ref("past the shared ones");
        assertEquals("past the shared ones", names.name(past));
        assertEquals("send", names.name(names.ref("send")));
    }

    @Test
    void anomaliesAreBoundedPerKindAndCountedOncePerKey() {
        AnomalyLog log = new AnomalyLog();
        int distinct = AnomalyLog.KEPT_PER_KIND + 500;
        for (int round = 0; round < 2; round++) { // every key reported twice: counted once
            for (int i = 0; i < distinct; i++) {
                log.add(AnomalyKind.EXPIRED_LOCK, Bytes.utf8("bull:q:" + i), "stalled " + round);
            }
        }
        log.add(AnomalyKind.MISSING_HASH, Bytes.utf8("bull:q:gone"), "gone");
        assertEquals(AnomalyLog.KEPT_PER_KIND + 1, log.kept().size());
        assertEquals(distinct, log.counts().get(AnomalyKind.EXPIRED_LOCK));
        assertEquals(1, log.counts().get(AnomalyKind.MISSING_HASH));
        assertEquals("stalled 0", log.kept().get(0).reason(), "the first reason of a key is kept");
        assertFalse(log.kept().stream().anyMatch(a -> a.key().equals(Bytes.utf8("bull:q:" + AnomalyLog.KEPT_PER_KIND))));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
