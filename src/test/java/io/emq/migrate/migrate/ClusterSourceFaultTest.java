package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cluster source's connections dropped (its master killed and a replica promoted, or the connections cut) just before
 * a step reads the v1 queue through pipelines: Jedis's cluster pipeline logs the dropped connection instead of throwing
 * it and leaves that node's replies unset; the read is a lost connection all the same, the step runs again, no failed
 * step to repair, every job once. And dropped again and again during the retirement (V120): every job once, v1 retired
 * or whole, a re-run finishes.
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
        MigrationResult result = migrate(Checkpoints.observed((version, where) -> {
            if ((version + ":" + where).equals(at) && !dropped[0]) {
                SOURCE.dropConnections();
                dropped[0] = true;
            }
        }));
        assertTrue(dropped[0], "dropped at " + at);
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.message());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }

    /**
     * The source's connections drop at each pass of {@code at}, a checkpoint of V120, as many times as a step may lose
     * its connection in a row: before the pause, under it (the last pass, the guarded retirement: these fail the step,
     * v1 left paused and whole), after the tombstone (the jobs' keys deleted between drops). However the run ends, every
     * job is once in v2 and v1 is retired or whole; a re-run without drops finishes the queue.
     */
    @ParameterizedTest
    @ValueSource(strings = {"caught up", "pause recorded", "v1 paused", "pass recorded", "before retire", "structures deleted",
            "job keys deleted", "source deleted"})
    void connectionsDroppedDuringTheRetirementLeaveEveryJobOnceAndAReRunFinishesTheQueue(String at) {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        int[] drops = {0};
        MigrationResult result = migrate(Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals(at) && drops[0] < Migrator.CONNECTION_RETRIES) {
                SOURCE.dropConnections();
                drops[0]++;
            }
        }));
        assertTrue(drops[0] > 0, "dropped at " + at);
        if (result.outcome() != MigrationResult.Outcome.RETIRED) {
            assertEquals(Optional.of(MigrationRefused.Kind.CONNECTION), result.refusalKind(), result.toString());
            assertTrue(SOURCE.nodes().stream().anyMatch(n -> result.message().contains(": the source " + n + " closed the connection")),
                    result.message());
        }
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
        Set<String> all = LongStream.rangeClosed(1, JOBS).mapToObj(Long::toString).collect(Collectors.toSet());
        assertTrue(retired() || LiveV1.problems(SOURCE.client(), PREFIX, TARGET.client(), QUEUE, all, Set.of(), false).isEmpty(),
                "v1 retired or whole: " + result);

        MigrationResult again = migrate(Checkpoints.none());
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertTrue(retired(), "v1 retired");
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once after the re-run");
    }

    private static boolean retired() {
        return SourceFence.TOMBSTONE.equals(SOURCE.client().hget(PREFIX + ":" + QUEUE + ":meta", "version"));
    }

    private static MigrationResult migrate(Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(TARGET.client()), SOURCE.uri(), OPTIONS, checkpoints)
                .reconnectWaits(ConnectionDropsTest.QUICK_RECONNECTS).migrate(List.of(PREFIX), List.of(QUEUE)).get(0);
    }
}
