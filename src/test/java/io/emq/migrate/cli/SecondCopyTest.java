package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A copy left at verified in one target (--no-retire) after another migration retired the v1 queue into another target:
 * verify with the source names it stale instead of verifying it against a v1 queue that is only a tombstone, and abandon
 * deletes it.
 */
class SecondCopyTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aCopyWhoseV1WasRetiredIntoAnotherTargetIsToldStaleByVerifyAndAbandoned() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "small", 1, 3, 40);
        try (LocalServer other = LocalServer.start()) {
            CliRun kept = CliRun.of("migrate", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small", "--no-retire");
            assertEquals(0, kept.code(), kept.all());
            CliRun verified = CliRun.of("verify", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small");
            assertEquals(0, verified.code(), verified.all());

            CliRun retired = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--yes");
            assertEquals(0, retired.code(), retired.all());
            CliRun stale = CliRun.of("verify", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small");
            assertEquals(ExitCodes.REFUSED, stale.code(), stale.all());
            assertTrue(stale.err().contains("was retired by another migration") && stale.err().contains("must not be served")
                    && stale.err().contains("emq-migrate abandon --queue small"), stale.err());
            CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--target", other.uri(), "--queue", "small", "--yes");
            assertEquals(0, abandon.code(), abandon.all());
            assertTrue(abandon.out().contains("v1-retired-by-another"), abandon.out());
            assertEquals(3, SERVER.client().zcard("emq:{small}:pending"), "the retiring migration's copy, whole");
        }
    }
}
