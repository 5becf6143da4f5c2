package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.runtime.Counts;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain with {@code --handler exec} stopped (SIGTERM) while a command runs longer than the drain waits (one lease, 30 s):
 * the drain ends the command's whole process tree before it exits, so the command's side effect never happens after the
 * drain left the job to its lease (a drain run again would claim it and run the side effect a second time); it starts no
 * command for the other job it holds, and settles neither (no attempt spent, nothing retried nor dead-lettered): both go
 * back to pending when their lease lapses. Takes about 35 s: the drain's wait is one lease.
 */
class DrainHandlerStopTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    /** Longer than the drain waits for its jobs to settle (30 s), short enough to wait past. */
    private static final int SLEEP_S = 33;

    @Test
    void aStoppedDrainEndsItsHandlersProcessTreesSoNoneFinishesAJobAfterTheDrainExited(@TempDir Path dir) throws Exception {
        Jobs jobs = Jobs.on(Wire.open(SERVER.client()), "slow");
        jobs.enqueueAll(List.of("one".getBytes(StandardCharsets.UTF_8), "two".getBytes(StandardCharsets.UTF_8)));
        // /bin/sh -c CMD runs a shell of its own, which runs sleep: the side effect is the grandchild's
        String command = "cat >/dev/null; echo $$ > " + dir + "/$EMQ_JOB_ID.pid; sh -c 'sleep " + SLEEP_S
                + " && echo \"side effect $EMQ_JOB_ID\" >> " + dir + "/side.log'; true";
        Path err = dir.resolve("err");
        Process drain = new ProcessBuilder(java("drain", "--target", SERVER.uri(), "--queue", "slow", "--handler", "exec", command))
                .redirectInput(new File("/dev/null")).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile())
                .start();
        long started = awaitFirstCommand(dir, drain);
        new ProcessBuilder("kill", "-TERM", Long.toString(drain.pid())).start().waitFor();
        assertTrue(drain.waitFor(60, TimeUnit.SECONDS), "stopped: " + Files.readString(err));
        String said = Files.readString(err);
        assertEquals(143, drain.exitValue(), said);

        Thread.sleep(Math.max(0, started + TimeUnit.SECONDS.toMillis(SLEEP_S + 2) - System.currentTimeMillis()));
        assertFalse(Files.exists(dir.resolve("side.log")), "a command of the stopped drain finished its job after the drain"
                + " exited: " + (Files.exists(dir.resolve("side.log")) ? Files.readString(dir.resolve("side.log")) : "") + said);
        assertEquals(1, pidFiles(dir), "the other job's command never started: " + said);
        assertTrue(said.contains("emq-migrate drain: interrupted; the jobs it holds were not settled within 30 s: their"
                + " handlers were stopped (3 processes); the jobs go back to pending when their lease lapses"), said);
        assertFalse(said.contains("completed by this drain"), "the drain's own word, that it finished the jobs it held, is"
                + " not said: " + said);
        Counts counts = jobs.counts();
        assertEquals(List.of(0L, 2L, 0L, 0L), List.of(counts.pending(), counts.active(), counts.scheduled(), counts.dead()),
                "neither job settled, both left to their lease: " + counts);
    }

    private static List<String> java(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Waits until the drain's first command runs (it wrote its pid file); when it did, in epoch milliseconds. */
    private static long awaitFirstCommand(Path dir, Process drain) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (pidFiles(dir) == 0) {
            assertTrue(drain.isAlive() && System.currentTimeMillis() < deadline, "the drain ran no command: "
                    + Files.readString(dir.resolve("err")));
            Thread.sleep(20);
        }
        return System.currentTimeMillis();
    }

    private static long pidFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".pid")).count();
        }
    }
}
