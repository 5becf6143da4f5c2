package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LanesTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final String A = new BrandedId("ACC", 1).toString();
    private static final String B = new BrandedId("ACC", 2).toString();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private Jobs jobs;
    private Lanes lanes;

    private Lanes lanes(String queue) {
        Wire wire = Wire.open(SERVER.client());
        jobs = Jobs.on(wire, queue);
        lanes = Lanes.of(wire, jobs);
        return lanes;
    }

    private static byte[] p(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private List<String> fill(String group, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Admission a = lanes.enqueue(group, p(group + "-" + i));
            assertTrue(a.admitted());
            ids.add(a.id());
        }
        return ids;
    }

    private String groupOfNextClaim() {
        return lanes.claim(LEASE).map(LaneClaim::group).orElse("none");
    }

    private long gactive(String queue, String group) {
        String v = SERVER.client().hget("emq:{" + queue + "}:gactive", group);
        return v == null ? 0 : Long.parseLong(v);
    }

    @Test
    void claimsRotateTheRingServingEachLaneInTurnAndInMintOrder() {
        lanes("rot");
        List<String> a = fill(A, 3);
        List<String> b = fill(B, 2);
        assertEquals(List.of(A, B), lanes.ring());
        assertEquals(JobState.PENDING, jobs.state(a.get(0)), "a job waiting in its lane reads pending");
        List<String> served = new ArrayList<>();
        List<String> groups = new ArrayList<>();
        for (Optional<LaneClaim> c = lanes.claim(LEASE); c.isPresent(); c = lanes.claim(LEASE)) {
            served.add(c.get().claim().id());
            groups.add(c.get().group());
            assertEquals(1, c.get().claim().token());
        }
        assertEquals(List.of(A, B, A, B, A), groups);
        assertEquals(List.of(a.get(0), b.get(0), a.get(1), b.get(1), a.get(2)), served);
        assertEquals(List.of(), lanes.ring());
        assertEquals(3, gactive("rot", A));
        assertFalse(lanes.enqueue(A, a.get(0), p("again")).admitted(), "a duplicate id is not admitted twice");
    }

    @Test
    void completeAndRetryGiveTheLaneSlotBackAndTheLimitHoldsTheLaneOffTheRing() {
        lanes("lim");
        fill(A, 3);
        fill(B, 1);
        lanes.limit(A, 1);
        LaneClaim first = lanes.claim(LEASE).orElseThrow();
        assertEquals(A, first.group());
        assertEquals(List.of(B), lanes.ring(), "at its limit, lane A leaves the ring");
        assertEquals(B, groupOfNextClaim());
        assertEquals("none", groupOfNextClaim(), "A is at its limit, B is empty");
        assertEquals(Completion.COMPLETED, jobs.complete(first.claim().id(), first.claim().token()));
        assertEquals(0, gactive("lim", A), "complete gives the slot back (and drops the counter at 0)");
        assertEquals(List.of(A), lanes.ring());
        LaneClaim second = lanes.claim(LEASE).orElseThrow();
        assertEquals(RetryOutcome.SCHEDULED, jobs.retry(second.claim().id(), second.claim().token(), Duration.ZERO, 3, "boom"));
        assertEquals(0, gactive("lim", A));
        assertEquals(1, lanes.depth(A), "the retried job waits in the schedule, not the lane");
        assertEquals(1, jobs.promote());
        assertEquals(2, lanes.depth(A), "promote returns the retried job to its own lane");
        assertEquals(0, SERVER.client().zcard("emq:{lim}:pending"), "never the flat pending set");
        lanes.limit(A, 5);
        assertEquals(List.of(A), lanes.ring());
        assertThrows(IllegalArgumentException.class, () -> lanes.limit(A, 0));
    }

    @Test
    void weightedAndBatchClaimsServeOneLanePerTurnWithinItsHeadroom() {
        lanes("wt");
        fill(A, 5);
        fill(B, 5);
        lanes.weight(A, 3);
        List<LaneClaim> turn = lanes.claimWeighted(LEASE);
        assertEquals(3, turn.size());
        assertTrue(turn.stream().allMatch(c -> c.group().equals(A)));
        assertEquals(1, lanes.claimWeighted(LEASE).size(), "B has the default weight of 1");
        lanes.limit(A, 4);
        assertEquals(1, lanes.claimWeighted(LEASE).size(), "A's weight is clamped to its headroom (4 - 3)");
        assertEquals(List.of(B), lanes.ring());
        List<LaneClaim> batch = lanes.claimBatch(LEASE);
        assertEquals(4, batch.size(), "a batch is the lane's whole backlog when it has no limit");
        assertTrue(batch.stream().allMatch(c -> c.group().equals(B)));
        assertEquals(List.of(), lanes.claimBatch(LEASE));
        assertThrows(IllegalArgumentException.class, () -> lanes.weight(A, 0));
    }

    @Test
    void aPausedLaneLeavesTheRingAndAPausedQueueStopsEveryLaneClaim() {
        lanes("pz");
        fill(A, 2);
        fill(B, 2);
        lanes.pause(A);
        assertEquals(List.of(B), lanes.ring());
        assertEquals(B, groupOfNextClaim());
        lanes.resume(A);
        assertTrue(lanes.ring().contains(A));
        assertTrue(SERVER.client().llen("emq:{pz}:wake") > 0, "a lane joining the ring pushes a wake");
        jobs.pause();
        assertEquals("none", groupOfNextClaim());
        assertEquals(List.of(), lanes.claimBatch(LEASE));
        jobs.resume();
        assertFalse(groupOfNextClaim().equals("none"));
    }

    @Test
    void reassignMovesOnlyAWaitingJobAndKeepsItsPlace() {
        lanes("ra");
        List<String> a = fill(A, 2);
        assertEquals(Reassignment.ALREADY_THERE, lanes.reassign(a.get(1), A));
        assertEquals(Reassignment.REASSIGNED, lanes.reassign(a.get(1), B));
        assertEquals(B, SERVER.client().hget("emq:{ra}:job:" + a.get(1), "group"));
        assertEquals(1, lanes.depth(B));
        LaneClaim c = lanes.claim(LEASE).orElseThrow();
        assertEquals(a.get(0), c.claim().id());
        assertEquals(Reassignment.NOT_WAITING, lanes.reassign(a.get(0), B), "a claimed job stays where it is");
        assertEquals(Reassignment.NOT_FOUND, lanes.reassign(jobs.mintId(), B));
        assertEquals(List.of(B), lanes.ring(), "A is empty and left the ring; B joined it");
        assertThrows(IllegalArgumentException.class, () -> lanes.reassign(a.get(0), "not-a-group"));
    }

    @Test
    void laneDrainDeletesOneLanesBacklogOnly() {
        lanes("dr");
        List<String> a = fill(A, 3);
        fill(B, 2);
        LaneClaim held = lanes.claim(LEASE).orElseThrow();
        assertEquals(2, lanes.drain(A));
        assertEquals(0, lanes.depth(A));
        assertFalse(SERVER.client().exists("emq:{dr}:job:" + a.get(2)));
        assertTrue(SERVER.client().exists("emq:{dr}:job:" + held.claim().id()), "the job in flight is kept");
        assertEquals(2, lanes.depth(B));
        assertEquals(List.of(B), lanes.ring());
    }

    @Test
    void lapsedLeasesReturnToTheirOwnLaneQueueWideOrOneLaneAtATime() throws Exception {
        lanes("rp");
        fill(A, 1);
        fill(B, 1);
        Duration brief = Duration.ofMillis(1);
        LaneClaim a = lanes.claim(brief).orElseThrow();
        LaneClaim b = lanes.claim(brief).orElseThrow();
        Thread.sleep(20);
        assertEquals(1, lanes.reap(A));
        assertEquals(1, lanes.depth(A));
        assertEquals(0, gactive("rp", A));
        assertEquals(1, gactive("rp", B), "B's lapsed lease is left for the queue-wide reap");
        assertEquals(1, jobs.reap());
        assertEquals(1, lanes.depth(B));
        assertEquals(0, SERVER.client().zcard("emq:{rp}:pending"));
        assertEquals(List.of(A, B), lanes.ring());
        assertThrows(EmqWireException.Stale.class, () -> jobs.complete(a.claim().id(), a.claim().token() - 1));
        LaneClaim again = lanes.claim(LEASE).orElseThrow();
        assertEquals(a.claim().id(), again.claim().id());
        assertEquals(2, again.claim().token(), "the next claim mints the next token");
        assertEquals(b.claim().id(), lanes.claim(LEASE).orElseThrow().claim().id());
    }

    @Test
    void sweepStalledRecoversIntoTheLaneAndDeadLettersGivingTheSlotBack() throws Exception {
        lanes("sw");
        fill(A, 1);
        lanes.claim(Duration.ofMillis(1)).orElseThrow();
        Thread.sleep(20);
        StalledSweep first = jobs.sweepStalled(2, 100);
        assertEquals(1, first.recovered().size());
        assertEquals(1, lanes.depth(A));
        lanes.claim(Duration.ofMillis(1)).orElseThrow();
        Thread.sleep(20);
        StalledSweep second = jobs.sweepStalled(2, 100);
        assertEquals(1, second.dead().size());
        assertEquals(0, gactive("sw", A));
        assertEquals(0, lanes.depth(A));
        assertTrue(jobs.reprocess(second.dead().get(0)));
        assertEquals(0, lanes.depth(A), "a reprocessed dead job goes to the flat pending set, as the reference's @reprocess");
        assertEquals(List.of(), lanes.ring());
        assertEquals(Optional.empty(), lanes.claim(LEASE), "a lanes consumer never serves it");
        assertEquals(second.dead().get(0), jobs.claim(LEASE).orElseThrow().id(), "a flat claim does");
    }

    /** A grouped dead job reprocessed into the flat pending set is removed from there: no claim brings it back. */
    @Test
    void aReprocessedGroupedJobIsRemovedFromTheFlatPendingSet() throws Exception {
        lanes("rr");
        String id = fill(A, 1).get(0);
        lanes.claim(Duration.ofMillis(1)).orElseThrow();
        Thread.sleep(20);
        assertEquals(List.of(id), jobs.sweepStalled(1, 100).dead());
        assertTrue(jobs.reprocess(id));
        assertTrue(jobs.remove(id));
        assertEquals(0, SERVER.client().zcard("emq:{rr}:pending"), "out of the flat pending set");
        assertEquals(Optional.empty(), jobs.claim(LEASE), "nothing to claim");
        assertEquals(0, SERVER.client().zcard("emq:{rr}:active"));
    }

    /**
     * A flow parent whose row names a lane (as a migration into lanes writes it) is released into the flat pending set
     * when its last child completes, as the reference's fan-in releases it: a lanes consumer never serves it.
     */
    @Test
    void aFlowParentWithALaneIsReleasedIntoTheFlatPendingSet() {
        lanes("fl");
        Flows flows = Flows.on(Wire.open(SERVER.client()), new SnowflakeMinter(7));
        AdmittedFlow parent = flows.add(FlowNode.of("fl", p("parent"), FlowNode.leaf("fl", p("child"))));
        SERVER.client().hset("emq:{fl}:job:" + parent.id(), "group", A);
        Claim child = jobs.claim(LEASE).orElseThrow();
        assertEquals(parent.children().get(0).id(), child.id());
        jobs.complete(child.id(), child.token());
        assertEquals(JobState.PENDING, jobs.state(parent.id()));
        assertEquals(0, lanes.depth(A));
        assertEquals(Optional.empty(), lanes.claim(LEASE), "not in its lane");
        assertEquals(parent.id(), jobs.claim(LEASE).orElseThrow().id(), "in the flat pending set");
    }

    @Test
    void removeTakesAWaitingJobOutOfItsLaneAndObliterateDeletesEveryLane() {
        lanes("rm");
        List<String> a = fill(A, 2);
        fill(B, 2);
        lanes.pause(B);
        assertTrue(jobs.remove(a.get(0)));
        assertEquals(1, lanes.depth(A));
        assertTrue(jobs.remove(a.get(1)));
        assertEquals(List.of(), lanes.ring(), "an emptied lane leaves the ring");
        lanes.resume(B);
        lanes.claim(LEASE).orElseThrow();
        jobs.pause();
        jobs.obliterate(true);
        assertEquals(0, SERVER.client().keys("emq:{rm}:*").size(), "nothing of the queue is left");
    }

    @Test
    void aGroupThatIsNotABrandedIdIsRefusedBeforeTheWire() {
        lanes("bad");
        assertThrows(IllegalArgumentException.class, () -> lanes.enqueue("tenant-1", p("x")));
        assertThrows(IllegalArgumentException.class, () -> lanes.pause("acc"));
        assertEquals(0, SERVER.client().keys("emq:{bad}:*").size());
    }

    @Test
    void aConsumerStopsWhenWhatIsLeftIsWorkItCannotClaim() {
        lanes("idle");
        fill(A, 2);
        fill(B, 1);
        lanes.pause(B);
        jobs.enqueue(p("flat"));
        ConsumerStats throughLanes = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> Consumer.on(jobs, job -> { }).lanes(lanes).build().runUntilEmpty());
        assertEquals(2, throughLanes.completed(), "A's jobs; B is paused and the flat job is not in a lane");
        ConsumerStats flat = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> Consumer.on(jobs, job -> { }).build().runUntilEmpty());
        assertEquals(1, flat.completed(), "the flat job; a flat consumer never waits for lanes");
        assertEquals(1, lanes.depth(B));
    }

    @Test
    void anIdleLanesConsumerParksOnTheWakeListAndServesWhatArrives() throws Exception {
        lanes("park");
        assertFalse(lanes.park(Duration.ofMillis(20)), "no wake without a lane joining the ring");
        fill(A, 1);
        assertTrue(lanes.park(Duration.ofMillis(20)), "a lane joining the ring pushes a wake");
        assertFalse(lanes.park(Duration.ofMillis(20)), "the wake was taken");
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        try (Consumer consumer = Consumer.on(jobs, job -> seen.add(job.id())).lanes(lanes).build()) {
            consumer.start();
            Thread.sleep(100);
            String late = lanes.enqueue(B, p("late")).id();
            for (int i = 0; i < 100 && seen.size() < 2; i++) {
                Thread.sleep(20);
            }
            assertEquals(2, seen.size(), "served " + seen);
            assertEquals(late, seen.get(1));
        }
    }

    @Test
    void theConsumerInLanesModeServesTheLanesInTurn() throws Exception {
        lanes("cons");
        fill(A, 4);
        fill(B, 2);
        List<String> order = new ArrayList<>();
        ConsumerStats stats = Consumer.on(jobs, job -> order.add(new String(job.payload(), StandardCharsets.UTF_8)))
                .lanes(lanes).build().runUntilEmpty();
        assertEquals(6, stats.completed());
        assertEquals(List.of(A + "-0", B + "-0", A + "-1", B + "-1", A + "-2", A + "-3"), order);
        assertEquals(0, gactive("cons", A));
        assertThrows(IllegalArgumentException.class, () -> Consumer.on(jobs, job -> { }).lanes(lanes).batchSize(4).build());
    }
}
