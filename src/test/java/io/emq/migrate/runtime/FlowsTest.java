package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FlowsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final Duration LEASE = Duration.ofSeconds(30);
    private final Wire wire = Wire.open(SERVER.client());
    private final Flows flows = Flows.on(wire, new SnowflakeMinter(7));

    private static byte[] p(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Jobs jobs(String queue) {
        return Jobs.on(wire, queue);
    }

    /** Claims the only pending job of {@code queue} and dead-letters it at once. */
    private void kill(String queue, String id) {
        Claim c = jobs(queue).claim(LEASE).orElseThrow();
        assertEquals(id, c.id());
        assertEquals(RetryOutcome.DEAD, jobs(queue).retry(c.id(), c.token(), Duration.ZERO, 1, "grandchild broke"));
    }

    @Test
    void aThreeLevelFlowWhoseGrandchildDiesFailsItsRootInOneQueue() {
        AdmittedFlow root = flows.add(FlowNode.of("tree", p("root"), FlowNode.of("tree", p("node"), FlowNode.leaf("tree", p("leaf")))));
        AdmittedFlow node = root.children().get(0);
        String leaf = node.children().get(0).id();
        Jobs tree = jobs("tree");
        assertEquals(JobState.AWAITING_CHILDREN, tree.state(root.id()));
        assertEquals(JobState.AWAITING_CHILDREN, tree.state(node.id()));
        kill("tree", leaf);
        assertEquals(JobState.DEAD, tree.state(node.id()));
        assertEquals(JobState.DEAD, tree.state(root.id()), "the death travels up every level");
        assertEquals("child " + node.id() + " failed: child " + leaf + " failed: grandchild broke",
                SERVER.client().hget("emq:{tree}:job:" + root.id(), "last_error"));
        assertEquals(3L, tree.counts(java.util.List.of("failed")).get("failed"));
        assertTrue(tree.claim(LEASE).isEmpty(), "nothing of the dead tree is claimable");
    }

    @Test
    void aThreeLevelFlowAcrossThreeQueuesFailsItsRootThroughTheOutboxes() {
        AdmittedFlow root = flows.add(FlowNode.of("roots", p("root"), FlowNode.of("nodes", p("node"), FlowNode.leaf("leaves", p("leaf")))));
        AdmittedFlow node = root.children().get(0);
        kill("leaves", node.children().get(0).id());
        assertEquals(JobState.AWAITING_CHILDREN, jobs("nodes").state(node.id()), "held until the outbox is delivered");
        assertEquals(java.util.List.of(FlowDelivery.ofReply(3)), jobs("leaves").deliverOutbox(10).outcomes());
        assertEquals(JobState.DEAD, jobs("nodes").state(node.id()));
        assertEquals(JobState.AWAITING_CHILDREN, jobs("roots").state(root.id()));
        jobs("nodes").deliverOutbox(10);
        assertEquals(JobState.DEAD, jobs("roots").state(root.id()), "the node's death reached the root in a third queue");
    }

    @Test
    void anIgnoredDeathLetsTheParentRun() {
        AdmittedFlow root = flows.add(FlowNode.of("ign", p("root"), FlowNode.leaf("ign", p("leaf")).ignoringFailure()));
        kill("ign", root.children().get(0).id());
        assertEquals(JobState.PENDING, jobs("ign").state(root.id()));
    }

    @Test
    void aTreeEightLevelsDeepAcrossQueuesCompletesUpToItsRootWithEachChildsResult() throws Exception {
        FlowNode tree = FlowNode.leaf("deep-7", p("leaf"));
        for (int level = 6; level >= 0; level--) {
            tree = FlowNode.of("deep-" + level, p("level-" + level), tree, FlowNode.leaf("deep-" + level, p("sibling-" + level)));
        }
        assertEquals(8, tree.depth());
        AdmittedFlow root = flows.add(tree);
        for (int round = 0; round < 8; round++) {
            for (int level = 7; level >= 0; level--) {
                Jobs q = jobs("deep-" + level);
                Consumer.withResults(q, job -> p("done:" + new String(job.payload(), StandardCharsets.UTF_8)))
                        .beat(Duration.ofMillis(20)).build().runUntilEmpty(Duration.ZERO);
            }
        }
        AdmittedFlow first = root.children().get(0);
        assertEquals(Map.of(first.id(), "done:level-1", root.children().get(1).id(), "done:sibling-0"),
                flows.childrenValues("deep-0", root.id()));
        assertTrue(SERVER.client().keys("emq:{deep-0}:job:" + root.id()).isEmpty(), "the root ran and completed");
        assertEquals(2L, jobs("deep-0").counts(java.util.List.of("completed")).get("completed"), "the sibling and the root");
    }

    @Test
    void badFlowsAreRefusedBeforeTheWire() {
        assertThrows(IllegalArgumentException.class, () -> new FlowNode("q", p("x"), "drop", java.util.List.of()));
        assertThrows(IllegalArgumentException.class, () -> flows.add(FlowNode.leaf("{bad}", p("x"))));
        assertTrue(SERVER.client().keys("*").stream().noneMatch(k -> k.contains("bad")));
    }
}
