package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The compact list of a snapshot's dedup keys gives back every key as added, past the end of a chunk of TTLs. */
class DedupKeysTest {
    @Test
    void everyKeyComesBackAsAddedAcrossChunks() {
        DedupKeys keys = new DedupKeys();
        int n = 2 * HeapChunks.of(Long.BYTES) + 5;
        for (int i = 0; i < n; i++) {
            keys.add(Bytes.utf8("d" + i), Bytes.utf8(Integer.toString(i)), i % 3 == 0 ? -1 : i);
        }
        keys.trim();
        assertEquals(n, keys.size());
        for (int i = 0; i < n; i++) {
            assertEquals(new DedupEntry(Bytes.utf8("d" + i), Bytes.utf8(Integer.toString(i)), i % 3 == 0 ? -1 : i), keys.get(i));
        }
        assertThrows(IndexOutOfBoundsException.class, () -> keys.get(n));
    }
}
