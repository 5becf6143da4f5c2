package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command run in a JVM of its own, sent {@code signal} (as {@code kill} names it: INT is what Ctrl-C sends) once a
 * line of its standard error holds {@code when}: its exit code and standard error, once it stopped (within a minute).
 */
record SignalledRun(int code, String err) {
    static SignalledRun of(String when, String signal, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectInput(new File("/dev/null")).redirectOutput(new File("/dev/null")).start();
        StringBuilder err = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                err.append(line).append('\n');
                if (line.contains(when)) {
                    new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor();
                }
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "stopped: " + err);
        return new SignalledRun(p.exitValue(), err.toString());
    }
}
