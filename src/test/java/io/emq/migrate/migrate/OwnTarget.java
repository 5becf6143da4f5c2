package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target server of each test's own, for tests that stop, stall, kill or restart it: started before the test with
 * these configuration arguments, with a client to it, both closed after the test.
 */
final class OwnTarget implements BeforeEachCallback, AfterEachCallback {
    private final List<String> args;
    private LocalServer server;
    private UnifiedJedis client;

    private OwnTarget(List<String> args) {
        this.args = args;
    }

    /** A server started with these configuration arguments (none: no persistence). */
    static OwnTarget with(String... args) {
        return new OwnTarget(List.of(args));
    }

    LocalServer server() {
        return server;
    }

    UnifiedJedis client() {
        return client;
    }

    /**
     * Starts {@code run} (a migration that kills or stalls this target at a checkpoint and sets {@code killedAt}, its
     * {@link System#nanoTime}), interrupts it {@code afterMs} after the kill (inside a wait to try again), and asserts it
     * stops within 2 s as interrupted; {@code result} tells how the run ended.
     */
    static void interruptedInAWait(Thread run, AtomicLong killedAt, long afterMs, Supplier<MigrationResult> result)
            throws InterruptedException {
        run.start();
        while (killedAt.get() == 0 && run.isAlive()) {
            Thread.sleep(20);
        }
        Thread.sleep(afterMs - (System.nanoTime() - killedAt.get()) / 1_000_000);
        assertTrue(run.isAlive(), "the run stopped before it was interrupted: " + result.get());
        long interrupted = System.nanoTime();
        run.interrupt();
        run.join(5_000);
        assertTrue((System.nanoTime() - interrupted) / 1_000_000 < 2_000, "the run stopped at once when interrupted");
        assertEquals(Optional.of(MigrationRefused.Kind.INTERRUPTED), result.get().refusalKind(), result.get().toString());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        server = LocalServer.start(LocalServer.requireBinary(), args);
        client = Endpoint.parse(server.uri()).open();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        client.close();
        server.close();
    }
}
