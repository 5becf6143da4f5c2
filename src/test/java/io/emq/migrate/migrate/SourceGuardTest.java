package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.DedicatedConnections;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import io.emq.migrate.wire.EmqWireException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The O(1) guard of the exact read and of the retirement ({@link SourceGuard}), on a standalone source
 * and on a three-master cluster (the queue's keys share a slot through its hash-tagged prefix): a write
 * by a v1 client to the add counter or a structure after the watch began, even one that leaves every
 * size and member as it was, makes the retirement do nothing; without one it stamps the tombstone; and
 * a migration whose full read under the pause is written every time is refused with v1 intact.
 */
class SourceGuardTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    static final QueueRef QUEUE = QueueRef.of("{v1}", "guarded");

    static Stream<RealServerExtension> sources() {
        return Stream.of(SERVER, CLUSTER);
    }

    /** A paused v1 queue mid-window: jobs 1-3 in paused, one delayed, the add counter frozen and its value saved. */
    private static Wire seed(RealServerExtension source) {
        UnifiedJedis c = source.client();
        c.del(key("paused"), key("delayed"), key("id"), key("meta"), key("stalled-check"));
        c.lpush(key("paused"), "3", "2", "1");
        c.zadd(key("delayed"), 5, "4");
        c.set(key("id"), SourceFence.FROZEN);
        c.hset(key("meta"), Map.of("paused", "1", "migrating-id", "4", "opts.maxLenEvents", "10000"));
        c.set(key("stalled-check"), "1");
        return Wire.unfenced(c);
    }

    private static String key(String suffix) {
        return QUEUE.key(suffix).display();
    }

    @ParameterizedTest
    @MethodSource("sources")
    void aWriteSinceTheWatchEvenOneThatLeavesEverythingAsItWasMakesTheRetirementDeleteNothing(RealServerExtension source) {
        try (DedicatedConnections connections = new DedicatedConnections(seed(source).client(), 1)) {
            SourceGuard guard = SourceGuard.watch(connections, QUEUE);
            source.client().lpush(key("paused"), "5");
            source.client().lpop(key("paused"));
            assertEquals(Optional.empty(), guard.retire(List.of(QUEUE.key("stalled-check").raw()), "1", 0, Duration.ZERO));
        }
        assertEquals(List.of("1", "2", "3"), source.client().lrange(key("paused"), 0, -1), "nothing deleted");
        assertEquals(1, source.client().zcard(key("delayed")));
        assertEquals("1", source.client().get(key("stalled-check")));
        assertEquals(SourceFence.FROZEN, source.client().get(key("id")), "no tombstone");
        assertNull(source.client().hget(key("meta"), "version"));
        assertEquals("4", source.client().hget(key("meta"), "migrating-id"));
    }

    @ParameterizedTest
    @MethodSource("sources")
    void withoutAWriteTheRetirementDeletesTheStructuresAndStampsTheTombstoneOnce(RealServerExtension source) {
        DedicatedConnections connections = new DedicatedConnections(seed(source).client(), 1);
        SourceGuard guard = SourceGuard.watch(connections, QUEUE);
        source.client().hset(QUEUE.key("7").display(), "data", "{}");
        assertEquals(Optional.of(new SourceGuard.Retirement(3, 0)), guard.retire(List.of(QUEUE.key("stalled-check").raw()), "1", 0, Duration.ZERO),
                "paused, delayed and stalled-check deleted (a job hash is no structure: its digest guards it)");
        assertFalse(source.client().exists(key("paused")) || source.client().exists(key("delayed"))
                || source.client().exists(key("stalled-check")));
        assertEquals(SourceFence.TOMBSTONE, source.client().get(key("id")));
        assertEquals(SourceFence.TOMBSTONE, source.client().hget(key("meta"), "version"));
        assertNull(source.client().hget(key("meta"), "migrating-id"), "the frozen counter's saved value dropped");
        assertEquals("10000", source.client().hget(key("meta"), "opts.maxLenEvents"), "the rest of meta kept");

        source.client().lpush(key("paused"), "9");
        assertEquals(Optional.of(new SourceGuard.Retirement(0, 0)), SourceGuard.watch(connections, QUEUE).retire(List.of(), "1", 0, Duration.ZERO), "a stamped queue is left as it is");
        assertEquals(1, source.client().llen(key("paused")));
        connections.close();
    }

    /**
     * A queue another journal's migration took (its token on meta) is not retired; the tombstone keeps the retiring migration's token,
     * and a guard of any token it supersedes is refused on a tombstone as before it.
     */
    @ParameterizedTest
    @MethodSource("sources")
    void aQueueAnotherJournalTookIsNotRetiredAndTheTombstoneKeepsTheToken(RealServerExtension source) {
        DedicatedConnections connections = new DedicatedConnections(seed(source).client(), 1);
        source.client().hset(key("meta"), "migrating-token", "j-2:1");
        assertThrows(EmqWireException.Lock.class, () -> SourceGuard.watch(connections, QUEUE).retire(List.of(), "j-1:5", 0, Duration.ZERO));
        assertTrue(source.client().exists(key("paused")), "nothing deleted");
        assertEquals("4", source.client().hget(key("meta"), "migrating-id"));

        assertEquals(Optional.of(new SourceGuard.Retirement(2, 0)), SourceGuard.watch(connections, QUEUE).retire(List.of(), "j-2:1", 0, Duration.ZERO));
        assertEquals("j-2:1", source.client().hget(key("meta"), "migrating-token"), "the tombstone names who retired the queue");
        for (String lost : List.of("j-2:0", "j-1:5")) { // its own journal's earlier run, another journal's
            assertThrows(EmqWireException.Lock.class, () -> SourceGuard.watch(connections, QUEUE).retire(List.of(), lost, 1, Duration.ZERO),
                    "a run whose queue a newer token retired meanwhile is told its lease was lost, not that the queue is its own to resume");
        }
        assertEquals(Optional.of(new SourceGuard.Retirement(0, 1)), SourceGuard.watch(connections, QUEUE).retire(List.of(), "j-2:1", 1,
                Duration.ZERO), "stamped under its own token: left as it is");
        connections.close();
    }

    @ParameterizedTest
    @MethodSource("sources")
    void aReadIsHeldOnlyWhenNothingWatchedWasWrittenMeanwhile(RealServerExtension source) {
        try (DedicatedConnections connections = new DedicatedConnections(seed(source).client(), 1)) {
            assertTrue(SourceGuard.watch(connections, QUEUE).held());
            SourceGuard counted = SourceGuard.watch(connections, QUEUE);
            source.client().set(key("id"), "5");
            assertFalse(counted.held(), "the add counter is watched");
            SourceGuard completed = SourceGuard.watch(connections, QUEUE);
            source.client().zadd(key("completed"), 1, "1");
            assertFalse(completed.held(), "every structure is watched");
        }
    }

    /**
     * The guards of a run take turns on one connection: each given back clean (spent by its EXEC, or
     * unwatched when closed unspent), so a write watched by a guard closed before does not fail the next
     * guard on the same connection; one killed while idle is found dropped by the next guard's WATCH and
     * replaced by a new one (no PING before each take).
     */
    @Test
    void guardsOneAfterAnotherReuseOneCleanConnection() {
        Wire wire = seed(SERVER);
        long before = connectionsReceived();
        try (DedicatedConnections connections = new DedicatedConnections(wire.client(), 1)) {
            assertTrue(SourceGuard.watch(connections, QUEUE).held());
            SourceGuard unspent = SourceGuard.watch(connections, QUEUE);
            unspent.close();
            SERVER.client().set(key("id"), "5");
            assertTrue(SourceGuard.watch(connections, QUEUE).held(), "the guard closed unspent left no watch behind");
            SourceGuard dirty = SourceGuard.watch(connections, QUEUE);
            SERVER.client().set(key("id"), "6");
            assertFalse(dirty.held());
            assertTrue(SourceGuard.watch(connections, QUEUE).held(), "a failed EXEC leaves the connection clean too");
            assertEquals(1, connectionsReceived() - before, "five guards, one connection");

            assertEquals(1, SERVER.dropConnections(" cmd=exec "), "one idle guard connection");
            SERVER.client().set(key("id"), "7");
            assertTrue(SourceGuard.watch(connections, QUEUE).held(), "a new connection for the one killed while idle");
        }
    }

    private static long connectionsReceived() {
        return SERVER.client().info("stats").lines().filter(l -> l.startsWith("total_connections_received:"))
                .map(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim())).findFirst().orElseThrow();
    }

    /**
     * A writer that bypasses BullMQ's pause pushes and pops a job once between the pass's read and the
     * retirement (no size moves): the retirement deletes nothing, another pass runs and retires. Through
     * the refreshed read (feed intact) and through the full read (feed killed), whose guard is the one
     * that started watching after the read.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void aWriteBetweenTheReadAndTheRetirementTakesAnotherPass(boolean killFeed) {
        UnifiedJedis c = SERVER.client();
        c.flushAll();
        V1QueueGenerator.addWaiting(c, "read", 1, 50, 20);
        List<String> seen = new java.util.ArrayList<>();
        MigrationResult result = migrate(killFeed, (version, where) -> {
            if (version == 120 && where.equals("before retire") && !seen.contains(where)) {
                seen.add(where);
                c.lpush("bull:read:paused", "rogue");
                c.lpop("bull:read:paused");
            }
            if (version == 120 && where.equals("source moved at retire")) {
                seen.add(where);
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.toString());
        assertEquals(List.of("before retire", "source moved at retire"), seen);
        assertEquals(List.of(), LiveV1.problems(c, "read", java.util.stream.LongStream.rangeClosed(1, 50)
                .mapToObj(Long::toString).collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)), java.util.Set.of(), true));
    }

    /**
     * With the change feed killed once v1 is paused, the pass reads the source in full; a writer that
     * bypasses BullMQ's pause pushes and pops a job on every read (no size moves): each read is caught,
     * the queue refused after five, v1 resumed with its jobs, nothing deleted.
     */
    @Test
    void aFullReadWrittenEveryTimeIsRefusedWithV1Intact() {
        UnifiedJedis c = SERVER.client();
        c.flushAll();
        V1QueueGenerator.addWaiting(c, "read", 1, 50, 20);
        MigrationResult result = migrate(true, (version, where) -> {
            if (version == 120 && where.equals("source read")) {
                c.lpush("bull:read:paused", "rogue");
                c.lpop("bull:read:paused");
            }
        });
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), result.refusalKind(), result.toString());
        assertTrue(result.message().contains("changed during each of 5 reads (jobs moved or edited within the same sizes)"),
                result.message());
        assertFalse("echomq:2.0.0-migrated".equals(c.hget("bull:read:meta", "version")), "nothing retired");
        assertNull(c.hget("bull:read:meta", "paused"), "v1 is resumed");
        assertEquals("50", c.get("bull:read:id"), "its add counter given back");
        assertEquals(50, c.llen("bull:read:wait"), "every job waits again");
    }

    /**
     * A writer that bypasses BullMQ's pause moves a job from {@code paused} to {@code delayed} before every
     * retirement: the guard refuses each one, and after five passes the queue is refused naming what moved
     * since the first refusal (the sizes are taken then, not around every read), v1 resumed, nothing deleted.
     */
    @Test
    void aSourceMovedAtEveryRetirementIsRefusedNamingWhatMoved() {
        UnifiedJedis c = SERVER.client();
        c.flushAll();
        V1QueueGenerator.addWaiting(c, "read", 1, 50, 20);
        int[] moved = {0};
        MigrationResult result = migrate(false, (version, where) -> {
            if (version == 120 && where.equals("before retire")) {
                String id = c.rpop("bull:read:paused");
                c.zadd("bull:read:delayed", (System.currentTimeMillis() + 3_600_000L) * 4096, id);
                moved[0]++;
            }
        });
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), result.refusalKind(), result.toString());
        assertEquals(5, moved[0], "one move before each of five retirements");
        assertTrue(result.message().contains("kept changing at retirement over 5 passes (paused 49 -> 45, delayed 1 -> 5)"),
                result.message());
        assertTrue(result.message().endsWith("the v2 queue emq:{read} stays paused (its consumers claim nothing) until a re-run"
                + " finishes the migration or `emq-migrate abandon` gives it back as it was"), result.message());
        assertFalse("echomq:2.0.0-migrated".equals(c.hget("bull:read:meta", "version")), "nothing retired");
        assertNull(c.hget("bull:read:meta", "paused"), "v1 is resumed");
        assertEquals(45, c.llen("bull:read:wait"), "every job left in paused waits again");
        assertEquals(5, c.zcard("bull:read:delayed"), "the moved jobs stay where the writer put them");
    }

    /** Migrates the standalone source's queues, killing the change feed's subscriber once v1 is paused when told. */
    private static MigrationResult migrate(boolean killFeed, Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withLease(Duration.ofSeconds(2)),
                Checkpoints.observed((version, where) -> {
                    if (killFeed && version == 120 && where.equals("v1 paused")) {
                        assertEquals(1, SERVER.dropConnections("sub=1"), "one feed subscriber to kill");
                    }
                    observer.at(version, where);
                }), List.of("bull")).get(0);
    }
}
