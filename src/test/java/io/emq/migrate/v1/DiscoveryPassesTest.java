package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Discovery judges the foreign keys in its one pass (holding the keys no queue found so far owns)
 * or, when the held keys pass their bound, in a second pass: both give the same answer.
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
}
