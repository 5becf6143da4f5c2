package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    static final String PREFIX = ClusterSourceTest.PREFIX;
    static final String QUEUE = ClusterSourceTest.QUEUE;
    static final int JOBS = ClusterSourceTest.JOBS;
    static final MigrationOptions OPTIONS = ClusterSourceTest.OPTIONS;

    @BeforeEach
    void clean() {
        ClusterSourceTest.clean(SOURCE, TARGET);
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
                        SOURCE.dropConnections();
                        dropped[0] = true;
                    }
                })).migrate(List.of(PREFIX), List.of(QUEUE)).get(0);
        assertTrue(dropped[0], "dropped at " + at);
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.message());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }
}
