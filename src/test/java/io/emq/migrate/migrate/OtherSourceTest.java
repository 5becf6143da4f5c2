package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * A run resumes a migration only from the v1 server it began from: a {@code --source} naming another server's
 * queue of the same name is refused before anything is written (resuming there brought v2 in line with that
 * queue and retired it); the replica a failover promoted, which shares the data's replication id, is followed,
 * whether the migration had paused v1 yet or not.
 */
class OtherSourceTest {
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "moved";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    @BeforeEach
    void clean() {
        TARGET.client().flushAll();
    }

    private static List<MigrationResult> migrate(UnifiedJedis source, String sourceName, Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), sourceName, OPTIONS, checkpoints)
                .migrate(List.of("bull"), List.of(QUEUE));
    }

    private static Journal journal() {
        return new Journal(Wire.open(TARGET.client()), QUEUE);
    }

    /** Lets another owner take the journal's lease now, as if the crashed run's lease had lapsed. */
    private static void leaseLapses() {
        TARGET.client().hdel(journal().key(), "lock_owner");
    }

    @Test
    void aRunNamingAnotherServersQueueOfTheSameNameIsRefusedWithNothingWrittenAndTheServerItBeganFromFinishes() {
        try (LocalServer first = LocalServer.start(); UnifiedJedis began = Endpoint.parse(first.uri()).open();
             LocalServer second = LocalServer.start(); UnifiedJedis other = Endpoint.parse(second.uri()).open()) {
            V1QueueGenerator.addWaiting(began, QUEUE, 1, JOBS, 100);
            V1QueueGenerator.addWaiting(other, QUEUE, 1, JOBS - 10, 40);
            assertThrows(Checkpoints.InjectedCrash.class,
                    () -> migrate(began, first.uri(), Checkpoints.throwingAt("110:verified, not yet recorded#1")));
            leaseLapses();
            String otherBefore = new KeyspaceDump(other).digest();
            List<FixtureKey> queueBefore = v2Queue();

            MigrationResult refused = migrate(other, second.uri(), Checkpoints.none()).get(0);
            assertEquals(Optional.of(MigrationRefused.Kind.OTHER_SOURCE), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("re-run with --source " + Endpoint.parse(first.uri()).describe()), refused.message());
            assertEquals(otherBefore, new KeyspaceDump(other).digest(), "the other server's queue untouched");
            assertEquals(queueBefore, v2Queue(), "nothing written to the v2 queue (the journal's lease aside)");

            String sameServerAnotherUser = first.uri().replace("redis://", "redis://default@");
            MigrationResult finished = migrate(began, sameServerAnotherUser, Checkpoints.none()).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
            assertEquals(JOBS, TARGET.client().zcard(Keys.queue(QUEUE).pending()), "every job of the server it began from, once");
            assertEquals(SourceFence.TOMBSTONE, began.hget("bull:" + QUEUE + ":meta", "version"));
        }
    }

    /** Stopped while v1 served, inside the pause window, and past the tombstone. */
    @ParameterizedTest
    @ValueSource(strings = {"110:verified, not yet recorded#1", "120:v1 paused#1", "120:structures deleted#1"})
    void aQueueTheMigrationPausedIsFollowedToTheReplicaAFailoverPromotedAndTheJournalRecordsItsAddress(String stop) throws Exception {
        try (LocalServer primary = LocalServer.start(LocalServer.requireBinary(), List.of("--repl-diskless-sync-delay", "0"));
             UnifiedJedis old = Endpoint.parse(primary.uri()).open();
             LocalServer replica = LocalServer.start(LocalServer.requireBinary(),
                     List.of("--replicaof", LocalServer.HOST, Integer.toString(primary.port())));
             UnifiedJedis promoted = Endpoint.parse(replica.uri()).open()) {
            V1QueueGenerator.addWaiting(old, QUEUE, 1, JOBS, 100);
            assertThrows(Checkpoints.InjectedCrash.class,
                    () -> migrate(old, primary.uri(), Checkpoints.throwingAt(stop)));
            awaitReplicated(old, promoted);
            promoted.sendCommand(redis.clients.jedis.Protocol.Command.REPLICAOF, "NO", "ONE");
            leaseLapses();

            MigrationResult finished = migrate(promoted, replica.uri(), Checkpoints.none()).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
            assertEquals(JOBS, TARGET.client().zcard(Keys.queue(QUEUE).pending()), "every job once");
            assertEquals(SourceFence.TOMBSTONE, promoted.hget("bull:" + QUEUE + ":meta", "version"), "the promoted replica retired");
            assertFalse(promoted.exists("bull:" + QUEUE + ":1"));
            assertEquals(Optional.of(Endpoint.parse(replica.uri()).describe()), journal().header().get(JournalHeader.SOURCE));
        }
    }

    /** Every key of the target but the journal (whose lease the refused run took), with its value. */
    private static List<FixtureKey> v2Queue() {
        String journal = journal().key();
        return new KeyspaceDump(TARGET.client()).read().stream().filter(k -> !k.key().utf8().equals(journal)).toList();
    }

    /** Waits until the replica holds what the primary holds (the pause, when there is one, among it). */
    private static void awaitReplicated(UnifiedJedis primary, UnifiedJedis replica) throws InterruptedException {
        String want = new KeyspaceDump(primary).digest();
        for (int i = 0; i < 400 && !want.equals(new KeyspaceDump(replica).digest()); i++) {
            Thread.sleep(50);
        }
        assertEquals(want, new KeyspaceDump(replica).digest(), "the replica caught up");
    }
}
