package io.emq.migrate.drain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The dry run and the validating drain of a queue migrated into a three-master cluster; a shadow copy whose writes meet a
 * dropped connection.
 */
class DrainClusterTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @Test
    void aQueueMigratedIntoAClusterValidates() throws Exception {
        new FixtureLoader(SOURCE.client()).load(FixtureLoader.resource("node-5.65.1"));
        SOURCE.client().del(MigratedFixture.LIVE_LOCK);
        List<MigrationResult> results = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(CLUSTER.client()),
                SOURCE.uri(), MigrationOptions.defaults().withDropCronSchedulers(true), Checkpoints.none())
                .migrate(List.of("bull"), List.of("orders", "emails"));
        results.forEach(r -> assertTrue(r.ok(), r.toString()));

        DrainReport dry = new Drain(Wire.unfenced(CLUSTER.client()), "orders").dryRun();
        assertTrue(dry.passed(), dry.checks() + " " + dry.problems());
        long ordersPending = CLUSTER.client().zcard("emq:{orders}:pending");
        String copyName;
        try (ShadowQueue copy = ShadowQueue.of(CLUSTER.client(), "orders").copy()) {
            copyName = copy.name();
            Wire wire = Wire.open(CLUSTER.client());
            io.emq.migrate.runtime.Jobs.on(wire, copyName).resume();
            DrainReport shadow = Drain.ofShadow(wire, "orders", copy)
                    .run(DrainOptions.defaults(), job -> { }, new ConsumerListener() { });
            assertTrue(shadow.passed(), shadow.checks() + " " + shadow.problems());
        }
        assertEquals(ordersPending, CLUSTER.client().zcard("emq:{orders}:pending"), "the shadow drain consumed nothing real");
        assertTrue(CLUSTER.client().keys("emq:{" + copyName + "}:*").isEmpty(), "the copy on another slot is deleted");
        Drain drain = new Drain(Wire.open(CLUSTER.client()), "emails");
        drain.resume();
        DrainReport r = drain.run(DrainOptions.defaults().withWorkers(2), job -> { }, new ConsumerListener() { });
        assertTrue(r.passed(), r.checks() + " " + r.problems());
        assertEquals(4L, r.before().get("pending"));
        assertEquals(0L, r.after().get("pending"));
    }

    /**
     * The connections of the cluster dropped (a master killed and a replica promoted, or the connections cut) just before
     * a shadow copy: its first command on the copy's master is its write pipeline, which Jedis's cluster pipeline would
     * leave unsent and unanswered (the drop only logged), the copy short of keys; the copy throws the lost connection
     * instead, and one made after it holds every key.
     */
    @Test
    void aCopyWhoseWritesMeetADroppedConnectionSaysSoAndTheNextCopyHoldsEveryKey() {
        UnifiedJedis c = CLUSTER.client();
        for (int i = 0; i < 20; i++) {
            c.hset("emq:{q}:job:" + i, Map.of("state", "pending", "payload", "{}"));
        }
        ShadowQueue copy = ShadowQueue.of(c, "q");
        Wire wire = Wire.unfenced(c);
        while (wire.sameServer("emq:{q}:".getBytes(StandardCharsets.UTF_8), ("emq:{" + copy.name() + "}:").getBytes(StandardCharsets.UTF_8))) {
            copy = ShadowQueue.of(c, "q"); // a name of its own: the copy's writes on another master than the reads
        }
        c.exists("emq:{" + copy.name() + "}:meta"); // a connection to the copy's master idles in the pool
        CLUSTER.dropConnections();
        try (ShadowQueue dropped = copy) {
            JedisConnectionException lost = assertThrows(JedisConnectionException.class, dropped::copy);
            assertTrue(lost.getMessage().contains("dropped during a pipeline"), lost.getMessage());
        }
        // run again as an operator does, in a new process: the shared client's pool may hold more connections the kill closed
        try (UnifiedJedis rerun = Endpoint.parse(CLUSTER.uri()).open(); ShadowQueue again = ShadowQueue.of(rerun, "q").copy()) {
            assertEquals(20, again.keys());
            assertEquals(20, rerun.keys("emq:{" + again.name() + "}:*").size());
        }
    }
}
