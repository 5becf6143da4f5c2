package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * A reshard of a cluster source's queue slot that ends while the migration runs (the slot's keys all moved and the slot
 * given to another master, on a cluster of its own: the slot is not given back): the old master answers the step's
 * reads with {@code MOVED}, the step stops with nothing deleted and says there is nothing to wait for, and a re-run
 * resumes it without a repair and ends exactly once.
 */
class ClusterReshardTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.cluster();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String PREFIX = "{v1}";
    static final String QUEUE = "moved";
    static final int JOBS = 300;

    private static MigrationResult migrate(UnifiedJedis source, Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), "redis+cluster://" + SOURCE.nodes().get(0),
                MigrationOptions.defaults().withLease(Duration.ofMillis(300)), checkpoints).migrate(List.of(PREFIX), List.of(QUEUE)).get(0);
    }

    @Test
    void aReshardThatEndsDuringTheCopyStopsTheStepAndARerunResumesItWhereTheSlotIsNow() throws InterruptedException {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        int slot = Slots.slot(PREFIX);
        List<HostAndPort> masters = ClusterSourceTest.ownerFirst(SOURCE, PREFIX);
        boolean[] moved = {false};
        MigrationResult r;
        try (Jedis from = SOURCE.node(masters.get(0)); Jedis to = SOURCE.node(masters.get(1))) {
            r = migrate(SOURCE.client(), Checkpoints.observed((version, where) -> {
                if (version == 30 && where.equals("rows built") && !moved[0]) {
                    to.clusterSetSlotImporting(slot, from.clusterMyId());
                    from.clusterSetSlotMigrating(slot, to.clusterMyId());
                    for (String key : from.clusterGetKeysInSlot(slot, 10 * JOBS)) {
                        from.migrate(masters.get(1).getHost(), masters.get(1).getPort(), key, 0, 5_000);
                    }
                    for (HostAndPort node : List.of(masters.get(1), masters.get(0), masters.get(2))) {
                        try (Jedis n = SOURCE.node(node)) {
                            n.clusterSetSlotNode(slot, to.clusterMyId());
                        }
                    }
                    moved[0] = true;
                }
            }));
        }
        assertTrue(moved[0]);
        assertEquals(MigrationResult.Outcome.FAILED, r.outcome(), r.message());
        assertEquals(Optional.of(MigrationRefused.Kind.SLOT_MOVING), r.refusalKind(), r.message());
        assertTrue(r.message().contains("stopped: the node the step read or wrote no longer serves the queue's keys: their slot moved"
                + " to another master (a reshard ended, or a failover) (MOVED " + slot + " ")
                && r.message().contains("; nothing was deleted; nothing to wait for: its new master serves it, then run migrate again:"
                + " the step resumes, nothing to repair"), r.message());
        Thread.sleep(400); // the stopped run's lease lapses, in case the server refused its release
        try (UnifiedJedis anew = Endpoint.parse("redis+cluster://" + SOURCE.nodes().get(0)).open()) { // a new run's client
            MigrationResult again = migrate(anew, Checkpoints.none());
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.message());
            assertEquals(SourceFence.TOMBSTONE, anew.hget(PREFIX + ":" + QUEUE + ":meta", "version"));
        }
        assertEquals(JOBS, TARGET.client().zcard(Keys.queue(QUEUE).pending()));
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }
}
