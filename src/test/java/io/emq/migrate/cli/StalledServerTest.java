package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target that stalls (SIGSTOP, as a server its machine froze) while migrate copies, or a source as migrate reads it:
 * off a terminal, a progress line at the usual cadence says the run waits for that server, at which address, and for
 * how long, though no job moves; once the server runs on (SIGCONT) the migration finishes.
 */
class StalledServerTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();

    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    @Test
    void aStalledTargetIsNamedAtTheProgressCadence() {
        V1QueueGenerator.addWaiting(SOURCE.client(), "q", 1, 2_000, 20);
        try (LocalServer target = LocalServer.start()) {
            // as step V20 ends: its history row, then V30, meet a target that answers nothing
            migrateStalling(target, "the target", SOURCE.uri(), target.uri(), " V20 ");
        }
    }

    @Test
    void aStalledSourceIsNamedAtTheProgressCadence() {
        try (LocalServer source = LocalServer.start(); UnifiedJedis client = Endpoint.parse(source.uri()).open()) {
            V1QueueGenerator.addWaiting(client, "q", 1, 2_000, 20);
            // as step V10 ends (its read of the source done): the run's next reads of the source (in V30) meet a source that answers nothing
            migrateStalling(source, "the source", source.uri(), TARGET.uri(), " V10 ");
        }
    }

    /**
     * Migrates queue {@code q}, stalling {@code stalled} (named {@code role}) once a progress line names step {@code at},
     * until a progress line says the run waits for it: the run then finishes.
     */
    private static void migrateStalling(LocalServer stalled, String role, String source, String target, String at) {
        List<String> lines = new CopyOnWriteArrayList<>();
        String waiting = "waiting for " + role + " " + stalled.hostAndPort() + ", which has not answered for ";
        PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
            @Override
            public void println(String line) {
                lines.add(line);
                if (line.contains(waiting)) {
                    stalled.resume();
                } else if (line.startsWith("q ") && line.contains(at)) {
                    stalled.stall();
                }
            }
        };
        int code;
        try {
            code = Cli.run(new String[] {"migrate", "--yes", "--source", source, "--target", target, "--queue", "q"},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), err,
                    new Environment(Map.of(), Path.of("").toAbsolutePath(), false, false));
        } finally {
            stalled.resume();
        }
        assertEquals(ExitCodes.OK, code, String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(line -> line.startsWith("migrate q V") && line.contains(waiting)), String.join("\n", lines));
    }
}
