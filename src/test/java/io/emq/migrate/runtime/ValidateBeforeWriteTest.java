package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * No runtime script fails after a write: each one below is fed a row it cannot use (not a hash, or a
 * count HINCRBY cannot count, or an argument it cannot use), answers instead of failing, and leaves
 * every job in exactly one set.
 * A row a script dead-letters is counted in {@code metrics:failed} and tells its flow parent, as a
 * retry's death does.
 */
class ValidateBeforeWriteTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final String LANE = new BrandedId("ACC", 7).toString();
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration LAPSING = Duration.ofMillis(1);

    private final Wire wire = Wire.open(SERVER.client());
    private final UnifiedJedis redis = SERVER.client();

    private static byte[] p(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String row(String queue, String id) {
        return "emq:{" + queue + "}:job:" + id;
    }

    /** Replaces a job's row by a string: a row no verb can read as a hash. */
    private void breakRow(String queue, String id) {
        redis.del(row(queue, id));
        redis.set(row(queue, id), "not a row");
    }

    /** Where each job is listed: the set (or lane) that holds it; a job listed twice or nowhere fails the test. */
    private Map<String, String> whereIs(String queue, List<String> ids) {
        Map<String, String> out = new TreeMap<>();
        for (String id : ids) {
            List<String> in = new ArrayList<>();
            for (String set : List.of("pending", "active", "schedule", "dead", "g:" + LANE + ":pending")) {
                if (redis.zscore("emq:{" + queue + "}:" + set, id) != null) {
                    in.add(set.startsWith("g:") ? "lane" : set);
                }
            }
            assertEquals(1, in.size(), id + " is listed in exactly one set, found " + in);
            out.put(id, in.get(0));
        }
        return out;
    }

    private long failed(String queue) {
        return Jobs.on(wire, queue).counts(List.of("failed")).get("failed");
    }

    private List<String> lane(Lanes lanes, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(lanes.enqueue(LANE, p("job-" + i)).id());
        }
        return ids;
    }

    @Test
    void aLaneClaimDeadLettersARowItCannotCountAndServesTheNextJob() {
        Jobs jobs = Jobs.on(wire, "lane-one");
        Lanes lanes = Lanes.of(wire, jobs);
        List<String> ids = lane(lanes, 3);
        redis.hset(row("lane-one", ids.get(0)), "attempts", "1e30");
        LaneClaim served = lanes.claim(LEASE).orElseThrow();
        assertEquals(ids.get(1), served.claim().id());
        assertEquals(LANE, served.group());
        assertEquals(Map.of(ids.get(0), "dead", ids.get(1), "active", ids.get(2), "lane"), whereIs("lane-one", ids));
        assertEquals("claim: attempts '1e30' is not a count from 0 to 2^53-2", redis.hget(row("lane-one", ids.get(0)), "last_error"));
        assertEquals("1e30", redis.hget(row("lane-one", ids.get(0)), "attempts"), "the row is otherwise as found");
        assertEquals(1, failed("lane-one"));
    }

    @Test
    void aLaneBatchClaimPassesOverARowThatIsNotAHash() {
        Jobs jobs = Jobs.on(wire, "lane-batch");
        Lanes lanes = Lanes.of(wire, jobs);
        List<String> ids = lane(lanes, 3);
        breakRow("lane-batch", ids.get(1));
        List<String> served = lanes.claimBatch(LEASE).stream().map(c -> c.claim().id()).toList();
        assertEquals(List.of(ids.get(0), ids.get(2)), served);
        assertEquals(Map.of(ids.get(0), "active", ids.get(1), "dead", ids.get(2), "active"), whereIs("lane-batch", ids));
        assertEquals("not a row", redis.get(row("lane-batch", ids.get(1))));
        assertEquals(1, failed("lane-batch"));
        assertEquals(List.of(), lanes.ring(), "the emptied lane left the ring");
    }

    @Test
    void sweepStalledDeadLettersRowsItCannotCountInsteadOfFailingAfterTakingThemOffActive() throws InterruptedException {
        Jobs jobs = Jobs.on(wire, "stalls");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(jobs.enqueue(p("job-" + i)).id());
        }
        assertEquals(3, jobs.claimBatch(LAPSING, 3).size());
        redis.hset(row("stalls", ids.get(0)), "stalled", "many");
        breakRow("stalls", ids.get(1));
        Thread.sleep(20);
        StalledSweep sweep = jobs.sweepStalled(5, 100);
        assertEquals(List.of(ids.get(2)), sweep.recovered());
        assertEquals(List.of(ids.get(0), ids.get(1)), sweep.dead());
        assertEquals(Map.of(ids.get(0), "dead", ids.get(1), "dead", ids.get(2), "pending"), whereIs("stalls", ids));
        assertEquals("sweep_stalled: stalled 'many' is not a count from 0 to 2^53-2",
                redis.hget(row("stalls", ids.get(0)), "last_error"));
        assertEquals("1", redis.hget(row("stalls", ids.get(2)), "stalled"));
        assertEquals(2, failed("stalls"));
    }

    @Test
    void reapDeadLettersALapsedJobWhoseRowIsNotAHashAndRecoversTheRest() throws InterruptedException {
        Jobs jobs = Jobs.on(wire, "reaped");
        List<String> ids = List.of(jobs.enqueue(p("a")).id(), jobs.enqueue(p("b")).id());
        assertEquals(2, jobs.claimBatch(LAPSING, 2).size());
        Thread.sleep(20);
        assertTheBrokenRowIsDeadLettered("reaped", ids.get(0), ids.get(1), jobs::reap);
    }

    @Test
    void promoteDeadLettersADueJobWhoseRowIsNotAHashAndPromotesTheRest() {
        Jobs jobs = Jobs.on(wire, "promoted");
        List<String> ids = List.of(jobs.mintId(), jobs.mintId());
        for (String id : ids) {
            assertTrue(jobs.enqueueIn(id, p(id), Duration.ZERO).admitted());
        }
        assertTheBrokenRowIsDeadLettered("promoted", ids.get(1), ids.get(0), jobs::promote);
    }

    /** Two due jobs, one row broken: the verb takes both, dead-letters the broken one and returns the other to pending. */
    private void assertTheBrokenRowIsDeadLettered(String queue, String broken, String sound, LongSupplier verb) {
        breakRow(queue, broken);
        assertEquals(2, verb.getAsLong());
        assertEquals(Map.of(broken, "dead", sound, "pending"), whereIs(queue, List.of(broken, sound)));
        assertEquals(1, failed(queue));
    }

    @Test
    void aBatchOfCompletionsRefusesOnlyTheJobsItCannotCompleteAndCountsTheRest() {
        Jobs jobs = Jobs.on(wire, "settle");
        for (int i = 0; i < 3; i++) {
            jobs.enqueue(p("job-" + i));
        }
        List<Claim> claims = jobs.claimBatch(LEASE, 3);
        List<String> ids = claims.stream().map(Claim::id).toList();
        breakRow("settle", ids.get(2));
        List<Jobs.Settled> done = List.of(new Jobs.Settled(ids.get(0), claims.get(0).token(), new byte[0]),
                new Jobs.Settled(ids.get(1), claims.get(1).token() + 1, new byte[0]),
                new Jobs.Settled(ids.get(2), claims.get(2).token(), new byte[0]),
                new Jobs.Settled(ids.get(0), claims.get(0).token(), new byte[0]));
        List<ScriptReply<Completion>> outcomes = wire.eval(jobs.completeBatchCall(done));
        assertEquals(Completion.COMPLETED, outcomes.get(0).get());
        EmqWireException.Stale stale = assertInstanceOf(EmqWireException.Stale.class, outcomes.get(1).error());
        assertTrue(!stale.jobGone(), "a token mismatch, not a gone job");
        assertInstanceOf(EmqWireException.State.class, outcomes.get(2).error());
        assertEquals(Completion.GONE, outcomes.get(3).get(), "a job named twice is completed once");
        assertEquals(Map.of(ids.get(1), "active", ids.get(2), "active"), whereIs("settle", ids.subList(1, 3)));
        assertEquals(1L, jobs.counts(List.of("completed")).get("completed"));
    }

    @Test
    void aLaneLimitThatIsNotACountIsRefusedBeforeItIsWritten() {
        Jobs jobs = Jobs.on(wire, "limited");
        Lanes lanes = Lanes.of(wire, jobs);
        lane(lanes, 1);
        byte[] base = p("emq:{limited}:");
        for (String bad : List.of("lots", "0", "2.5")) {
            assertThrows(EmqWireException.State.class, () -> wire.eval(new ScriptCall<>(Script.LANE_LIMIT,
                    List.of(p("emq:{limited}:glimit")), List.of(base, p(LANE), p(bad)), Replies::asLong)));
        }
        assertEquals(null, redis.hget("emq:{limited}:glimit", LANE), "nothing written");
        assertEquals(List.of(LANE), lanes.ring());
    }

    @Test
    void aLaneWhoseBookkeepingIsNotANumberIsStillServedAndSettled() {
        Jobs jobs = Jobs.on(wire, "booked");
        Lanes lanes = Lanes.of(wire, jobs);
        List<String> ids = lane(lanes, 2);
        redis.hset("emq:{booked}:glimit", LANE, "many");
        redis.hset("emq:{booked}:gactive", LANE, "some");
        Claim first = lanes.claim(LEASE).orElseThrow().claim();
        assertEquals(ids.get(0), first.id());
        assertEquals("1", redis.hget("emq:{booked}:gactive", LANE), "a value that is not a number counts as none");
        assertEquals(Completion.COMPLETED, jobs.complete(first.id(), first.token()));
        assertEquals(null, redis.hget("emq:{booked}:gactive", LANE));
        assertEquals(Map.of(ids.get(1), "lane"), whereIs("booked", ids.subList(1, 2)));
        assertEquals(ids.get(1), lanes.claim(LEASE).orElseThrow().claim().id());
    }

    @Test
    void aClaimThatDeadLettersAFlowChildCountsItAndFailsItsParentAsARetryDeathWould() {
        Flows flows = Flows.on(wire, new SnowflakeMinter(11));
        AdmittedFlow parent = flows.add(FlowNode.of("family", p("parent"), FlowNode.leaf("family", p("child"))));
        String child = parent.children().get(0).id();
        redis.hset(row("family", child), "attempts", "-1");
        Jobs family = Jobs.on(wire, "family");
        assertTrue(family.claim(LEASE).isEmpty(), "the only pending job could not be claimed");
        assertEquals(JobState.DEAD, family.state(child));
        assertEquals(JobState.DEAD, family.state(parent.id()), "the parent's fail-parent policy applied");
        assertEquals("child " + child + " failed: claim: attempts '-1' is not a count from 0 to 2^53-2",
                redis.hget(row("family", parent.id()), "last_error"));
        assertEquals(2, failed("family"), "both deaths counted, as retry counts them");
    }
}
