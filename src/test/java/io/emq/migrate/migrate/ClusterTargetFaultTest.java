package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Faults of a cluster target in the retirement, after the source's jobs were deleted. Its connections dropped under a
 * pipeline (its master killed and the replica promoted, or the connections cut): Jedis's cluster pipeline logs the dropped
 * connection instead of throwing it, leaves that node's replies unset, and a pipeline over two nodes then fails to close on
 * the dropped node's connection; the step runs again as after any dropped connection: no failed step to repair, every job
 * once. The cluster down (a master failed, no replica promoted yet): the step stops as a state of the server's
 * ({@code cluster-down}), nothing to repair, and a re-run once it is up retires the queue.
 */
class ClusterTargetFaultTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.cluster();

    static final String QUEUE = "q";
    static final int JOBS = 500;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));


    /** Unassigns (or assigns back to the master that served it) the queue's slot on every master: the cluster is down meanwhile. */
    private static void queueSlotServed(boolean served, HostAndPort master) {
        int slot = Slots.slot("{" + QUEUE + "}");
        for (HostAndPort node : served ? List.of(master) : TARGET.nodes()) {
            try (Jedis n = TARGET.node(node)) {
                n.sendCommand(Protocol.Command.CLUSTER, served ? "ADDSLOTS" : "DELSLOTS", Integer.toString(slot));
            }
        }
    }

    private static void awaitClusterUp() {
        for (HostAndPort node : TARGET.nodes()) {
            try (Jedis n = TARGET.node(node)) {
                for (int i = 0; i < 400 && !n.clusterInfo().contains("cluster_state:ok"); i++) {
                    Sleep.millis(25);
                }
                assertTrue(n.clusterInfo().contains("cluster_state:ok"), n.clusterInfo());
            }
        }
    }

    @Test
    void theClusterDownAfterTheSourcesJobsWereDeletedStopsTheStepWithNothingToRepairAndARerunRetiresTheQueue() {
        SOURCE.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
        HostAndPort master = TARGET.nodes().get(Slots.slot("{" + QUEUE + "}") / (Slots.COUNT / 3));
        MigrationResult first;
        try (UnifiedJedis target = TARGET.endpoint().open()) {
            first = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), OPTIONS,
                    Checkpoints.observed((version, where) -> {
                        if (version == 120 && where.equals("source deleted")) {
                            queueSlotServed(false, master);
                        }
                    })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        } finally {
            queueSlotServed(true, master);
        }
        assertEquals(Optional.of(MigrationRefused.Kind.CLUSTER_DOWN), first.refusalKind(), first.message());
        assertTrue(first.message().contains("(CLUSTERDOWN ") && first.message().contains("nothing to repair"), first.message());
        awaitClusterUp();
        Sleep.millis(400); // the stopped run's lease lapses: the cluster refused its release
        try (UnifiedJedis target = TARGET.endpoint().open()) {
            MigrationResult again = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), OPTIONS,
                    Checkpoints.none()).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.message());
            assertEquals(List.of(), LiveV1.exactlyOnce(target, QUEUE, JOBS), "every job once");
        }
    }

    @Test
    void connectionsDroppedUnderRetirementsLastPipelineOverTheQueuesMasterAndTheJournalsAreRetriedAndTheQueueRetires() {
        SOURCE.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
        try (UnifiedJedis target = TARGET.endpoint().open()) {
            // three masters of a third of the slots each: the queue's is not the journal's, so the pipeline spans two nodes
            assertNotEquals(Slots.slot("{emq}") / (Slots.COUNT / 3), Slots.slot("{" + QUEUE + "}") / (Slots.COUNT / 3));
            boolean[] dropped = {false};
            MigrationResult result = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), OPTIONS,
                    Checkpoints.observed((version, where) -> {
                        if (version == 120 && where.equals("source deleted") && !dropped[0]) {
                            TARGET.dropConnections(); // the fence's release and the journal's "retired" go out next, in one pipeline
                            dropped[0] = true;
                        }
                    })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertTrue(dropped[0]);
            assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.message());
            assertEquals(List.of(), LiveV1.exactlyOnce(target, QUEUE, JOBS), "every job once");
        }
    }
}
