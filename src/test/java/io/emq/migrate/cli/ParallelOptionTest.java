package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code migrate --parallel N} on the command line: bad values refused in one line, nothing written; a good one migrates. */
class ParallelOptionTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aParallelThatIsNotAWholeNumberFromOneUpIsRefusedInOneLineAndNothingIsWritten() {
        SERVER.client().flushAll();
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        String before = new KeyspaceDump(SERVER.client()).digest();
        for (String bad : new String[] {"0", "-2", "two", "1.5", "65"}) {
            CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--yes", "--parallel", bad);
            assertEquals(2, migrate.code(), migrate.all());
            assertEquals(1, migrate.err().strip().lines().count(), migrate.err());
            assertTrue(migrate.err().contains("--parallel takes a whole number from 1 to 64, not '" + bad + "'"), migrate.err());
        }
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "nothing written");
    }

    @Test
    void everyQueueOfTheFixtureMigratesWithThreeAtOnce() {
        SERVER.client().flushAll();
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        SERVER.client().keys("*:lock").forEach(SERVER.client()::del);
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--yes", "--parallel", "3",
                "--drop-cron-schedulers");
        assertEquals(0, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("4 of 4 queues done"), migrate.out());
    }
}
