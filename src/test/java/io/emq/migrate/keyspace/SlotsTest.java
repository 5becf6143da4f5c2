package io.emq.migrate.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
