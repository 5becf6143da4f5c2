package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.runtime.Backoff;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The target stalls (SIGSTOP) as a step's work ends, so the step's history row (its journal row) meets a target that
 * answers nothing: held past the read timeout (10 s), then run on (SIGCONT), the row is written on a try again after the
 * step's waits and the run retires the queue, every job once. Before, the row's write was not tried again: "the history
 * row of step V10 (fence source) could not be written: a server (the source or the target) did not answer within the
 * read timeout (10 s)". A row that cannot be written for ten tries in a row fails naming the target, the one server it
 * goes to; a run interrupted while the row waits to be tried again stops at once; a row the lease no longer fences
 * (another migrator took the queue) is refused at once, not tried again.
 */
class TargetStalledAtHistoryRowTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();

    static final String QUEUE = "stalled-row";
    static final int JOBS = 2 * JobWriter.BATCH;
    /** Past the read timeout (10 s), so the row's first write times out, and its try again (after 0.25 s) meets the stall too. */
    static final long STALLED_MS = Endpoint.TIMEOUT_MS + 2_000;
    /** Waits between tries short enough for a row of ten losses to take about a second. */
    static final Backoff QUICK_RECONNECTS = Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(200));
    /** When the interrupted run is interrupted after the kill: inside the row's fourth wait (from about 1.75 s to 3.75 s). */
    static final long INTERRUPTED_AFTER_MS = 2_700;
    /** V10's last checkpoint: after it the step counts what it read and ends, and its history row is the next write. */
    static final String LAST_CHECKPOINT = "read checked";

    @RegisterExtension
    final OwnTarget own = OwnTarget.with();

    @BeforeEach
    void start() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
    }

    @Test
    void aTargetStalledPastTheReadTimeoutAsAStepEndsIsRiddenOut() {
        List<CompletableFuture<Optional<String>>> resumed = new ArrayList<>();
        Migrator[] migrator = {null};
        migrator[0] = migrator(Checkpoints.observed((version, where) -> {
            if (version == 10 && where.equals(LAST_CHECKPOINT) && resumed.isEmpty()) {
                own.server().stall();
                resumed.add(CompletableFuture.supplyAsync(() -> {
                    Sleep.millis(STALLED_MS);
                    Optional<String> waiting = migrator[0].waitingFor(); // what the progress says as the stall ends
                    own.server().resume();
                    return waiting;
                }));
            }
        }), MigrationOptions.defaults());
        MigrationResult r = migrator[0].migrate(List.of("bull"), List.of(QUEUE)).get(0);
        assertEquals(1, resumed.size(), r.toString());
        Optional<String> waiting = resumed.get(0).join();
        assertTrue(waiting.orElse("").matches("the target " + Pattern.quote(own.server().hostAndPort().toString())
                + ", which has not answered for \\d+ s"), "waiting for: " + waiting);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        try (UnifiedJedis fresh = Endpoint.parse(own.server().uri()).open()) {
            assertEquals(List.of(), LiveV1.exactlyOnce(fresh, QUEUE, JOBS));
            assertEquals(List.of(10, 20), new Journal(Wire.open(fresh), QUEUE).history().rows().stream()
                    .map(HistoryRow::version).filter(v -> v <= 20).toList(), "V10's row written once, V20 ran after it");
        }
    }

    @Test
    void aRowTheTargetRefusesTenTimesInARowFailsNamingTheTarget() {
        boolean[] killed = {false};
        MigrationResult r = migrator(Checkpoints.observed((version, where) -> {
            if (version == 10 && where.equals(LAST_CHECKPOINT) && !killed[0]) {
                own.server().kill(); // and it stays away
                killed[0] = true;
            }
        }), MigrationOptions.defaults()).reconnectWaits(QUICK_RECONNECTS).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        assertTrue(killed[0], r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.CONNECTION), r.refusalKind(), r.toString());
        assertTrue(r.message().startsWith("the history row of step V10 (fence source) could not be written: it lost its"
                + " connection " + Migrator.CONNECTION_RETRIES + " times in a row over "), r.message());
        assertTrue(r.message().contains("the target " + own.server().hostAndPort() + " refused the connection"), r.message());
        assertTrue(r.message().endsWith("; nothing was deleted; re-run migrate (the step runs again)"), r.message());
    }

    @Test
    void aRunInterruptedWhileItsRowWaitsForTheTargetStopsAtOnce() throws Exception {
        AtomicLong killedAt = new AtomicLong();
        MigrationResult[] result = {null};
        Thread run = new Thread(() -> result[0] = migrator(Checkpoints.observed((version, where) -> {
            if (version == 10 && where.equals(LAST_CHECKPOINT) && killedAt.get() == 0) {
                own.server().kill(); // and it stays away
                killedAt.set(System.nanoTime());
            }
        }), MigrationOptions.defaults()).migrate(List.of("bull"), List.of(QUEUE)).get(0));
        OwnTarget.interruptedInAWait(run, killedAt, INTERRUPTED_AFTER_MS, () -> result[0]); // the row waits to be tried again
        assertTrue(result[0].message().startsWith("the history row of step V10 (fence source) was not written: interrupted"
                + " while the migrator waited"), result[0].message());
    }

    @Test
    void aRowWhoseLeaseAnotherMigratorTookIsRefusedAtOnce() {
        boolean[] taken = {false};
        long started = System.nanoTime();
        MigrationResult r = migrator(Checkpoints.observed((version, where) -> {
            if (version == 10 && where.equals(LAST_CHECKPOINT) && !taken[0]) {
                own.client().hincrBy(Keys.migrationJournal(QUEUE), "lock_token", 1); // as another migrator's acquire after a lapse
                taken[0] = true;
            }
        }), MigrationOptions.defaults()).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        assertTrue(taken[0], r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), r.refusalKind(), r.toString());
        assertTrue(r.message().startsWith("the history row of step V10 (fence source) of " + QUEUE + " was refused: this"
                + " migrator's lease lapsed"), r.message());
        assertTrue(System.nanoTime() - started < 10_000_000_000L, "refused at once, not tried again: " + r);
        assertEquals(List.of(), new Journal(Wire.open(own.client()), QUEUE).history().rows(), "no row written");
    }

    private Migrator migrator(Checkpoints checkpoints, MigrationOptions options) {
        return new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(own.client()), SOURCE.uri(), options, checkpoints);
    }
}
