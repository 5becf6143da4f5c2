package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * A cluster target's connections dropped under a pipeline (its master killed and the replica promoted, or the connections
 * cut): Jedis's cluster pipeline logs the dropped connection instead of throwing it, leaves that node's replies unset,
 * and a pipeline over two nodes then fails to close on the dropped node's connection. The step runs again as after any
 * dropped connection: no failed step to repair, every job once.
 */
class ClusterPipelineDropTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.cluster();

    static final String QUEUE = "q";
    static final int JOBS = 500;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    /** Cuts every client connection of every master (CLIENT KILL TYPE normal; not the one that asks). */
    private static void dropTargetConnections() {
        for (HostAndPort node : TARGET.nodes()) {
            try (Jedis master = TARGET.node(node)) {
                master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "normal");
            }
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
                            dropTargetConnections(); // the fence's release and the journal's "retired" go out next, in one pipeline
                            dropped[0] = true;
                        }
                    })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertTrue(dropped[0]);
            assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.message());
            assertEquals(List.of(), LiveV1.exactlyOnce(target, QUEUE, JOBS), "every job once");
        }
    }
}
