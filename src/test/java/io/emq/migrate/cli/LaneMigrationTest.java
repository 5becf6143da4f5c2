package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code migrate --lane}: a queue's pending jobs land in one lane, in serve order, and drain through the lanes consumer. */
class LaneMigrationTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final String LANE = "GRP0000000001A";

    @Test
    void aQueueMigratedIntoALaneIsServedThroughTheRingAndDrainsWithAPassingVerdict() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lane", LANE, "--yes");
        assertEquals(ExitCodes.OK, m.code(), m.out() + m.err());
        String lane = "emq:{emails}:g:" + LANE + ":pending";
        List<String> pending = SERVER.client().zrange(lane, 0, -1);
        assertEquals(4, pending.size(), "the four waiting jobs are in the lane");
        assertEquals(pending.stream().sorted().toList(), pending, "in serve order (branded ids ascend)");
        assertEquals(0, SERVER.client().zcard("emq:{emails}:pending"), "nothing in the flat pending set");
        assertEquals(List.of(LANE), SERVER.client().lrange("emq:{emails}:ring", 0, -1), "the lane is on the ring");
        for (String id : pending) {
            assertEquals(LANE, SERVER.client().hget("emq:{emails}:job:" + id, "group"));
        }
        String scheduled = SERVER.client().zrange("emq:{emails}:schedule", 0, 0).get(0);
        assertEquals(LANE, SERVER.client().hget("emq:{emails}:job:" + scheduled, "group"), "a scheduled job is promoted into the lane");

        CliRun drain = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--json");
        assertEquals(ExitCodes.OK, drain.code(), drain.out() + drain.err());
        assertTrue(drain.err().contains("was migrated into lane " + LANE), drain.err());
        JsonNode doc = Json.MAPPER.readTree(drain.out());
        assertTrue(doc.get("passed").asBoolean(), drain.out());
        assertEquals(4, doc.get("before").get("pending").asLong());
        assertEquals(0, doc.get("after").get("pending").asLong());
    }

    /**
     * A flow parent waiting for its children would be released, by the reference, into the flat pending set, which a
     * lanes consumer never claims: plan and migrate refuse the queue into lanes, v1 kept as it was; it migrates flat.
     */
    @Test
    void aQueueWhoseFlowParentWaitsForItsChildrenIsRefusedIntoLanesAndMigratesFlat() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        java.util.Map<String, String> v1 = flowQueues();
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-parent", "--lane", LANE);
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.out() + plan.err());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("flow-in-lane")
                && plan.out().contains("1 flow parent(s) wait for their children"), plan.out());
        CliRun flatPlan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child");
        assertFalse(flatPlan.out().contains("flow-in-lane"), flatPlan.out());

        CliRun lanes = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child",
                "--lane-from", "name", "--json", "--yes");
        assertEquals(ExitCodes.REFUSED, lanes.code(), lanes.out() + lanes.err());
        assertEquals("flow-in-lane", lanes.queuesByV1().get("bull:flows-parent").path("refusal").path("kind").asText(), lanes.out());
        assertFalse(lanes.out().contains("emq:{flows-parent} stays paused"), "refused at its fence, which gives v2 back: " + lanes.out());
        assertEquals(null, SERVER.client().hget("emq:{flows-parent}:meta", "paused"));
        assertEquals(v1, flowQueues(), "v1 kept as it was");
        assertTrue(lanes.out().contains("the migration of its queue bull:flows-parent has given no job an id yet"), lanes.out());

        // the child's queue was given ids but wrote no row: the run without lanes takes both, with the ids minted then
        Optional<BrandedId> child = childId();
        assertTrue(child.isPresent(), "the first run minted the child's id");
        CliRun flat = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--queue", "flows-child", "--yes");
        assertEquals(ExitCodes.OK, flat.code(), flat.out() + flat.err());
        assertEquals(java.util.Map.of(), flowQueues(), "both retired");
        assertEquals(child, childId(), "the same id");
        String parent = SERVER.client().keys("emq:{flows-parent}:job:*:processed").iterator().next();
        assertEquals(java.util.Set.of(child.get().toString()), SERVER.client().hkeys(parent), "the parent's record names the child's row");
        assertEquals("", SERVER.client().hget("{emq}:migration:flows-child", "lane_from"), "the choice recorded in its place");
    }

    /** The branded id flows-child's journal gives the fixture's completed child, named in its parent's :processed. */
    private static Optional<BrandedId> childId() {
        return new Journal(Wire.open(SERVER.client()), "flows-child").ids()
                .lookupV1(List.of("b489d018-07fe-4dc3-9569-1bca187a0597".getBytes(java.nio.charset.StandardCharsets.UTF_8))).get(0);
    }

    /** Every key of the fixture's flow queues in v1, with its bytes (DUMP), as hex. */
    private static java.util.Map<String, String> flowQueues() {
        java.util.Map<String, String> keys = new java.util.TreeMap<>();
        SERVER.client().keys("bull:flows-*").stream().filter(k -> !k.endsWith(":meta") && !k.endsWith(":id"))
                .forEach(k -> keys.put(k, java.util.HexFormat.of().formatHex(SERVER.client().dump(k))));
        return keys;
    }

    @Test
    void aLaneIsABrandedGroupIdAndARunKeepsTheLaneItStartedWith() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun bad = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lane", "tenant 7", "--no-retire");
        assertEquals(ExitCodes.USAGE, bad.code(), bad.out() + bad.err());
        assertTrue(bad.err().contains("--lane must be a branded group id"), bad.err());

        CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lane", LANE, "--no-retire");
        assertEquals(ExitCodes.OK, first.code(), first.out() + first.err());
        CliRun other = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire");
        assertEquals(ExitCodes.REFUSED, other.code(), other.out() + other.err());
        assertTrue((other.out() + other.err()).contains("started with --lane " + LANE), other.out() + other.err());
    }

    @Test
    void planSaysWhichConsumerWillSeeTheJobs() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun lanes = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails", "--lane", LANE, "--json");
        JsonNode q = Json.MAPPER.readTree(lanes.out()).get("queues").get(0);
        assertTrue(q.get("servedBy").asText().startsWith("lane " + LANE), lanes.out());
        CliRun flat = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails");
        assertTrue(flat.out().contains("served by: the flat pending set") && flat.out().contains("migrate --lane GROUP"), flat.out());
        assertEquals(ExitCodes.USAGE, CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails", "--lane", "x").code());
    }

    @Test
    void laneFromGivesEachValueOfAJobFieldItsOwnLaneAndTheDrainPasses() throws Exception {
        String[][] jobs = {{"1", "mail"}, {"2", "sms"}, {"3", "mail"}, {"4", ""}, {"5", "sms"}};
        for (String[] job : jobs) {
            SERVER.client().hset("bull:notify:" + job[0], java.util.Map.of("name", job[1], "data", "{\"n\":" + job[0] + "}",
                    "opts", "{}", "timestamp", "1", "delay", "0", "priority", "0"));
            SERVER.client().lpush("bull:notify:wait", job[0]);
        }
        SERVER.client().set("bull:notify:id", "5");
        SERVER.client().hset("bull:notify:meta", "version", "bullmq:5.65.1");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "notify", "--lane-from", "name");
        assertTrue(plan.out().contains("one lane per value of the job's name"), plan.out());
        assertTrue(plan.out().contains("row state=pending in its lane's pending zset") && !plan.out().contains("in the pending zset"),
                plan.out());
        assertTrue(plan.out().contains("emq:{notify}:g:<lane>:pending") && plan.out().contains("emq:{notify}:ring")
                && !plan.out().contains("emq:{notify}:pending "), "the v2 keys a lanes migration writes: " + plan.out());
        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "notify", "--lane-from", "name",
                "--lane", LANE, "--yes");
        assertEquals(ExitCodes.OK, m.code(), m.out() + m.err());

        String mail = "emq:{notify}:g:" + io.emq.migrate.migrate.JobLanes.mint("mail") + ":pending";
        String sms = "emq:{notify}:g:" + io.emq.migrate.migrate.JobLanes.mint("sms") + ":pending";
        assertEquals(2, SERVER.client().zcard(mail));
        assertEquals(2, SERVER.client().zcard(sms));
        assertEquals(1, SERVER.client().zcard("emq:{notify}:g:" + LANE + ":pending"), "the job without a name goes to --lane");
        assertEquals(3, SERVER.client().llen("emq:{notify}:ring"));
        assertEquals("mail", SERVER.client().hget("{emq}:migration:notify", "lane:" + io.emq.migrate.migrate.JobLanes.mint("mail")));

        CliRun drain = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "notify", "--json");
        assertEquals(ExitCodes.OK, drain.code(), drain.out() + drain.err());
        JsonNode doc = Json.MAPPER.readTree(drain.out());
        assertTrue(doc.get("passed").asBoolean(), drain.out());
        assertEquals(5, doc.get("before").get("pending").asLong());
        assertEquals(0, doc.get("after").get("pending").asLong());
        assertEquals(ExitCodes.USAGE, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "notify", "--lane-from", "x").code());
    }
}
