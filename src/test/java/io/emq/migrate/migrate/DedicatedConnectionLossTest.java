package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The source closes a connection the run holds outside its pools, and no pooled one: the guard's {@code WATCH} connection
 * as the retirement is about to use it, or the change feed's subscriber. The run names the source as it does for a
 * pooled connection the source closed, not "a server (the source or the target)".
 */
class DedicatedConnectionLossTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "guarded";
    static final int JOBS = 300;

    @BeforeEach
    void generate() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
    }

    /** Each try of V120 loses the guard's connection before its transaction: the tenth names the source; a re-run retires. */
    @Test
    void aGuardsWatchConnectionClosedAtEachTryFailsTheStepNamingTheSource() {
        int[] drops = {0};
        MigrationResult r = migrate(Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("before retire")) {
                drops[0] += SOURCE.dropConnections(" cmd=watch ");
            }
        }));
        assertEquals(Migrator.CONNECTION_RETRIES, drops[0], r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.CONNECTION), r.refusalKind(), r.toString());
        assertTrue(r.message().startsWith("step V120 (retire source) lost its connection " + Migrator.CONNECTION_RETRIES
                + " times in a row over ") && r.message().contains(", without progress between (it waited 1 s in all between its"
                + " tries, longer each time): the source " + SOURCE.nodes().get(0) + " closed the connection"), r.message());

        MigrationResult again = migrate(Checkpoints.none());
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }

    /** The feed's subscriber closed under the pause: the pass reads the source whole, and says the source closed the feed. */
    @Test
    void aFeedClosedByTheSourceSaysSo() {
        int[] drops = {0};
        MigrationResult r = migrate(Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused") && drops[0] == 0) {
                drops[0] += SOURCE.dropConnections("sub=1");
            }
        }));
        assertEquals(1, drops[0], r.toString());
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(Optional.of("the change feed broke: the source " + SOURCE.nodes().get(0) + " closed the connection (a restart,"
                + " CLIENT KILL, a proxy or the network)"), r.withoutFeed(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }

    private static MigrationResult migrate(Checkpoints checkpoints) {
        UnifiedJedis source = SOURCE.client();
        return new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), SOURCE.uri(), MigrationOptions.defaults(), checkpoints)
                .reconnectWaits(ConnectionDropsTest.QUICK_RECONNECTS).migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }
}
