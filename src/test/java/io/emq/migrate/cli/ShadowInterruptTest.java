package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
