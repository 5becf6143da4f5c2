package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target that keeps an append-only file writes it to disk about a second after a write: before v1 gives anything up
 * (the tombstone, the deletion of its jobs), the run waits until the target wrote v2's rows there. This server (Redis
 * before 7.2) has no WAITAOF, so the run gives it as long as appendfsync everysec may take; a target without an
 * append-only file is not waited for.
 */
class TargetOnDiskTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    private static final String QUEUE = "durable";

    /** The ms at which each "v2 on disk" was hit, and the ms of the checkpoint hit just before each. */
    private static List<long[]> migrate(UnifiedJedis target) {
        SOURCE.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, 20, 50);
        long[] last = {System.nanoTime()};
        List<long[]> waits = new ArrayList<>();
        MigrationResult r = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), MigrationOptions.defaults(),
                Checkpoints.observed((version, where) -> {
                    long now = System.nanoTime();
                    if (where.equals("v2 on disk")) {
                        waits.add(new long[] {last[0], now});
                    }
                    last[0] = now;
                })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(target, QUEUE, 20), r.toString());
        return waits;
    }

    @Test
    void anAppendOnlyTargetIsWaitedForBeforeV1GivesAnythingUp(@TempDir Path dir) {
        try (LocalServer server = LocalServer.start(LocalServer.requireBinary(), List.of("--appendonly", "yes", "--appendfsync", "everysec",
                "--dir", dir.toAbsolutePath().toString()));
             UnifiedJedis target = Endpoint.parse(server.uri()).open()) {
            List<long[]> waits = migrate(target);
            assertTrue(waits.size() >= 3, "before the pause, before the tombstone, before the jobs are deleted: " + waits.size());
            for (long[] w : waits) {
                assertTrue((w[1] - w[0]) / 1_000_000 >= ReplicaAcks.EVERYSEC.toMillis(), "waited " + (w[1] - w[0]) / 1_000_000 + " ms");
            }
        }
    }

    @Test
    void aTargetWithoutAnAppendOnlyFileIsNotWaitedFor() {
        try (LocalServer server = LocalServer.start(); UnifiedJedis target = Endpoint.parse(server.uri()).open()) {
            assertEquals(List.of(), migrate(target));
        }
    }
}
