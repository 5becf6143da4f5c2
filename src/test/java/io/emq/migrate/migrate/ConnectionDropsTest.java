package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.runtime.Backoff;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/**
 * The target drops the migrator's connections ({@code CLIENT KILL TYPE normal}) while V30 copies: a step that made
 * progress between the drops (rows new to the journal) goes on however many there are; one that loses its connection
 * ten times in a row without progress fails in plain words, naming the server that closed it (the target here, the
 * source when it drops them as V10 reads it). A try goes on from the jobs the tries before it wrote and journaled, so
 * drops closer together than a check of those still let each try make progress. Either way no row is doubled or lost.
 */
class ConnectionDropsTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "dropped";
    static final int JOBS = 16 * JobWriter.BATCH;
    static final int DROPS = Migrator.CONNECTION_RETRIES + 2;
    /** Waits between a step's tries short enough for tests that lose the connection at every try (a row takes 1.5 s, not a minute). */
    static final Backoff QUICK_RECONNECTS = Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(200));

    @BeforeEach
    void generate() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
    }

    @Test
    void aStepThatMakesProgressBetweenDropsGoesOnPastTenOfThem() {
        int[] drops = {0};
        long[] recordedAtDrop = {0};
        MigrationResult r;
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0)); UnifiedJedis target = TARGET.endpoint().open()) {
            r = migrate(target, Checkpoints.observed((version, where) -> {
                if (version != 30 || !where.equals("expectations recorded") || drops[0] == DROPS) {
                    return;
                }
                long recorded = Long.parseLong(Optional.ofNullable(admin.hget(Keys.migrationJournal(QUEUE), Expectations.COUNT)).orElse("0"));
                if (recorded > recordedAtDrop[0]) { // rows new to the journal since the last drop
                    recordedAtDrop[0] = recorded;
                    drops[0]++;
                    dropTheMigratorsConnections(admin);
                }
            }));
        }
        assertEquals(DROPS, drops[0], r.toString());
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEveryJobOnce();
    }

    /**
     * A drop as the batch after each one journaled is written, before its expectations are recorded: each try journals
     * the batch the try before wrote, and a new one only when it goes on from there (a try that checked again every batch
     * the tries before it journaled would never get to one). With the change feed, and without it (then the table of
     * what the copy wrote holds digests).
     */
    @ParameterizedTest(name = "change feed: {0}")
    @ValueSource(booleans = {true, false})
    void dropsComingFasterThanATryCouldCheckWhatTheTriesBeforeWroteDoNotFailTheStep(boolean feed) {
        boolean[] journaledSinceDrop = {false};
        int[] drops = {0};
        MigrationResult r;
        try (UnifiedJedis source = feed ? SOURCE.endpoint().open() : Endpoint.parse(LeastPrivilegeTest.userWithoutFeed(SOURCE.client(), SOURCE.uri())).open();
             Jedis admin = TARGET.node(TARGET.nodes().get(0)); UnifiedJedis target = TARGET.endpoint().open()) {
            r = migrate(source, target, Checkpoints.observed((version, where) -> {
                if (version == 30 && where.equals("expectations recorded")) {
                    journaledSinceDrop[0] = true;
                } else if (version == 30 && where.equals("rows written") && journaledSinceDrop[0]) {
                    journaledSinceDrop[0] = false;
                    drops[0]++;
                    dropTheMigratorsConnections(admin);
                }
            }));
        }
        assertTrue(drops[0] > Migrator.CONNECTION_RETRIES, drops[0] + " drops: " + r);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(!feed, r.withoutFeed().isPresent(), r.toString());
        assertEquals(JOBS, r.moved().get("pending"), "the jobs the tries before wrote count as copied: " + r.moved());
        assertEveryJobOnce();
    }

    @Test
    void tenDropsInARowWithoutProgressFailTheStepInPlainWords() {
        int[] drops = {0};
        MigrationResult r;
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0)); UnifiedJedis target = TARGET.endpoint().open()) {
            r = migrate(target, Checkpoints.observed((version, where) -> {
                if (version == 30 && (where.equals("rows built") || where.equals("rows written"))) { // before a batch is recorded
                    drops[0]++;
                    dropTheMigratorsConnections(admin);
                }
            }));
        }
        // a connection made after a drop may outlive the next: a try now and then records one batch; never the queue
        assertTrue(drops[0] >= Migrator.CONNECTION_RETRIES, drops[0] + " drops: " + r);
        assertEquals(Optional.of(MigrationRefused.Kind.CONNECTION), r.refusalKind(), r.toString());
        assertTrue(r.message().matches("step V30 \\(absorb pending\\) lost its connection " + Migrator.CONNECTION_RETRIES
                + " times in a row over \\d+ s, without progress between \\(it waited 1 s in all between its tries, longer each"
                + " time\\): .*"), r.message());
        assertTrue(r.message().contains(": the target " + TARGET.nodes().get(0) + " closed the connection")
                && r.message().contains("nothing was deleted"), r.message());
        assertFalse(r.message().contains("Exception") || r.message().contains("java."), r.message());
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "every v1 job still waits in v1");

        try (UnifiedJedis target = TARGET.endpoint().open()) { // a re-run: a new process's pool
            // the failed run let its lease go though its pool's idle connections were closed by the last drop (a release
            // on one of them failed before, and the re-run was refused as locked for the lease's 15 s)
            assertNull(target.hget(Keys.migrationJournal(QUEUE), "lock_owner"), "the failed run's lease is released");
            MigrationResult again = migrate(target, Checkpoints.none());
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        }
        assertEveryJobOnce();
    }

    /**
     * A drop as a step's work ends, before its history row is written: the row is written on a new connection (writing it
     * again sets the same field), and the run goes on. Before, the run failed at once: "the history row of step V10 (fence
     * source) could not be written".
     */
    @Test
    void aDropAsAStepEndsDoesNotFailItsHistoryRow() {
        int[] drops = {0};
        MigrationResult r;
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0)); UnifiedJedis target = TARGET.endpoint().open()) {
            r = migrate(target, Checkpoints.observed((version, where) -> {
                if (version == 10 && where.equals("read checked") && drops[0]++ == 0) { // the step's last checkpoint
                    dropTheMigratorsConnections(admin);
                }
            }));
        }
        assertEquals(1, drops[0], r.toString());
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEveryJobOnce();
    }

    @Test
    void dropsOfTheSourceInARowFailTheStepNamingTheSource() {
        int[] drops = {0};
        MigrationResult r;
        try (Jedis admin = SOURCE.node(SOURCE.nodes().get(0)); UnifiedJedis target = TARGET.endpoint().open()) {
            r = migrate(target, Checkpoints.observed((version, where) -> {
                if (version == 10 && where.equals("v2 paused")) { // before the step reads the source
                    drops[0]++;
                    dropTheMigratorsConnections(admin);
                }
            }));
        }
        assertTrue(drops[0] >= 1, drops[0] + " drops: " + r);
        assertEquals(Optional.of(MigrationRefused.Kind.CONNECTION), r.refusalKind(), r.toString());
        assertTrue(r.message().startsWith("step V10 (fence source) lost its connection " + Migrator.CONNECTION_RETRIES
                + " times in a row over ") && r.message().contains(", without progress between (it waited 1 s in all between its"
                + " tries, longer each time): the source " + SOURCE.nodes().get(0) + " closed the connection"), r.message());
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "every v1 job still waits in v1");
    }

    /**
     * The target drops the migrator's connections once as a re-sync pass writes the job v1 edited (in the catch-up, or
     * in the pass under the pause): the pass tried again is told again what the failed one drained from the change
     * feed, so the run keeps the feed (no pass after it reads every job's digest), the edit reaches v2, every job once;
     * the pass under the pause (the one tried again, for V120) refreshes the snapshot instead of reading v1 whole.
     */
    @ParameterizedTest(name = "V{0}")
    @ValueSource(ints = {100, 120})
    void aPassThatLostItsConnectionIsTriedAgainWithWhatItDrainedFromTheFeed(int version) {
        int[] drops = {0};
        MigrationResult r;
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0)); UnifiedJedis target = TARGET.endpoint().open()) {
            r = migrate(target, Checkpoints.observed((v, where) -> {
                if (v == (version == 100 ? 30 : 120) && where.equals(version == 100 ? "rows written" : "v1 paused") && drops[0] == 0) {
                    SOURCE.client().hset("bull:" + QUEUE + ":7", "data", "{\"edited\":true}");
                } else if (v == version && where.equals("rows written") && drops[0] == 0) {
                    drops[0]++;
                    dropTheMigratorsConnections(admin);
                }
            }));
        }
        assertEquals(1, drops[0], r.toString());
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(Optional.empty(), r.withoutFeed(), "the feed kept: " + r);
        assertEveryJobOnce();
        try (UnifiedJedis check = TARGET.endpoint().open()) {
            assertEquals("{\"edited\":true}", LiveV1.v2Data(check, QUEUE, "7"));
            Map<String, Long> window = LiveV1.stepCounts(check, QUEUE, 120);
            assertEquals(1L, window.get("pass-refreshed-read"), "the pass under the pause refreshed: " + window);
        }
    }

    /** Every v1 job has one v2 row, pending, and no other row is: none lost or doubled (read through a new pool: the shared one's were dropped). */
    private static void assertEveryJobOnce() {
        try (UnifiedJedis check = TARGET.endpoint().open()) {
            assertEquals(List.of(), LiveV1.exactlyOnce(check, QUEUE, JOBS));
        }
    }

    private static MigrationResult migrate(UnifiedJedis target, Checkpoints checkpoints) {
        return migrate(SOURCE.client(), target, checkpoints);
    }

    private static MigrationResult migrate(UnifiedJedis source, UnifiedJedis target, Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(source), Wire.open(target), SOURCE.uri(), MigrationOptions.defaults(), checkpoints)
                .reconnectWaits(QUICK_RECONNECTS).migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }

    /** Every normal client of {@code admin}'s server but its own connection: the migrator's pool (and on the target its heartbeat). */
    private static void dropTheMigratorsConnections(Jedis admin) {
        admin.clientKill(ClientKillParams.clientKillParams().type(ClientType.NORMAL));
    }
}
