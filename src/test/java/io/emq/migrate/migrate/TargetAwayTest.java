package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target killed mid-copy (SIGKILL) that keeps its data ({@code appendfsync always}) and comes back a few seconds later,
 * as after a restart or a failover: the step's tries wait longer after each lost connection, so the run rides it out and
 * retires the queue, every job once. Before, ten tries 50 ms apart spent the step's losses in about 2 s and failed it.
 * A run interrupted while it waits stops at once, saying so.
 */
class TargetAwayTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();

    static final String QUEUE = "away";
    static final int JOBS = 3 * JobWriter.BATCH;
    /** Longer than the ten tries of a row took before (about 2.3 s), far shorter than they take now (about a minute). */
    static final long AWAY_MS = 4_000;
    /** When the interrupted run is interrupted after the kill: inside its fifth wait (from about 3.75 s to 7.75 s). */
    static final long INTERRUPTED_AFTER_MS = 5_500;

    @RegisterExtension
    final OwnTarget own = OwnTarget.with("--appendonly", "yes", "--appendfsync", "always");

    @BeforeEach
    void start() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
    }

    @Test
    void aTargetAwayForSecondsMidCopyIsRiddenOut() {
        List<CompletableFuture<Void>> back = new ArrayList<>();
        MigrationResult r = migrate(Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && back.isEmpty()) {
                own.server().kill();
                back.add(CompletableFuture.runAsync(() -> {
                    Sleep.millis(AWAY_MS);
                    own.server().relaunch();
                }));
            }
        }));
        assertEquals(1, back.size(), r.toString());
        back.get(0).join();
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        try (UnifiedJedis fresh = Endpoint.parse(own.server().uri()).open()) {
            assertEquals(List.of(), LiveV1.exactlyOnce(fresh, QUEUE, JOBS));
        }
    }

    @Test
    void aRunInterruptedWhileItWaitsForTheTargetStopsAtOnce() throws Exception {
        AtomicLong killedAt = new AtomicLong();
        MigrationResult[] result = {null};
        Thread run = new Thread(() -> result[0] = migrate(Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && killedAt.get() == 0) {
                own.server().kill(); // and it stays away
                killedAt.set(System.nanoTime());
            }
        })));
        OwnTarget.interruptedInAWait(run, killedAt, INTERRUPTED_AFTER_MS, () -> result[0]); // the run waits to try again
    }

    private MigrationResult migrate(Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(own.client()), SOURCE.uri(), MigrationOptions.defaults(), checkpoints)
                .migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }
}
