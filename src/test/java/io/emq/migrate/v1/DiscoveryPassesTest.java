package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;

/**
 * Discovery judges the foreign keys in its one pass (holding the keys no queue found so far owns)
 * or, when the held keys pass their bound, in a second pass: both give the same answer. Its pass asks
 * for the next SCAN page before it works on a page.
 */
class DiscoveryPassesTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void onePassAndTheFallbackSecondPassFindTheSameQueuesAndForeignKeys() {
        List<String> prefixes = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("legacy-and-foreign")).prefixes();
        DiscoveryResult onePass = new Discovery(SERVER.client()).discover(prefixes);
        DiscoveryResult twoPasses = new Discovery(SERVER.client(), 1).discover(prefixes);

        assertTrue(onePass.foreignKeys() > 0, "the fixture has foreign keys under its prefixes");
        assertEquals(twoPasses, onePass);
        long[] reported = {0};
        new Discovery(SERVER.client(), 1).discover(prefixes, n -> reported[0] += n);
        assertEquals(onePass.keysUnderPrefixes(), reported[0], "the second pass is not reported as progress");
    }

    @AfterEach
    void quietSlowLog() {
        CommandLog.stop(SERVER.client());
    }

    @Test
    void thePassAsksForTheNextPageBeforeItTypesThisPagesEvidence() {
        SERVER.client().flushAll();
        int queues = 3 * KeyspaceScanner.BATCH; // a meta key each: every page holds evidence to type
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            for (int q = 0; q < queues; q++) {
                p.hset(("bull:q" + q + ":meta").getBytes(StandardCharsets.UTF_8), "opts.maxLenEvents".getBytes(StandardCharsets.UTF_8),
                        "10000".getBytes(StandardCharsets.UTF_8));
            }
            p.sync();
        }
        CommandLog.start(SERVER.client());

        DiscoveryResult found = new Discovery(SERVER.client()).discover(List.of("bull"));

        List<String> commands = CommandLog.entries(SERVER.client()).stream().map(e -> e.getArgs().get(0).toUpperCase()).toList();
        assertEquals(queues, found.queues().size());
        int secondScan = commands.indexOf("SCAN") + 1 + commands.subList(commands.indexOf("SCAN") + 1, commands.size()).indexOf("SCAN");
        assertTrue(commands.indexOf("SCAN") >= 0 && secondScan > commands.indexOf("SCAN"), "two SCAN pages at least: " + commands.size());
        assertTrue(secondScan < commands.indexOf("TYPE"), "the second SCAN (command " + secondScan
                + ") before the first page's evidence is typed (command " + commands.indexOf("TYPE") + ")");
    }
}
