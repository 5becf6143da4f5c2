package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stopping {@code drain --shadow} (SIGTERM; Ctrl-C's SIGINT runs the same shutdown) while it copies the queue or while it
 * drains the copy deletes the scratch copy and says so; the queue itself is as it was.
 */
class ShadowInterruptTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void anInterruptedShadowDrainDeletesItsCopyWhetherItWasCopyingOrDraining() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "big", 1, 60_000, 20);
        CliRun migrated = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "big");
        assertEquals(0, migrated.code(), migrated.all());
        // a handler that takes its time, so the copy is still being drained when the signal comes
        for (String when : List.of("copying queue 'big' into the scratch queue", "keys); draining the copy")) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), Main.class.getName(), "drain", "--target", SERVER.uri(),
                    "--queue", "big", "--shadow", "--handler", "exec sleep 5"));
            Process p = new ProcessBuilder(cmd).redirectInput(new File("/dev/null")).redirectOutput(new File("/dev/null")).start();
            StringBuilder err = new StringBuilder();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    err.append(line).append('\n');
                    if (line.contains(when)) {
                        // not SIGINT: a JVM started from a background job ignores it
                        new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
                    }
                }
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(143, p.exitValue(), err.toString());
            Set<String> left = SERVER.client().keys("emq:{big-shadow*");
            assertTrue(left.isEmpty(), "stopped at '" + when + "': " + left.size() + " keys of the copy left");
            assertTrue(err.toString().contains("emq-migrate drain: interrupted; deleted the scratch queue 'big-shadow-")
                    && err.toString().contains("'; queue 'big' was only read"), err.toString());
            assertEquals(60_000, SERVER.client().zcard("emq:{big}:pending"), "the queue is as it was");
        }
    }
}
