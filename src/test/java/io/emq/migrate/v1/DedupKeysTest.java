package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The compact list of a snapshot's dedup keys gives back every key as added, past the end of a chunk of TTLs, each TTL
 * as what is left of it (a key without one, or gone, as read).
 */
class DedupKeysTest {
    @Test
    void everyKeyComesBackAsAddedAcrossChunksItsTtlRunningOn() {
        DedupKeys keys = new DedupKeys();
        int n = 2 * HeapChunks.of(Long.BYTES) + 5;
        long readAt = System.currentTimeMillis() - 1_000; // read a second ago
        for (int i = 0; i < n; i++) {
            keys.add(Bytes.utf8("d" + i), Bytes.utf8(Integer.toString(i)), pttl(i), readAt);
        }
        keys.trim();
        assertEquals(n, keys.size());
        for (int i = 0; i < n; i++) {
            DedupEntry e = keys.get(i);
            assertEquals(Bytes.utf8("d" + i), e.dedupId());
            assertEquals(Bytes.utf8(Integer.toString(i)), e.jobId());
            if (pttl(i) < 0) {
                assertEquals(pttl(i), e.pttlMs(), "as read: " + i);
            } else {
                long left = Math.max(1, pttl(i) - 1_000); // at most what was left a second after the read
                assertTrue(e.pttlMs() <= left && e.pttlMs() > left - 5_000, i + ": " + e.pttlMs() + " against " + left);
            }
        }
        assertThrows(IndexOutOfBoundsException.class, () -> keys.get(n));
    }

    @Test
    void theKeysNamingSomeIdsOrJobsAreThoseInOrderNotThoseOfTheSameHash() {
        DedupKeys keys = new DedupKeys();
        for (String[] k : new String[][] {{"Aa", "1"}, {"BB", "2"}, {"c", "Aa"}, {"d", "BB"}, {"e", "3"}}) {
            keys.add(Bytes.utf8(k[0]), Bytes.utf8(k[1]), -1, 0);
        }
        assertEquals(Bytes.utf8("Aa").hashCode(), Bytes.utf8("BB").hashCode());
        assertEquals(List.of("BB", "d"), names(keys.naming(Set.of(Bytes.utf8("BB")), Set.of(Bytes.utf8("BB")))),
                "the key named BB and the key of job BB, not those of Aa");
        assertEquals(List.of("Aa", "e"), names(keys.naming(Set.of(Bytes.utf8("Aa")), Set.of(Bytes.utf8("3")))));
        assertEquals(List.of(), names(keys.naming(Set.of(), Set.of())));
    }

    private static List<String> names(List<DedupEntry> entries) {
        return entries.stream().map(e -> e.dedupId().utf8()).toList();
    }

    /** Every third key without a TTL, every seventh gone; the others with TTLs of 0.5 to 10 s. */
    private static long pttl(int i) {
        return i % 3 == 0 ? -1 : i % 7 == 0 ? -2 : 500 + i % 9_500;
    }
}
