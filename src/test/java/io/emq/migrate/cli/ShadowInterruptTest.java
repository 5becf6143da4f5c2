package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import java.util.List;
import java.util.Set;
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
            // not SIGINT: a JVM started from a background job ignores it
            SignalledRun run = SignalledRun.of(when, "TERM", "drain", "--target", SERVER.uri(), "--queue", "big", "--shadow",
                    "--handler", "exec sleep 5");
            String err = run.err();
            assertEquals(143, run.code(), err);
            Set<String> left = SERVER.client().keys("emq:{big-shadow*");
            assertTrue(left.isEmpty(), "stopped at '" + when + "': " + left.size() + " keys of the copy left");
            assertTrue(err.contains("emq-migrate drain: interrupted; deleted the scratch queue 'big-shadow-")
                    && err.contains("'; queue 'big' was only read"), err);
            assertEquals(60_000, SERVER.client().zcard("emq:{big}:pending"), "the queue is as it was");
        }
    }

    /**
     * A shadow drain killed outright (SIGKILL: no clean-up runs) leaves its copy; the next shadow drain of the queue names
     * it, with its keys, and the command that deletes it, and goes on with a copy of its own (which it deletes).
     */
    @Test
    void aCopyLeftByAKilledShadowDrainIsNamedByTheNextWithTheCommandThatDeletesIt() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "killed", 1, 200, 20);
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "killed").code());
        SignalledRun run = SignalledRun.of("keys); draining the copy", "KILL", "drain", "--target", SERVER.uri(), "--queue", "killed",
                "--shadow", "--handler", "exec sleep 5");
        assertEquals(137, run.code(), run.err());
        Set<String> left = SERVER.client().keys("emq:{killed-shadow-*");
        assertFalse(left.isEmpty(), run.err());
        String copy = left.iterator().next().replaceAll("^emq:\\{(.*)}:.*$", "$1");

        CliRun next = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "killed", "--shadow", "--handler", "noop");
        assertEquals(0, next.code(), next.all());
        String pattern = "emq:{" + copy + "}:*";
        assertTrue(next.err().contains("emq-migrate drain: the scratch queue '" + copy + "' (" + left.size() + " keys) of an"
                + " earlier shadow drain of 'killed' is on " + SERVER.uri() + ": that drain was killed"
                + " before it could delete it, or runs now. Unless one runs now, delete it: redis-cli -u URI --scan --pattern '"
                + pattern + "' | xargs redis-cli -u URI unlink"), next.all());
        assertEquals(left, SERVER.client().keys("emq:{*-shadow-*"), "the next drain deleted its own copy, not the one it named");
        SERVER.client().keys(pattern).forEach(SERVER.client()::unlink); // the command it names
        assertTrue(SERVER.client().keys("emq:{killed-shadow-*").isEmpty());
        assertEquals(200, SERVER.client().zcard("emq:{killed}:pending"), "the queue is as it was");
    }
}
