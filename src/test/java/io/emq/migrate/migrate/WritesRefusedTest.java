package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * A server that refuses writes for a state of its own (a read-only replica, a disk it cannot save to) stops the
 * step with nothing lost; the run names the state and what to do, and a re-run once it is fixed resumes the step
 * without a repair and ends exactly once.
 */
class WritesRefusedTest {
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "refused";
    static final int JOBS = 1500;

    private static MigrationResult migrate(UnifiedJedis source, String sourceUri, Checkpoints.Observer observer) {
        return new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), sourceUri, MigrationOptions.defaults(),
                Checkpoints.observed(observer)).migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }

    /** {@code side} ({@code server}, at {@code address}) refused the run's write {@code because}; the message ends with {@code remedy}. */
    private static void assertStopped(MigrationResult r, MigrationRefused.Kind kind, UnifiedJedis server, String side, String address,
                                      String because, String remedy) {
        assertEquals(MigrationResult.Outcome.FAILED, r.outcome(), r.toString());
        assertEquals(Optional.of(kind), r.refusalKind(), r.toString());
        assertTrue(RefusingServer.named(r.message(), server, side, address, " refused a write " + because), r.message());
        assertTrue(r.message().endsWith(remedy + ", then run migrate again: the step resumes, nothing to repair"), r.message());
    }

    /** v1 as it was: every job waiting, no pause, its add counter a number. */
    private static void assertV1AsItWas(UnifiedJedis source) {
        assertEquals(JOBS, source.llen("bull:" + QUEUE + ":wait"));
        assertFalse(source.exists("bull:" + QUEUE + ":paused"));
        assertFalse(source.hexists("bull:" + QUEUE + ":meta", "paused"));
        assertEquals(Long.toString(JOBS), source.get("bull:" + QUEUE + ":id"));
    }

    @Test
    void aReplicaNamedAsTheSourceIsRefusedAtThePauseWithV1AsItWasAndARerunAtItsMasterFinishes() throws InterruptedException {
        try (LocalServer master = LocalServer.start(); LocalServer replica = LocalServer.start();
             UnifiedJedis primary = Endpoint.parse(master.uri()).open(); UnifiedJedis copy = Endpoint.parse(replica.uri()).open()) {
            V1QueueGenerator.addWaiting(primary, QUEUE, 1, JOBS, 100);
            copy.sendCommand(redis.clients.jedis.Protocol.Command.REPLICAOF, LocalServer.HOST, Integer.toString(master.port()));
            for (int i = 0; i < 500 && copy.llen("bull:" + QUEUE + ":wait") < JOBS; i++) {
                Thread.sleep(20);
            }
            assertEquals(JOBS, copy.llen("bull:" + QUEUE + ":wait"), "the replica holds the queue");
            MigrationResult r = migrate(copy, replica.uri(), (version, where) -> { });
            assertStopped(r, MigrationRefused.Kind.READ_ONLY, copy, "source", replica.uri(), "as a read-only replica (READONLY You can't write",
                    "point --source or --target at the master (after a failover, the new one)");
            assertTrue(r.message().startsWith("step V120 (retire source) of " + QUEUE + " stopped")
                    && r.message().contains("nothing was deleted, and the v1 queue serves as it did before the migration"), r.message());
            assertV1AsItWas(primary);
            MigrationResult again = migrate(primary, master.uri(), (version, where) -> { });
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
            assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), again.toString());
        }
    }

    @Test
    void aTargetThatCannotSaveToDiskStopsTheCopyAndARerunFinishesOnceItCan(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectory(dir.resolve("data")).toAbsolutePath();
        try (LocalServer target = LocalServer.start(LocalServer.requireBinary(), List.of("--dir", data.toString()));
             LocalServer v1 = LocalServer.start();
             UnifiedJedis targetClient = Endpoint.parse(target.uri()).open(); UnifiedJedis source = Endpoint.parse(v1.uri()).open()) {
            V1QueueGenerator.addWaiting(source, QUEUE, 1, JOBS, 100);
            int[] batches = {0};
            MigrationOptions options = MigrationOptions.defaults().withLease(Duration.ofMillis(300)); // the server refuses its release too
            MigrationResult r = new Migrator(Wire.unfenced(source), Wire.open(targetClient), v1.uri(), options,
                    Checkpoints.observed((version, where) -> {
                        if (version == 30 && where.equals("rows written") && batches[0]++ == 1) {
                            failTheNextSave(targetClient, data);
                        }
                    })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertStopped(r, MigrationRefused.Kind.DISK_ERROR, targetClient, "target", LocalServer.HOST + ":" + target.port(),
                    "as it cannot save to disk", "'s disk or its save settings (its log says why the save failed)");
            assertTrue(r.message().contains("(MISCONF ") && r.message().contains("; nothing was deleted;"), r.message());
            assertTrue(RefusingServer.named(r.message(), targetClient, "target", LocalServer.HOST + ":" + target.port(),
                    "'s disk or its save settings"), "the advice names the server too: " + r.message());
            assertV1AsItWas(source);
            targetClient.configSet("save", ""); // its operator turns saving off: writes are taken again
            Thread.sleep(400); // and the stopped run's lease lapses
            MigrationResult again = new Migrator(Wire.unfenced(source), Wire.open(targetClient), v1.uri(), options, Checkpoints.none()).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
            assertEquals(List.of(), LiveV1.exactlyOnce(targetClient, QUEUE, JOBS), again.toString());
        }
    }

    /** Turns saving on with its directory gone: the save it starts fails, and from then on the server refuses writes (MISCONF). */
    private static void failTheNextSave(UnifiedJedis server, Path data) {
        try {
            server.configSet("save", "3600 1");
            Files.delete(data);
            server.sendCommand(redis.clients.jedis.Protocol.Command.BGSAVE);
            for (int i = 0; i < 500 && !server.info("persistence").contains("rdb_last_bgsave_status:err"); i++) {
                Thread.sleep(10);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
