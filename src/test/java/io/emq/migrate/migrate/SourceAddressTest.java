package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.wire.Endpoint;
import org.junit.jupiter.api.Test;

/** Which journal-recorded sources name the server a run names ({@link Endpoint#describe} on both sides). */
class SourceAddressTest {
    private static boolean same(String recorded, String given) {
        return SourceAddress.of(Endpoint.parse(recorded).describe()).sameServer(SourceAddress.of(Endpoint.parse(given).describe()));
    }

    @Test
    void theUserAndTheSchemeDoNotMatterTheHostPortAndDatabaseDo() {
        assertTrue(same("redis://10.0.0.5:6379", "redis://migrator:secret@10.0.0.5:6379"));
        assertTrue(same("redis://admin@10.0.0.5:6379/2", "rediss://10.0.0.5:6379/2"));
        assertFalse(same("redis://10.0.0.5:6379", "redis://10.0.0.6:6379"));
        assertFalse(same("redis://10.0.0.5:6379", "redis://10.0.0.5:6380"));
        assertFalse(same("redis://10.0.0.5:6379", "redis://10.0.0.5:6379/1"));
    }

    @Test
    void aClusterIsTheSameWhenItsSeedsShareANodeButNeverAStandaloneServer() {
        assertTrue(same("10.0.0.1:7000,10.0.0.2:7000", "10.0.0.2:7000,10.0.0.3:7000"));
        assertFalse(same("10.0.0.1:7000,10.0.0.2:7000", "10.0.0.3:7000,10.0.0.4:7000"));
        assertFalse(same("10.0.0.1:7000,10.0.0.2:7000", "redis://10.0.0.1:7000"));
    }
}
