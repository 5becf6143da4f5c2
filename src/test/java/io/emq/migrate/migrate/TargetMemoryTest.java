package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A target that runs out of memory (noeviction: its writes are refused with OOM) stops the step with
 * nothing lost: the run says so and what to do, v1 serves as before unless the tombstone was stamped,
 * and a re-run once the target has room resumes the step (nothing to repair) and ends exactly once. (And where the
 * window's give-back of v1 stops: a takeover.)
 */
class TargetMemoryTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "mem";
    static final int JOBS = 3000;

    @BeforeEach
    void generate() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 1000);
    }

    @AfterEach
    void room() {
        TARGET.client().configSet("maxmemory", "0");
        SOURCE.client().configSet("maxmemory", "0");
    }

    private static MigrationResult migrate(Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SOURCE, TARGET, MigrationOptions.defaults(), Checkpoints.observed(observer), List.of("bull")).get(0);
    }

    /**
     * Leaves the target no room: every write is refused with OOM from now on. (Room for no more than it uses now, read
     * first, let writes through when the server freed memory between the read and the setting, as it frees an idle
     * client's query buffer.)
     */
    private static void noRoom() {
        TARGET.client().configSet("maxmemory", "1");
    }

    /** Leaves the target room for about {@code bytes} more: its writes are refused with OOM beyond that. */
    private static void roomFor(long bytes) {
        long used = Long.parseLong(TARGET.client().info("memory").lines().filter(l -> l.startsWith("used_memory:"))
                .findFirst().orElseThrow().substring("used_memory:".length()).trim());
        TARGET.client().configSet("maxmemory", Long.toString(used + bytes));
    }

    private static void assertStoppedForMemory(MigrationResult r, String left) {
        assertEquals(MigrationResult.Outcome.FAILED, r.outcome(), r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_MEMORY), r.refusalKind(), r.toString());
        String target = TARGET.nodes().get(0).toString();
        assertTrue(RefusingServer.named(r.message(), TARGET.client(), "target", target, " refused a write for lack of memory (OOM command not allowed"), r.message());
        assertTrue(RefusingServer.named(r.message(), TARGET.client(), "target", target, " or raise its maxmemory (until retirement the target holds the v2 copy"),
                r.message());
        assertTrue(r.message().contains(left), r.message());
        assertTrue(r.message().endsWith("then run migrate again: the step resumes, nothing to repair"), r.message());
    }

    /** v1 serves: every job waiting, no pause, and a producer's add is taken (as job JOBS + 1). */
    private static void assertV1Serves() {
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"));
        assertFalse(SOURCE.client().exists("bull:" + QUEUE + ":paused"));
        assertFalse(SOURCE.client().hexists("bull:" + QUEUE + ":meta", "paused"));
        assertEquals(Optional.of(Long.toString(JOBS + 1)), LiveV1.add(SOURCE.client(), QUEUE), "a v1 add is taken");
    }

    private static void assertRerunFinishes(long jobs) {
        TARGET.client().configSet("maxmemory", "0");
        MigrationResult again = migrate((version, where) -> { });
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, jobs), again.toString());
    }

    /**
     * The source, not the target, runs short as retirement pauses v1 (its first write there): the run names the source
     * and what to do there, not the target's copy. Before, it said "a server" and gave the target's advice.
     */
    @Test
    void aSourceOutOfMemoryAtThePauseIsNamedAsTheSource() {
        MigrationResult r = migrate((version, where) -> {
            if (version == 120 && where.equals("caught up")) {
                SOURCE.client().configSet("maxmemory", "1");
            }
        });
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_MEMORY), r.refusalKind(), r.toString());
        assertTrue(RefusingServer.named(r.message(), SOURCE.client(), "source", SOURCE.uri(), " refused a write for lack of memory (OOM command not allowed"),
                r.message());
        assertTrue(RefusingServer.named(r.message(), SOURCE.client(), "source", SOURCE.uri(), " or raise its maxmemory"), r.message());
        assertTrue(!r.message().contains("free memory on the target"), "no advice for the target: " + r.message());
        SOURCE.client().configSet("maxmemory", "0");
        assertRerunFinishes(JOBS);
    }

    @Test
    void aTargetOutOfMemoryDuringTheCopyStopsWithV1ServingAndARerunWithRoomFinishes() {
        roomFor(1_500_000); // about half the rows
        MigrationResult r = migrate((version, where) -> { });
        assertStoppedForMemory(r, "; nothing was deleted;");
        assertTrue(r.message().startsWith("step V30 (absorb pending) of mem stopped"), r.message());
        assertTrue(TARGET.client().zcard(Keys.queue(QUEUE).pending()) > 0, "some rows were written before the refusal");
        assertV1Serves();
        assertRerunFinishes(JOBS + 1);
    }

    /**
     * The target runs short between a transaction's {@code WATCH} and its writes (the rows' {@link NewRows}, the journal's
     * expectations): each write is refused as it is queued, the {@code EXEC} aborts with nothing written, and the script
     * the batch falls back to is refused too; the rows of a batch whose expectations were not recorded are found in line
     * by the re-run.
     */
    @ParameterizedTest
    @ValueSource(strings = {"new rows watched", "expectations watched"})
    void aTargetOutOfMemoryInsideATransactionOfTheCopyStopsWithV1ServingAndARerunFinishes(String checkpoint) {
        int[] hits = {0};
        MigrationResult r = migrate((version, where) -> {
            if (version == 30 && where.equals(checkpoint) && hits[0]++ == 1) {
                noRoom();
            }
        });
        assertStoppedForMemory(r, "; nothing was deleted;");
        assertEquals(2, hits[0], "stopped at the second batch's transaction");
        assertV1Serves();
        assertRerunFinishes(JOBS + 1);
    }

    @Test
    void aTargetOutOfMemoryInThePauseWindowGivesV1BackAndARerunCopiesTheEditItMet() {
        MigrationResult r = migrate((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                SOURCE.client().hset("bull:" + QUEUE + ":1", "data", "{\"edited\":true}"); // the pass under the pause rewrites its row
                noRoom();
            }
        });
        assertStoppedForMemory(r, "nothing was deleted, and the v1 queue serves as it did before the migration");
        assertTrue(r.message().startsWith("step V120 (retire source) of mem stopped"), r.message());
        assertV1Serves();
        assertRerunFinishes(JOBS + 1);
        Journal journal = new Journal(Wire.open(TARGET.client()), QUEUE);
        String row = Keys.queue(QUEUE).job(journal.ids().lookupV1(List.of("1".getBytes(StandardCharsets.UTF_8))).get(0).orElseThrow());
        assertTrue(TARGET.client().hget(row, "payload").contains("\"edited\":true"), TARGET.client().hget(row, "payload"));
    }

    /**
     * Where the window's give-back stops: a run whose lease another migrator took over in the window does not resume v1
     * (that migrator may be in its own window, v1 paused for it).
     */
    @Test
    void aTakeoverInThePauseWindowLeavesV1PausedForTheMigratorThatTookItOver() {
        MigrationResult r = migrate((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                SOURCE.client().hset("bull:" + QUEUE + ":1", "data", "{\"edited\":true}"); // the pass under the pause writes its row
                TARGET.client().hset("{emq}:migration:" + QUEUE, "lock_token", "another migrator's token");
                TARGET.client().hset(Keys.queue(QUEUE).meta(), "migration", "another migrator's token");
            }
        });
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), r.refusalKind(), r.toString());
        assertEquals("bullmq:5.65.1", SOURCE.client().hget("bull:" + QUEUE + ":meta", "version"), "refused before the tombstone");
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":paused"), "v1 left paused");
        assertEquals("1", SOURCE.client().hget("bull:" + QUEUE + ":meta", "paused"));
        assertEquals(Optional.empty(), LiveV1.add(SOURCE.client(), QUEUE), "its add counter left frozen");
    }

    @Test
    void aTargetOutOfMemoryAfterTheTombstoneLeavesV1RetiringAndARerunFinishes() {
        MigrationResult r = migrate((version, where) -> {
            if (version == 120 && where.equals("structures deleted")) {
                noRoom();
            }
        });
        assertStoppedForMemory(r, "the v1 queue is left paused (its workers fetch nothing) and may be partly or wholly retired already");
        assertEquals(Optional.empty(), LiveV1.add(SOURCE.client(), QUEUE), "the tombstone refuses v1 adds");
        assertRerunFinishes(JOBS);
        assertEquals(List.of("bull:" + QUEUE + ":id", "bull:" + QUEUE + ":meta"), SOURCE.client().keys("bull:*").stream().sorted().toList());
    }
}
