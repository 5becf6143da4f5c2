package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class VersionFenceTest {
    @Test
    void theExpectedVersionIsTheEnvironmentsWhenSetElseTheDefault() {
        assertEquals("echomq:2.0.0", VersionFence.configured(null));
        assertEquals("echomq:2.0.0", VersionFence.configured("  "));
        assertEquals("echomq:3.0.0", VersionFence.configured(" echomq:3.0.0 "));
    }
}
