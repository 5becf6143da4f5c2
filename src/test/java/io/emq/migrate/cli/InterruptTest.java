package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Stopping {@code migrate} with Ctrl-C (SIGINT) says what was interrupted and releases its lease: a re-run at once resumes. */
class InterruptTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void anInterruptedMigrationSaysWhereItStoppedAndARerunAtOnceFinishesIt() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "big", 1, 60_000, 20);
        String err = SignalledRun.of("plan identity", "INT", "migrate", "--source", SERVER.uri(), "--queue", "big", "--no-retire",
                "--lease", "60s").err(); // what Ctrl-C sends
        assertTrue(err.contains("emq-migrate migrate: interrupted at queue big at step V"), err);
        assertTrue(err.contains("; nothing is lost: its lease is released: run the same command again and it"
                + " resumes there"), err);
        // at once, well inside the interrupted run's lease of a minute: the interruption released it
        CliRun rerun = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "big", "--no-retire");
        assertEquals(0, rerun.code(), rerun.all());
        assertEquals(60_000, SERVER.client().zcard("emq:{big}:pending"));
    }
}
