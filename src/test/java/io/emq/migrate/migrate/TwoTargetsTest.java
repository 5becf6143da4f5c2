package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * One v1 queue, two migrations into two targets (an operator re-running with another {@code --target}): its jobs
 * end up served by one target only. A migration stopped inside its pause window keeps the queue (the other is
 * refused before it writes); a migration stopped earlier, whose queue the other retired meanwhile, is refused with
 * its copy paused (before: it resumed its v2 queue and both targets served every job), and {@code abandon}
 * deletes that copy.
 */
class TwoTargetsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "twice";
    static final int JOBS = 200;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));
    static final String META = "bull:" + QUEUE + ":meta";

    @BeforeEach
    void generate() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), QUEUE, 1, JOBS, 100);
    }

    /** Migrates the queue of {@link #SERVER} into {@code target}. */
    private static MigrationResult migrate(UnifiedJedis target, Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(SERVER.client()), Wire.open(target), SERVER.uri(), OPTIONS, checkpoints)
                .migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }

    /** Lets another owner take the lease of the journal on {@code target}, as if the crashed run's lease had lapsed. */
    private static void leaseLapses(UnifiedJedis target) {
        target.hdel(new Journal(Wire.open(target), QUEUE).key(), "lock_owner");
    }

    @Test
    void aQueueInsideAnotherMigrationsPauseWindowIsRefusedBeforeAnyWriteAndThatMigrationFinishesAlone() {
        try (LocalServer second = LocalServer.start(); UnifiedJedis other = Endpoint.parse(second.uri()).open()) {
            assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(SERVER.client(), Checkpoints.throwingAt("120:v1 paused#1")));
            String token = SERVER.client().hget(META, "migrating-token");

            MigrationResult refused = migrate(other, Checkpoints.none());
            assertEquals(Optional.of(MigrationRefused.Kind.LOCKED), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("is inside the pause window of the migration with token " + token), refused.message());
            assertEquals(0, other.zcard(Keys.queue(QUEUE).pending()), "nothing copied into the other target");
            assertEquals(null, other.hget(Keys.queue(QUEUE).meta(), "migration"), "its v2 fence let go");
            assertEquals(token, SERVER.client().hget(META, "migrating-token"), "v1 still the first migration's");
            assertEquals(null, other.hget(new Journal(Wire.open(other), QUEUE).key(), "lock_owner"),
                    "the refused run let go of its own lease: a re-run need not wait for it to lapse");

            leaseLapses(SERVER.client());
            MigrationResult finished = migrate(SERVER.client(), Checkpoints.none());
            assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
            assertEquals(List.of(), LiveV1.exactlyOnce(SERVER.client(), QUEUE, JOBS));
        }
    }

    /**
     * The first migration pauses v1 while the second is between journaling its own pause and making it: the second's
     * pause writes nothing to v1, its journaled pause is forgotten and its copy stays paused; the first finishes alone.
     */
    @Test
    void aMigrationWhosePauseFindsAnothersWindowIsRefusedWithNothingWrittenToV1() {
        try (LocalServer second = LocalServer.start(); UnifiedJedis other = Endpoint.parse(second.uri()).open()) {
            MigrationResult refused = migrate(other, Checkpoints.observed((version, where) -> {
                if (version == 120 && where.equals("pause recorded")) {
                    assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(SERVER.client(), Checkpoints.throwingAt("120:v1 paused#1")));
                }
            }));
            String token = SERVER.client().hget(META, "migrating-token");
            assertEquals(Optional.of(MigrationRefused.Kind.LOCKED), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("inside the pause window of the migration with token " + token), refused.message());
            assertEquals(Optional.empty(), new Journal(Wire.open(other), QUEUE).header().get(JournalHeader.V1_PAUSED_AT),
                    "its journaled pause forgotten: it paused nothing");
            assertEquals("1", other.hget(Keys.queue(QUEUE).meta(), "paused"), "the second copy is not served");

            leaseLapses(SERVER.client());
            MigrationResult finished = migrate(SERVER.client(), Checkpoints.none());
            assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
            assertEquals(List.of(), LiveV1.exactlyOnce(SERVER.client(), QUEUE, JOBS));
        }
    }

    /** Stopped while v1 served, and between journaling its pause and making it (abandon then finds the other's tombstone). */
    @ParameterizedTest
    @ValueSource(strings = {"110:verified, not yet recorded#1", "120:pause recorded#1"})
    void aMigrationWhoseQueueAnotherRetiredMeanwhileIsRefusedWithItsCopyPausedAndAbandonDeletesTheCopy(String stop) {
        try (LocalServer second = LocalServer.start(); UnifiedJedis other = Endpoint.parse(second.uri()).open()) {
            assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(SERVER.client(), Checkpoints.throwingAt(stop)));
            MigrationResult retired = migrate(other, Checkpoints.none());
            assertEquals(MigrationResult.Outcome.RETIRED, retired.outcome(), retired.message());
            assertEquals(List.of(), LiveV1.exactlyOnce(other, QUEUE, JOBS));
            String token = SERVER.client().hget(META, "migrating-token");
            assertTrue(token != null && !token.isEmpty(), "the tombstone names the migration that retired the queue");

            leaseLapses(SERVER.client());
            MigrationResult refused = migrate(SERVER.client(), Checkpoints.none());
            assertEquals(Optional.of(MigrationRefused.Kind.RETIRED), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("was retired by the migration with token " + token), refused.message());
            assertEquals("1", SERVER.client().hget(Keys.queue(QUEUE).meta(), "paused"), "the first target's copy is not served");
            assertEquals(JOBS, SERVER.client().zcard(Keys.queue(QUEUE).pending()));

            Map<String, Long> undone = Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), QUEUE, OPTIONS.lease());
            assertEquals((long) JOBS, undone.get("rows"), undone.toString());
            assertEquals(1L, undone.get("v1-retired-by-another"), undone.toString());
            assertEquals(0, SERVER.client().zcard(Keys.queue(QUEUE).pending()), "the copy deleted");
            assertEquals(SourceFence.TOMBSTONE, SERVER.client().hget(META, "version"), "v1 left as it is");
            assertEquals(List.of(), LiveV1.exactlyOnce(other, QUEUE, JOBS), "the other target keeps every job");
        }
    }

    /**
     * Running beside each other: the second migration runs to the end while the first copies, and retires the queue; the
     * first, going on, is refused at its next read of the queue (before: its catch-up found the queue empty and dropped
     * every row, and its retirement took the tombstone for its own and failed on it), its copy as it was, paused.
     */
    @Test
    void aMigrationWhoseQueueAnotherRetiresWhileItCopiesIsRefusedAtItsNextPassWithItsCopyPaused() {
        try (LocalServer second = LocalServer.start(); UnifiedJedis other = Endpoint.parse(second.uri()).open()) {
            MigrationResult[] retired = new MigrationResult[1];
            MigrationResult refused = migrate(SERVER.client(), Checkpoints.observed((version, where) -> {
                if (version == 30 && where.equals("rows written") && retired[0] == null) {
                    retired[0] = migrate(other, Checkpoints.none());
                }
            }));
            assertEquals(MigrationResult.Outcome.RETIRED, retired[0].outcome(), retired[0].message());
            assertEquals(List.of(), LiveV1.exactlyOnce(other, QUEUE, JOBS));
            assertEquals(Optional.of(MigrationRefused.Kind.RETIRED), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("since this one began"), refused.message());
            assertEquals(JOBS, SERVER.client().zcard(Keys.queue(QUEUE).pending()), "its copy as it was: no row dropped");
            assertEquals("1", SERVER.client().hget(Keys.queue(QUEUE).meta(), "paused"), "and not served");
        }
    }

    /** The script's rules for a queue another journal holds: its pause window, its tombstone. */
    @Test
    void anotherJournalsPauseWindowIsLeftToItAndItsTombstoneIsNotThisJournals() {
        Wire source = Wire.unfenced(SERVER.client());
        QueueRef q = QueueRef.of("bull", QUEUE);
        SourceFence.pause(source, q, "j-1:3");
        assertThrows(EmqWireException.Lock.class, () -> SourceFence.pause(source, q, "j-2:1"));
        assertEquals(SourceFence.Claim.NOT_PAUSED_HERE, SourceFence.claim(source, q, "j-2:1"));
        assertEquals("j-1:3", SERVER.client().hget(META, "migrating-token"), "neither took the queue");
        assertEquals(SourceFence.Claim.PAUSED_HERE, SourceFence.claim(source, q, "j-1:4"));

        SourceFence.thaw(source, q, "j-1:4"); // the window closed (as a give-back does); the counter no longer frozen
        SERVER.client().set("bull:" + QUEUE + ":id", SourceFence.FROZEN);
        assertEquals(SourceFence.Claim.NOT_PAUSED_HERE, SourceFence.claim(source, q, "j-2:1"),
                "a frozen counter beside another journal's token is not a pause of this one");
        assertEquals("j-2:1", SERVER.client().hget(META, "migrating-token"), "with the window closed, the queue is taken over");

        SERVER.client().hset(META, "version", SourceFence.TOMBSTONE);
        assertEquals(SourceFence.Claim.RETIRED_BY_ANOTHER, SourceFence.claim(source, q, "j-3:1"));
        assertEquals("j-2:1", SERVER.client().hget(META, "migrating-token"), "nothing written");
        assertThrows(EmqWireException.State.class, () -> SourceFence.claim(source, q, "j-2:2"), "its own journal's tombstone");
    }
}
