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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Stopping {@code migrate} with Ctrl-C (SIGINT) says what was interrupted and releases its lease: a re-run at once resumes. */
class InterruptTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void anInterruptedMigrationSaysWhereItStoppedAndARerunAtOnceFinishesIt() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "big", 1, 60_000, 20);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "migrate", "--source", SERVER.uri(),
                "--queue", "big", "--no-retire", "--lease", "60s"));
        Process p = new ProcessBuilder(cmd).redirectInput(new File("/dev/null")).redirectOutput(new File("/dev/null")).start();
        StringBuilder err = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                err.append(line).append('\n');
                if (line.contains("plan identity")) {
                    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor(); // what Ctrl-C sends
                }
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(err.toString().contains("emq-migrate migrate: interrupted at queue big at step V"), err.toString());
        assertTrue(err.toString().contains("; nothing is lost: its lease is released: run the same command again and it"
                + " resumes there"), err.toString());
        // at once, well inside the interrupted run's lease of a minute: the interruption released it
        CliRun rerun = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "big", "--no-retire");
        assertEquals(0, rerun.code(), rerun.all());
        assertEquals(60_000, SERVER.client().zcard("emq:{big}:pending"));
    }
}
