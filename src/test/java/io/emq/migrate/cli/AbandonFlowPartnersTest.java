package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue whose flows link it with another queue (the recorded fixture: parents in {@code flows-parent}, their children in
 * {@code flows-child}) is not abandoned alone while the other's migration stands: the other's v2 jobs would name jobs v2
 * no longer holds (a parent waiting for children that are gone). Refused with nothing changed; the two abandoned in one
 * command give both v1 queues back as they were.
 */
class AbandonFlowPartnersTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void recordedFlows() {
        SERVER.client().flushAll();
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
    }

    @Test
    void theChildrensQueueIsNotAbandonedOnceTheParentsQueueRetiredAndAReRunFinishesIt() {
        CliRun both = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child",
                "--no-retire", "--yes");
        assertEquals(0, both.code(), both.all());
        CliRun parents = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--yes");
        assertEquals(0, parents.code(), parents.all());
        Map<String, String> v2Before = v2Keys("flows-child");

        CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "flows-child", "--yes");
        assertEquals(3, abandon.code(), abandon.all());
        assertTrue(abandon.err().contains("the flows of flows-child link its jobs with those of flows-parent (retired)")
                && abandon.err().contains("Nothing was changed: finish the migration of flows-child"), abandon.all());
        assertEquals(v2Before, v2Keys("flows-child"), "the children's v2 rows kept");
        CliRun together = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent", "--yes");
        assertEquals(3, together.code(), together.all());
        assertTrue(together.err().contains("link its jobs with those of flows-parent (retired)"), together.all());
        assertEquals(v2Before, v2Keys("flows-child"), "a retired partner is no partner to abandon with");

        CliRun forget = CliRun.of("forget", "--target", SERVER.uri(), "--queue", "flows-parent", "--yes");
        assertEquals(3, forget.code(), forget.all());
        assertTrue(forget.err().contains("link its jobs with those of flows-child (verified), whose migration is under way"),
                forget.all());
        assertTrue(SERVER.client().exists("{emq}:migration:flows-parent"), "the parents' journal kept");

        CliRun finish = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-child", "--yes");
        assertEquals(0, finish.code(), finish.all());
        assertTrue(SERVER.client().keys("bull:flows-child:*").stream().allMatch(k -> k.endsWith(":meta") || k.endsWith(":id")),
                "retired: " + SERVER.client().keys("bull:flows-child:*"));
        assertEquals(0, CliRun.of("forget", "--target", SERVER.uri(), "--queue", "flows-parent", "--yes").code(), "both retired");
    }

    @Test
    void twoLinkedQueuesAreAbandonedTogetherNotOneAlone() {
        Map<String, String> v1Before = v1Keys();
        CliRun both = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child",
                "--no-retire", "--yes");
        assertEquals(0, both.code(), both.all());
        assertEquals("1", SERVER.client().hget("{emq}:migration:flows-child", "linked:flows-parent"),
                "the children's journal records that its rows name the parents' ids");

        for (String queue : new String[] {"flows-parent", "flows-child"}) {
            CliRun alone = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", queue, "--yes");
            assertEquals(3, alone.code(), alone.all());
            String other = queue.equals("flows-parent") ? "flows-child" : "flows-parent";
            assertTrue(alone.err().contains("link its jobs with those of " + other + " (verified)")
                    && alone.err().contains("abandon them together in one command"), alone.all());
            assertEquals("verified", SERVER.client().hget("{emq}:migration:" + queue, "state"), "nothing changed");
        }

        CliRun together = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child", "--yes");
        assertEquals(0, together.code(), together.all());
        assertTrue(together.out().contains("abandoned flows-parent") && together.out().contains("abandoned flows-child"), together.out());
        assertFalse(SERVER.client().hexists("{emq}:migration:flows-child", "linked:flows-parent"), "the link goes with the rest");
        assertEquals(Map.of(), v2Keys("flows-child"));
        assertEquals(Map.of(), v2Keys("flows-parent"));
        assertEquals(v1Before, v1Keys(), "v1 as it was before");

        CliRun again = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child", "--yes");
        assertEquals(0, again.code(), again.all());
    }

    @Test
    void aCommandOfOneQueueGivenTwoIsAUsageErrorStill() {
        CliRun forget = CliRun.of("forget", "--target", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent", "--yes");
        assertEquals(2, forget.code(), forget.all());
        assertTrue(forget.err().contains("--queue was given 2 times; give it once"), forget.all());
    }

    /** The v2 keys of a queue (rows, sets, meta...), each with its type. */
    private static Map<String, String> v2Keys(String queue) {
        Set<String> keys = SERVER.client().keys("emq:{" + queue + "}:*");
        Map<String, String> out = new TreeMap<>();
        keys.stream().filter(k -> !k.endsWith(":meta")).forEach(k -> out.put(k, SERVER.client().type(k)));
        return out;
    }

    /** Every v1 key of the two queues, each with its type. */
    private static Map<String, String> v1Keys() {
        Map<String, String> out = new TreeMap<>();
        for (String pattern : new String[] {"bull:flows-parent:*", "bull:flows-child:*"}) {
            SERVER.client().keys(pattern).forEach(k -> out.put(k, SERVER.client().type(k)));
        }
        return out;
    }
}
