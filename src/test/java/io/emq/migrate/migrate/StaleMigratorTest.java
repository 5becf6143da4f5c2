package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The v1 side is fenced as the target is: whoever takes a v1 queue (a migration's pause, an abandon of a
 * migration that got that far) leaves its journal's token on v1's meta, and a migrator of that journal whose lease
 * lapsed (a lower token) can then neither pause v1, nor give it back, nor stamp the tombstone. Abandon, which
 * deletes every v2 row, refuses a v1 queue that holds the tombstone already (a run that stopped inside retirement
 * left v2 the only whole copy), and gives back only a pause the v1 queue shows.
 */
class StaleMigratorTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "stale";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    @BeforeEach
    void generate() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), QUEUE, 1, JOBS, 100);
    }

    private UnifiedJedis client() {
        return SERVER.client();
    }

    private List<MigrationResult> migrate(Checkpoints checkpoints) {
        return MigrationHarness.migrate(SERVER, SERVER, OPTIONS, checkpoints, List.of("bull"));
    }

    private Journal journal() {
        return new Journal(Wire.open(client()), QUEUE);
    }

    /** Lets another owner take the journal's lease now, as if this run's lease had lapsed: its owner is forgotten. */
    private void leaseLapses() {
        client().hdel(journal().key(), "lock_owner");
    }

    private Map<String, Long> abandon() {
        return Abandon.run(Wire.unfenced(client()), Wire.open(client()), QUEUE, OPTIONS.lease());
    }

    @Test
    void abandonAndNoRetireAfterARunStoppedPastTheTombstoneAreRefusedWithNothingChangedAndARerunFinishes() throws Exception {
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(Checkpoints.throwingAt("120:structures deleted#1")));
        assertEquals(SourceFence.TOMBSTONE, client().hget("bull:stale:meta", "version"), "the run stopped past the tombstone");
        assertFalse(client().exists("bull:stale:paused"), "with v1's structures deleted");
        leaseLapses();

        MigrationRefused refused = assertThrows(MigrationRefused.class, this::abandon);
        assertEquals(MigrationRefused.Kind.RETIRED, refused.kind(), refused.getMessage());
        assertTrue(refused.getMessage().contains("holds the tombstone") && refused.getMessage().contains("run migrate again"),
                refused.getMessage());
        assertEquals(JOBS, client().zcard(Keys.queue(QUEUE).pending()), "every v2 row kept");
        assertEquals(Optional.of(MigrationState.VERIFIED), journal().header().get(JournalHeader.STATE), "the journal as it was");

        MigrationResult shortOfIt = MigrationHarness.migrate(SERVER, SERVER, OPTIONS.withRetire(false), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.RETIRED), shortOfIt.refusalKind(), "--no-retire cannot stop a retirement"
                + " begun: " + shortOfIt);
        assertTrue(shortOfIt.message().contains("run migrate again without --no-retire to finish it"), shortOfIt.message());

        MigrationResult again = migrate(Checkpoints.none()).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(client(), QUEUE, JOBS));

        MigrationResult done = MigrationHarness.migrate(SERVER, SERVER, OPTIONS.withRetire(false), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, done.outcome(), "--no-retire on a queue retired already has nothing to"
                + " stop short of (the runbook's `--all --no-retire` once some queues were cut over): " + done);
        assertEquals(Optional.empty(), done.refusalKind(), done.toString());
    }

    @Test
    void aMigratorThatLostTheQueueToAnAbandonBeforeItsPauseLeavesV1Serving() {
        AtomicReference<Map<String, Long>> undone = new AtomicReference<>();
        MigrationResult result = migrate(Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("pause recorded") && undone.get() == null) {
                leaseLapses();
                undone.set(abandon()); // while this migrator stalls between journaling its pause and pausing v1
            }
        })).get(0);

        assertEquals(0L, undone.get().get("v1-resumed"), "abandon found no pause of this migration on v1: " + undone.get());
        assertEquals(1L, undone.get().get("v1-not-paused-here"), "and says so");
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), result.refusalKind(), result.toString());
        assertEquals(null, client().hget("bull:stale:meta", "paused"), "v1 is not paused");
        assertEquals(Long.toString(JOBS), client().get("bull:stale:id"), "nor its add counter frozen");
        assertEquals(JOBS, client().llen("bull:stale:wait"), "every job waits in v1");
        assertTrue(LiveV1.add(client(), QUEUE).isPresent(), "a v1 producer adds");
        assertFalse(client().exists(Keys.queue(QUEUE).pending()), "v2 keeps no row");
        assertEquals(Optional.of(MigrationState.ABANDONED), journal().header().get(JournalHeader.STATE));

        client().del(journal().key()); // as a migration into another target starts a journal of its own
        MigrationResult elsewhere = migrate(Checkpoints.none()).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, elsewhere.outcome(), "another journal takes the queue over: " + elsewhere);
        assertEquals(List.of(), LiveV1.exactlyOnce(client(), QUEUE, JOBS + 1));
    }

    @Test
    void aMigratorThatLostTheQueueInsideTheWindowStampsNoTombstone() {
        AtomicBoolean once = new AtomicBoolean();
        MigrationResult result = migrate(Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("before retire") && once.compareAndSet(false, true)) {
                leaseLapses(); // another migrator takes the queue over and claims v1, then stalls in its turn
                JournalLease other = journal().lease();
                other.acquire("other", 60_000);
                SourceFence.claim(Wire.unfenced(client()), QueueRef.of("bull", QUEUE), other.sourceToken());
            }
        })).get(0);

        assertTrue(once.get(), "the takeover happened");
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), result.refusalKind(), result.toString());
        assertEquals("bullmq:5.65.1", client().hget("bull:stale:meta", "version"), "no tombstone");
        assertEquals(JOBS, client().llen("bull:stale:paused"), "v1's jobs still listed, paused for the other migrator");
        assertEquals(SourceFence.FROZEN, client().get("bull:stale:id"), "its add counter still frozen");
    }

    /**
     * An abandon after a crash inside the window, its {@code --source} naming another server where a queue of the
     * same name is paused by its own operator: that queue shows no pause of this migration and is left paused;
     * the v1 queue the migration paused stays paused too, as abandon says, until given back by hand.
     */
    @Test
    void anAbandonGivesBackNoQueueItDidNotPause() throws Exception {
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(Checkpoints.throwingAt("120:v1 paused#1")));
        leaseLapses();
        try (LocalServer other = LocalServer.start(); UnifiedJedis elsewhere = Endpoint.parse(other.uri()).open()) {
            V1QueueGenerator.addWaiting(elsewhere, QUEUE, 1, 10, 100);
            elsewhere.rename("bull:stale:wait", "bull:stale:paused");
            elsewhere.hset("bull:stale:meta", "paused", "1");

            Map<String, Long> undone = Abandon.run(Wire.unfenced(elsewhere), Wire.open(client()), QUEUE, OPTIONS.lease());
            assertEquals(0L, undone.get("v1-resumed"), undone.toString());
            assertEquals(1L, undone.get("v1-not-paused-here"), undone.toString());
            assertEquals("1", elsewhere.hget("bull:stale:meta", "paused"), "the other server's queue is still paused");
            assertEquals(10, elsewhere.llen("bull:stale:paused"), "its jobs still in paused");
            assertEquals("10", elsewhere.get("bull:stale:id"));
        }
        assertEquals("1", client().hget("bull:stale:meta", "paused"), "the queue the migration paused stays paused");
        assertEquals(SourceFence.FROZEN, client().get("bull:stale:id"));
    }

    /** A pause by the release before this one left no token: its frozen add counter shows it, and abandon gives it back. */
    @Test
    void anAbandonGivesBackAPauseThatLeftNoToken() {
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(Checkpoints.throwingAt("120:v1 paused#1")));
        client().hdel("bull:stale:meta", "migrating-token");
        leaseLapses();
        assertEquals(1L, abandon().get("v1-resumed"));
        assertEquals(null, client().hget("bull:stale:meta", "paused"));
        assertEquals(Long.toString(JOBS), client().get("bull:stale:id"));
        assertEquals(JOBS, client().llen("bull:stale:wait"));
    }

    @Test
    void aLowerTokenOfTheSameJournalCanNeitherPauseNorGiveBackNorClaimWhileAnotherJournalsTakesTheQueueOver() {
        Wire source = Wire.unfenced(client());
        QueueRef q = QueueRef.of("bull", QUEUE);
        SourceFence.pause(source, q, "j-1:5");
        SourceFence.claim(source, q, "j-1:7");
        assertThrows(EmqWireException.Lock.class, () -> SourceFence.resume(source, q, "j-1:5"));
        assertThrows(EmqWireException.Lock.class, () -> SourceFence.thaw(source, q, "j-1:6"));
        assertThrows(EmqWireException.Lock.class, () -> SourceFence.pause(source, q, "j-1:6"));
        assertThrows(EmqWireException.Lock.class, () -> SourceFence.claim(source, q, "j-1:3"));
        assertEquals("1", client().hget("bull:stale:meta", "paused"), "still paused");
        assertEquals(SourceFence.FROZEN, client().get("bull:stale:id"), "its counter still frozen");
        assertEquals("j-1:7", client().hget("bull:stale:meta", "migrating-token"), "a refused call writes nothing");

        assertEquals(JOBS, SourceFence.resume(source, q, "j-2:1"), "another journal's migration takes the queue over");
        assertEquals(Long.toString(JOBS), client().get("bull:stale:id"));
        assertEquals("j-1:7", client().hget("bull:stale:meta", "migrating-token"), "a resume claims nothing");
        SourceFence.claim(source, q, "j-2:1");
        assertEquals("j-2:1", client().hget("bull:stale:meta", "migrating-token"));
        client().hset("bull:stale:meta", "version", SourceFence.TOMBSTONE);
        assertThrows(EmqWireException.State.class, () -> SourceFence.claim(source, q, "j-2:2"));
        assertThrows(EmqWireException.Lock.class, () -> SourceFence.pause(source, q, "j-2:2"));
        assertEquals("j-2:1", client().hget("bull:stale:meta", "migrating-token"), "a refused call writes nothing");

        QueueRef elsewhere = QueueRef.of("bull", "never-seen");
        SourceFence.claim(source, elsewhere, "j-2:2");
        assertFalse(client().exists("bull:never-seen:meta"), "a claim creates no key on v1 (a queue without meta, a wrong server)");
    }
}
