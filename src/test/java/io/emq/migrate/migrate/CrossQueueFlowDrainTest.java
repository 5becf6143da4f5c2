package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.runtime.Consumer;
import io.emq.migrate.runtime.JobState;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The node-5.65.1 fixture's migrated cross-queue flow: its parent in {@code flows-parent} waits
 * for a pending child in {@code flows-child} and a pending local child. Draining
 * {@code flows-child} delivers the first through that queue's outbox.
 */
class CrossQueueFlowDrainTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final Keys PARENTS = Keys.queue("flows-parent");

    @Test
    void drainingBothQueuesOfAMigratedCrossQueueFlowCompletesTheParent() throws InterruptedException {
        Wire target = FixtureDrainCheck.migrate(FixtureDrainCheck.load("node-5.65.1", SERVER.client()),
                SERVER.client(), SERVER.uri(), SERVER.client());
        BrandedId parent = branded(target, "flows-parent", "e025be70-56b3-4064-a601-05baeecd74ff");
        BrandedId crossChild = branded(target, "flows-child", "71f54db9-86df-43b8-8a95-8ee54570e65d");
        BrandedId localChild = branded(target, "flows-parent", "b11aff7a-da29-4851-be34-f1a03118beed");
        Jobs parents = Jobs.on(target, "flows-parent");
        Jobs children = Jobs.on(target, "flows-child");
        assertEquals("2", SERVER.client().get(PARENTS.job(parent, JobSub.DEPENDENCIES)));

        children.resume();
        Consumer.on(children, job -> { }).beat(Duration.ofMillis(50)).build().runUntilEmpty();

        assertEquals(JobState.AWAITING_CHILDREN, parents.state(parent.toString()), "the local child is still pending");
        assertEquals("1", SERVER.client().get(PARENTS.job(parent, JobSub.DEPENDENCIES)));
        assertTrue(SERVER.client().hexists(PARENTS.job(parent, JobSub.PROCESSED), crossChild.toString()));
        assertEquals(0, SERVER.client().llen(Keys.queue("flows-child").flowOutbox()));
        assertTrue(!crossChild.equals(localChild), "each queue mints under its own id base, so children of two"
                + " queues never share a key in the parent's :processed");

        parents.resume();
        Consumer.on(parents, job -> { }).beat(Duration.ofMillis(50)).build().runUntilEmpty();
        assertEquals(JobState.ABSENT, parents.state(parent.toString()), "the parent was released and completed");
        assertEquals(0, parents.counts(List.of("pending")).get("pending"));
    }

    private static BrandedId branded(Wire target, String queue, String v1Id) {
        return new Journal(target, queue).ids().lookupV1(List.of(v1Id.getBytes(StandardCharsets.UTF_8))).get(0).orElseThrow();
    }
}
