package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

class ScanTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPrefixWithGlobCharactersMatchesOnlyItselfAcrossPages() {
        UnifiedJedis c = SERVER.client();
        for (int i = 0; i < 2500; i++) {
            c.set("q*[a]?:" + i, "x");
        }
        c.set("qa?:1", "x"); // both match q*[a]?:* read as a glob
        c.set("qZZa!:1", "x");
        Set<String> found = new HashSet<>(Scan.keys(c, Scan.startingWith("q*[a]?:")));
        assertEquals(2500, found.size());
        assertTrue(found.stream().allMatch(k -> k.startsWith("q*[a]?:")), found.toString());
    }

    @Test
    void binaryKeysAreScannedAsBytes() {
        UnifiedJedis c = SERVER.client();
        byte[] key = {'v', '1', (byte) 0xff, ':', '1'};
        c.set(key, b("x"));
        c.set(b("v1:other"), b("x"));
        List<byte[]> found = new ArrayList<>();
        Scan.keys(c, Scan.startingWith(new byte[] {'v', '1', (byte) 0xff}), found::addAll);
        assertEquals(1, found.size());
        assertArrayEquals(key, found.get(0));
    }

    @Test
    void aLargeHashIsReadPageByPageWithItsValues() {
        UnifiedJedis c = SERVER.client();
        byte[] hash = b("{emq}:migration:scan");
        for (int i = 0; i < 2500; i++) {
            c.hset(hash, b("v2:" + i), b("v1-" + i));
            c.hset(hash, b("r:" + i), b("pending 0"));
        }
        Map<String, String> seen = new HashMap<>();
        int[] pages = {0};
        Scan.hash(c, hash, Scan.startingWith(b("v2:")), page -> {
            pages[0]++;
            page.forEach(e -> seen.put(new String(e.getKey(), StandardCharsets.UTF_8), new String(e.getValue(), StandardCharsets.UTF_8)));
        });
        assertEquals(2500, seen.size());
        assertEquals("v1-42", seen.get("v2:42"));
        assertTrue(pages[0] > 1, "more than one page: " + pages[0]);
    }
}
