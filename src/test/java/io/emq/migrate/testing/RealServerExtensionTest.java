package io.emq.migrate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RealServerExtensionTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aRealServerAnswersOnLoopback() {
        SERVER.client().set("k", "v");
        assertEquals("v", SERVER.client().get("k"));
        assertFalse(SERVER.source().isEmpty());
    }

    @Test
    void eachTestStartsFromAnEmptyServer() {
        SERVER.client().set("leftover", "x");
        SERVER.client().del("leftover");
        assertEquals(0, SERVER.client().dbSize());
    }
}
