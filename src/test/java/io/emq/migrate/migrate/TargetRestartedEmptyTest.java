package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target killed mid-run and restarted empty (no persistence: the journal, its lease and the v2 copy gone) stops the
 * run as {@code journal-lost}, saying so, where it had blamed a rival migrator (in the copy) or a queue never migrated
 * there (at the verification); nothing of v1 is deleted, and a re-run migrates every job once.
 */
class TargetRestartedEmptyTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();

    static final String QUEUE = "restarted";
    static final int JOBS = 3 * JobWriter.BATCH;

    @RegisterExtension
    final OwnTarget own = OwnTarget.with();

    @BeforeEach
    void start() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
    }

    @Test
    void aTargetRestartedEmptyInTheCopyIsNamedNotARivalMigrator() {
        boolean[] restarted = {false};
        MigrationResult r = migrate(Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && !restarted[0]) {
                restarted[0] = true;
                own.server().restartEmpty();
            }
        }), Migrator.Listener.NONE);
        assertTrue(restarted[0], r.toString());
        assertJournalLost(r);
        assertRerunMigratesEveryJobOnce();
    }

    @Test
    void aTargetRestartedEmptyAsTheVerificationBeginsIsNamedNotANeverMigratedQueue() {
        MigrationResult r = migrate(Checkpoints.none(), new Migrator.Listener() {
            public void stepStarted(String queue, StepDefinition step) {
                if (step.version() == 110) {
                    own.server().restartEmpty();
                }
            }

            public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
            }
        });
        assertJournalLost(r);
        assertFalse(r.message().contains("never migrated"), r.message());
        assertRerunMigratesEveryJobOnce();
    }

    private MigrationResult migrate(Checkpoints checkpoints, Migrator.Listener listener) {
        return new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(own.client()), SOURCE.uri(), MigrationOptions.defaults(), checkpoints)
                .listener(listener).migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }

    private void assertJournalLost(MigrationResult r) {
        assertEquals(Optional.of(MigrationRefused.Kind.JOURNAL_LOST), r.refusalKind(), r.toString());
        assertTrue(r.message().contains("the journal {emq}:migration:" + QUEUE + " this run wrote, and its lease, are gone from the"
                + " target (it restarted without persistence") && r.message().contains("no other migrator holds the queue")
                && r.message().contains("Nothing of v1 was deleted") && r.message().contains("re-run migrate"), r.message());
        assertFalse(r.message().contains("another migrator took over"), r.message());
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "every v1 job still waits in v1");
    }

    private void assertRerunMigratesEveryJobOnce() {
        try (UnifiedJedis fresh = Endpoint.parse(own.server().uri()).open()) { // a new process's pool: the old one held dropped connections
            MigrationResult again = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(fresh), SOURCE.uri(),
                    MigrationOptions.defaults(), Checkpoints.none()).migrate(List.of("bull"), List.of(QUEUE)).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
            assertEquals(List.of(), LiveV1.exactlyOnce(fresh, QUEUE, JOBS));
        }
    }
}
