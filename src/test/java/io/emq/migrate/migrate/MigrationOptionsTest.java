package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Wire;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The operator's options do what they say: keep branded ids, archive completed jobs, wait for locks, validate checksums. */
class MigrationOptionsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void clean() {
        SERVER.client().flushAll();
    }

    private static MigrationOptions options(boolean keep, Duration wait, Optional<Path> archive) {
        return new MigrationOptions(PayloadPolicy.ENVELOPE, Map.of(), keep, wait, archive, true, false, true, true, true,
                MigrationOptions.DEFAULT_LEASE, Optional.empty(), Optional.empty(), false);
    }

    @Test
    void keepBrandedIdsKeepsV1IdsThatAreAlreadyJobIdsAndMintsTheRest() {
        V1QueueGenerator.addWaiting(SERVER.client(), "q", 1, 2, 50);
        SERVER.client().hset("bull:q:JOB0NwdXCmjyDI", Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().lpush("bull:q:wait", "JOB0NwdXCmjyDI");
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, options(true, Duration.ZERO, Optional.empty()),
                Checkpoints.none(), List.of("bull"));
        assertTrue(r.get(0).ok(), r.toString());
        long base = Rebrand.idBase("q");
        assertEquals(List.of(Rebrand.jobId(base, 1), Rebrand.jobId(base, 2), "JOB0NwdXCmjyDI"),
                SERVER.client().zrange(Keys.queue("q").pending(), 0, -1),
                "the kept id sorts by its own mint time, after the rank-minted backlog");
    }

    @Test
    void archiveCompletedWritesEveryCompletedJobAsAJsonLineBeforeCounting(@TempDir Path dir) throws Exception {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        Path archive = dir.resolve("orders-completed.jsonl");
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, options(false, Duration.ZERO, Optional.of(archive)),
                Checkpoints.none(), List.of("bull"), "orders");
        assertTrue(r.get(0).ok(), r.toString());
        List<String> lines = Files.readAllLines(archive);
        assertEquals(2, lines.size());
        for (String line : lines) {
            JsonNode job = new ObjectMapper().readTree(line);
            assertEquals("bull:orders", job.get("queue").asText());
            assertTrue(job.get("finishedOn").asLong() > 0);
        }
        assertEquals("2", SERVER.client().hget(Keys.queue("orders").metricsCompleted(), "count"));
    }

    @Test
    void waitForLocksWaitsForLiveLocksToLapse() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        Set<String> locks = SERVER.client().keys("bull:orders:*:lock");
        assertFalse(locks.isEmpty(), "the fixture holds live locks");
        locks.forEach(k -> SERVER.client().persist(k)); // live through the first run however slow the machine is
        List<MigrationResult> refused = MigrationHarness.migrate(SERVER, SERVER, options(false, Duration.ZERO, Optional.empty()),
                Checkpoints.none(), List.of("bull"), "orders");
        assertEquals(Optional.of(MigrationRefused.Kind.LIVE_LOCK), refused.get(0).refusalKind());
        locks.forEach(k -> SERVER.client().pexpire(k, 600));
        List<MigrationResult> waited = MigrationHarness.migrate(SERVER, SERVER, options(false, Duration.ofSeconds(5), Optional.empty()),
                Checkpoints.none(), List.of("bull"), "orders");
        assertTrue(waited.get(0).ok(), waited.toString());
        assertEquals(locks.size(), waited.get(0).jobs(), "the run reports the jobs it gave their first row: the ones held before: "
                + waited);
    }

    /**
     * A re-run must choose what the run it resumes chose: another --payload, --lane or --lane-from is refused with
     * the choice to repeat (half the rows in one form and half in another would be one queue of two shapes); the
     * same choices finish it, and after abandon a new choice is free.
     */
    @Test
    void aReRunWithAnotherPayloadOrLaneChoiceIsRefusedNamingTheOneToRepeat() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        MigrationOptions first = MigrationOptions.defaults().withRetire(false);
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(first).outcome());

        MigrationResult payload = migrate(MigrationOptions.defaults().withPayload(PayloadPolicy.DATA));
        assertEquals(Optional.of(MigrationRefused.Kind.PAYLOAD_POLICY), payload.refusalKind(), payload.toString());
        assertTrue(payload.message().contains("re-run with --payload envelope or abandon it first"), payload.message());
        MigrationResult lane = migrate(MigrationOptions.defaults().withLaneFrom(Optional.of("tenant")));
        assertEquals(Optional.of(MigrationRefused.Kind.LANE), lane.refusalKind(), lane.toString());
        assertTrue(lane.message().contains("started with no --lane and no --lane-from; re-run it the same way"), lane.message());
        assertTrue(lane.message().contains("} stays paused (its consumers claim nothing) until a re-run finishes the migration or"
                + " `emq-migrate abandon` gives it back as it was"), "a copy --no-retire left paused: " + lane.message());

        assertEquals(MigrationResult.Outcome.RETIRED, migrate(MigrationOptions.defaults()).outcome(), "the same choices finish it");
    }

    @Test
    void afterAbandonARunMayChooseAnotherPayload() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(MigrationOptions.defaults().withRetire(false)).outcome());
        Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), "emails", MigrationOptions.DEFAULT_LEASE);
        MigrationResult data = migrate(MigrationOptions.defaults().withPayload(PayloadPolicy.DATA));
        assertEquals(MigrationResult.Outcome.RETIRED, data.outcome(), data.toString());
    }

    private static MigrationResult migrate(MigrationOptions options) {
        return MigrationHarness.migrate(SERVER, SERVER, options, Checkpoints.none(), List.of("bull"), "emails").get(0);
    }

    @Test
    void aStepEditedAfterItWasAppliedFailsValidationUntilRepaired() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false), Checkpoints.none(),
                List.of("bull"), "emails");
        Wire target = Wire.open(SERVER.client());
        Journal journal = new Journal(target, "emails");
        HistoryRow v3 = journal.history().rows().stream().filter(h -> h.version() == 30).findFirst().orElseThrow();
        journal.lease().acquire("test", 10_000);
        journal.history().record(new HistoryRow(v3.rank(), 30, v3.description(), v3.checksum() + 1, v3.installedBy(),
                v3.installedOn(), v3.executionMs(), true, v3.counts(), null));
        journal.lease().release();
        assertEquals(List.of(30), Journals.invalid(target, "emails").stream().map(StepStatus::version).toList());
        List<MigrationResult> refused = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(),
                Checkpoints.none(), List.of("bull"), "emails");
        assertEquals(Optional.of(MigrationRefused.Kind.CHECKSUM), refused.get(0).refusalKind());
        assertTrue(refused.get(0).message().contains("validate"), refused.get(0).message());
        assertEquals(1, Journals.repair(target, "emails", MigrationOptions.DEFAULT_LEASE).size());
        assertTrue(Journals.invalid(target, "emails").isEmpty());
        List<MigrationResult> resumed = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(),
                Checkpoints.none(), List.of("bull"), "emails");
        assertEquals(MigrationResult.Outcome.RETIRED, resumed.get(0).outcome(), "the step added later (retire) applies to the queue that stopped before it");
        assertTrue(BrandedId.isValid(SERVER.client().zrange(Keys.queue("emails").pending(), 0, 0).get(0)));
    }
}
