package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * A cluster source's connections dropped (its master killed and a replica promoted, or the connections cut) just before
 * a step reads the v1 queue through pipelines: Jedis's cluster pipeline logs the dropped connection instead of throwing
 * it and leaves that node's replies unset; the read is a lost connection all the same, the step runs again, no failed
 * step to repair, every job once.
 */
class ClusterSourceFaultTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.cluster();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String PREFIX = "{v1}";
    static final String QUEUE = "orders";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    @BeforeEach
    void clean() {
        SOURCE.nodes().forEach(node -> {
            try (Jedis n = SOURCE.node(node)) {
                n.clusterSetSlotStable(Slots.slot(PREFIX));
                n.flushAll();
            }
        });
        TARGET.client().flushAll();
    }

    /** Cuts every client connection of every master (CLIENT KILL TYPE normal; not the one that asks). */
    private static void dropSourceConnections() {
        for (HostAndPort node : SOURCE.nodes()) {
            try (Jedis master = SOURCE.node(node)) {
                master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "normal");
            }
        }
    }

    /**
     * At {@code at} (its first hit) the source's connections drop, and the next read of the queue's master is a pipeline:
     * V10's live read of the queue; V100's pass, which reads the whole queue as the drop broke the change feed too.
     */
    @ParameterizedTest
    @ValueSource(strings = {"10:v2 paused", "80:before the fold"})
    void connectionsDroppedBeforeAReadOfTheSourceAreRetriedAndTheQueueRetires(String at) {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        boolean[] dropped = {false};
        MigrationResult result = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(TARGET.client()), SOURCE.uri(), OPTIONS,
                Checkpoints.observed((version, where) -> {
                    if ((version + ":" + where).equals(at) && !dropped[0]) {
                        dropSourceConnections();
                        dropped[0] = true;
                    }
                })).migrate(List.of(PREFIX), List.of(QUEUE)).get(0);
        assertTrue(dropped[0], "dropped at " + at);
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.message());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }
}
