package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
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

    private LocalServer server;
    private UnifiedJedis target;

    @BeforeEach
    void start() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
        server = LocalServer.start(LocalServer.requireBinary(), List.of("--appendonly", "yes", "--appendfsync", "always"));
        target = Endpoint.parse(server.uri()).open();
    }

    @AfterEach
    void stop() {
        target.close();
        server.close();
    }

    @Test
    void aTargetAwayForSecondsMidCopyIsRiddenOut() {
        List<CompletableFuture<Void>> back = new ArrayList<>();
        MigrationResult r = migrate(Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && back.isEmpty()) {
                server.kill();
                back.add(CompletableFuture.runAsync(() -> {
                    Sleep.millis(AWAY_MS);
                    server.relaunch();
                }));
            }
        }));
        assertEquals(1, back.size(), r.toString());
        back.get(0).join();
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        try (UnifiedJedis fresh = Endpoint.parse(server.uri()).open()) {
            assertEquals(List.of(), LiveV1.exactlyOnce(fresh, QUEUE, JOBS));
        }
    }

    @Test
    void aRunInterruptedWhileItWaitsForTheTargetStopsAtOnce() throws Exception {
        AtomicLong killedAt = new AtomicLong();
        MigrationResult[] result = {null};
        Thread run = new Thread(() -> result[0] = migrate(Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && killedAt.get() == 0) {
                server.kill(); // and it stays away
                killedAt.set(System.nanoTime());
            }
        })));
        run.start();
        while (killedAt.get() == 0 && run.isAlive()) {
            Thread.sleep(20);
        }
        Thread.sleep(INTERRUPTED_AFTER_MS - (System.nanoTime() - killedAt.get()) / 1_000_000); // the run waits to try again
        assertTrue(run.isAlive(), "the run stopped before it was interrupted: " + result[0]);
        long interrupted = System.nanoTime();
        run.interrupt();
        run.join(5_000);
        assertTrue((System.nanoTime() - interrupted) / 1_000_000 < 2_000, "the run stopped at once when interrupted");
        assertEquals(Optional.of(MigrationRefused.Kind.INTERRUPTED), result[0].refusalKind(), result[0].toString());
    }

    private MigrationResult migrate(Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), MigrationOptions.defaults(), checkpoints)
                .migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }
}
