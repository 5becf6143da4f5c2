package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * A v1 server with a replica: v2 serves a queue only once v1's replica holds its tombstone (and so the pause before
 * it); a failover before could promote a replica where the queue is not paused and still holds its jobs, which v1
 * workers would serve beside v2. A replica that does not acknowledge it (stalled, SIGSTOP) refuses the queue
 * ({@code replicas-behind}) with the tombstone stamped and v2 paused; a re-run while it is still stalled refuses
 * again, and one once it is back resumes v2 with every job once.
 */
class SourceReplicaTest {
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "echoed";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    private LocalServer master;
    private LocalServer replica;
    private UnifiedJedis source;

    @BeforeEach
    void start() {
        TARGET.client().flushAll();
        master = LocalServer.start();
        replica = LocalServer.startReplicaOf(master);
        source = Endpoint.parse(master.uri()).open();
        V1QueueGenerator.addWaiting(source, QUEUE, 1, JOBS, 100);
    }

    @AfterEach
    void stop() {
        replica.resume();
        source.close();
        replica.close();
        master.close();
    }

    private MigrationResult migrate(Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), master.uri(), OPTIONS, checkpoints)
                .migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }

    private static boolean v2Paused() {
        return "1".equals(TARGET.client().hget(Keys.queue(QUEUE).meta(), "paused"));
    }

    @Test
    void aReplicaThatDoesNotAcknowledgeTheTombstoneKeepsV2PausedUntilARerunFindsItThere() {
        MigrationResult refused = migrate(Stall.at(replica, 120, "before retire"));
        assertEquals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND), refused.refusalKind(), refused.message());
        assertTrue(refused.message().contains("has 1 replica(s) online and 0 acknowledged the tombstone within 5 s")
                && refused.message().contains("the tombstone is stamped and v2 stays paused"), refused.message());
        assertEquals(SourceFence.TOMBSTONE, source.hget("bull:" + QUEUE + ":meta", "version"));
        assertTrue(v2Paused(), "v2 does not serve");

        MigrationResult again = migrate(Checkpoints.none()); // the replica still stalled: its offset is read, not waited on
        assertEquals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND), again.refusalKind(), again.message());
        assertTrue(v2Paused(), "v2 does not serve");

        replica.resume();
        MigrationResult finished = migrate(Checkpoints.none());
        assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
        assertEquals(JOBS, TARGET.client().zcard(Keys.queue(QUEUE).pending()), "every job once");
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS));
        assertTrue(!v2Paused(), "v2 serves");
    }

    /** A source user without {@code WAIT}: the replica's acknowledged offset ({@code INFO replication}) tells that it holds the tombstone. */
    @Test
    void aSourceUserThatMayNotRunWaitIsWaitedForThroughTheReplicasOffset() {
        try (Jedis admin = new Jedis(master.hostAndPort())) {
            admin.aclSetUser("nowait", "on", ">pw", "~*", "&*", "+@all", "-wait");
        }
        try (UnifiedJedis asUser = Endpoint.parse("redis://nowait:pw@" + master.uri().substring("redis://".length())).open()) {
            MigrationResult finished = new Migrator(Wire.unfenced(asUser), Wire.open(TARGET.client()), master.uri(), OPTIONS,
                    Checkpoints.none()).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
        }
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS));
        assertTrue(!v2Paused(), "v2 serves");
    }
}
