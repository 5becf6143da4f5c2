package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The README's first command, end to end in-process: its own server, the fixture, every stage. */
class DemoCommandTest {
    @Test
    void migratesVerifiesAndDrainsTheRecordedKeyspace() {
        CliRun r = CliRun.of("demo", "--migrate");
        assertEquals(ExitCodes.OK, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("deletes the live v1 lock bull:orders:10:lock"), r.out());
        assertEquals(4, r.out().split("verdict: PASS", -1).length - 1, r.out());
        assertTrue(r.out().contains("demo: every stage passed"), r.out());
        assertFalse(r.err().contains("first write claims"), "the scratch server's fence is the tour's, no news: " + r.err());
    }

    @Test
    void withoutMigrateItWritesNothingAndSaysWhatIsNext() {
        CliRun r = CliRun.of("demo");
        assertEquals(ExitCodes.OK, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("bull:orders") && r.out().contains("--drop-cron-schedulers"), r.out());
        assertTrue(r.out().contains("emq-migrate demo --migrate"), r.out());
    }
}
