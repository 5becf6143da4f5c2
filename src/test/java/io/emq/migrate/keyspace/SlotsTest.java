package io.emq.migrate.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlotsTest {
    @Test
    void contractVectors() {
        assertEquals(12739, Slots.slot("123456789"));
        assertEquals(105, Slots.slot("emq:{orders}:pending"));
        assertEquals(4165, Slots.slot("emq:{fills}:pending"));
        assertEquals(8507, Slots.slot("{payments}"));
        assertEquals(9051, Slots.slot("{emq}:version"));
        assertEquals(7450, Slots.slot("q1"));
    }

    @Test
    void hashtagRules() {
        assertEquals(Slots.slot("orders"), Slots.slot("x{orders}y"));
        assertEquals(Slots.slot("a{}b"), Slots.crc16("a{}b".getBytes(), 0, 4) % 16384);
        assertEquals(Slots.slot("{a"), Slots.crc16("{a".getBytes(), 0, 2) % 16384);
        assertEquals(Slots.slot("a"), Slots.slot("{a}{b}"));
    }

    /** A prefix pins its keys' slot when it holds a whole hashtag: every key under it then hashes as it does. */
    @Test
    void aPrefixPinsTheSlotOfItsKeysWhenItHoldsAWholeHashtag() {
        for (String pinning : new String[] {"{v1}:orders:", "bull:{orders}:", "{a}{b}:"}) {
            assertTrue(Slots.pins(pinning.getBytes()), pinning);
            for (String rest : new String[] {"1", "wait", "x}y", "{z}"}) {
                assertEquals(Slots.slot(pinning), Slots.slot(pinning + rest), pinning + rest);
            }
        }
        for (String spreading : new String[] {"bull:orders:", "{}{v1}:", "bull:{orders:", "}{"}) {
            assertFalse(Slots.pins(spreading.getBytes()), spreading);
        }
        assertNotEquals(Slots.slot("bull:{orders:"), Slots.slot("bull:{orders:}"), "a tag its keys close: another slot");
    }
}
