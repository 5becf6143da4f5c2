package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A target that stalls (SIGSTOP, as a server its machine froze) while migrate copies: off a terminal, a progress line
 * at the usual cadence says the run waits for the target, at which address, and for how long, though no job moves;
 * once the target runs on (SIGCONT) the migration finishes.
 */
class StalledServerTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();

    @Test
    void aStalledTargetIsNamedAtTheProgressCadence() {
        V1QueueGenerator.addWaiting(SOURCE.client(), "q", 1, 2_000, 20);
        try (LocalServer target = LocalServer.start()) {
            List<String> lines = new CopyOnWriteArrayList<>();
            String waiting = "waiting for the target " + target.hostAndPort() + ", which has not answered for ";
            PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
                @Override
                public void println(String line) {
                    lines.add(line);
                    if (line.contains(waiting)) {
                        target.resume();
                    } else if (line.startsWith("q ") && line.contains(" V20 ")) {
                        target.stall(); // as step V20 ends: its history row, then V30, meet a target that answers nothing
                    }
                }
            };
            int code;
            try {
                code = Cli.run(new String[] {"migrate", "--yes", "--source", SOURCE.uri(), "--target", target.uri(), "--queue", "q"},
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), err,
                        new Environment(Map.of(), Path.of("").toAbsolutePath(), false, false));
            } finally {
                target.resume();
            }
            assertEquals(ExitCodes.OK, code, String.join("\n", lines));
            assertTrue(lines.stream().anyMatch(line -> line.startsWith("migrate q V") && line.contains(waiting)),
                    String.join("\n", lines));
        }
    }
}
