package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A flow child whose parent has no branded id is refused with the reason that fits, v1 kept: its parent's queue left
 * out of the run, or a parent no queue under the run's prefixes holds (a link left dangling); and the run that names
 * both queues migrates them.
 */
class FlowRefusalsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final String CHILD = "bull:flows-child:71f54db9-86df-43b8-8a95-8ee54570e65d";

    @BeforeEach
    void recordedFlows() {
        SERVER.client().flushAll();
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
    }

    @Test
    void aChildWhoseParentsQueueIsLeftOutOfTheRunIsToldToNameItAndKeepsV1() throws Exception {
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("flow-parent")
                && plan.out().contains("migrate its queue bull:flows-parent in the same run"), plan.out());
        CliRun planBoth = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent");
        assertEquals(0, planBoth.code(), planBoth.all());

        Set<String> before = SERVER.client().keys("bull:flows-child:*");
        CliRun alone = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-child", "--json", "--yes");
        assertEquals(3, alone.code(), alone.all());
        JsonNode child = alone.queuesByV1().get("bull:flows-child");
        assertEquals("flow-parent", child.path("refusal").path("kind").asText(), child.toString());
        assertTrue(child.path("refusal").path("reason").asText().contains("migrate its queue bull:flows-parent in the same run"),
                child.toString());
        assertEquals(before, SERVER.client().keys("bull:flows-child:*"), "v1 kept");
        assertTrue(child.path("refusal").path("reason").asText().contains("the v2 queue emq:{flows-child} stays paused (its"
                + " consumers claim nothing) until a re-run finishes the migration or `emq-migrate abandon` gives it back"),
                child.toString());
        assertEquals("1", SERVER.client().hget("emq:{flows-child}:meta", "paused"));

        CliRun both = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "flows-child", "--yes");
        assertEquals(0, both.code(), both.all());
        CliRun together = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent", "--yes");
        assertEquals(0, together.code(), together.all());
    }

    @Test
    void aChildWhoseParentsQueueWasMigratedAndRetiredBeforeIsPlannedReadyAsMigrateTakesIt() {
        String parent = SERVER.client().hget(CHILD, "parentKey");
        SERVER.client().del(parent + ":processed"); // its finished children are not this test's
        CliRun parents = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-parent", "--yes");
        assertEquals(0, parents.code(), parents.all());
        assertEquals(false, SERVER.client().exists(parent), "retired: v1 holds the parent no more");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child");
        assertEquals(0, plan.code(), plan.all());
        CliRun children = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-child", "--yes");
        assertEquals(0, children.code(), children.all());
    }

    @Test
    void aChildWhoseParentNoQueueHoldsIsToldTheLinkDanglesNotToAddTheQueue() throws Exception {
        SERVER.client().hset(CHILD, Map.of("parentKey", "bull:nowhere:zzz", "parent", "{\"id\":\"zzz\",\"queueKey\":\"bull:nowhere\"}"));
        CliRun all = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent", "--json", "--yes");
        assertEquals(3, all.code(), all.all());
        JsonNode child = all.queuesByV1().get("bull:flows-child");
        assertEquals("flow-parent", child.path("refusal").path("kind").asText(), child.toString());
        String reason = child.path("refusal").path("reason").asText();
        assertTrue(reason.contains("bull:nowhere:zzz") && reason.contains("no v1 queue under the run's prefixes holds it")
                && !reason.contains("--all"), reason);
        assertEquals("bull:nowhere:zzz", SERVER.client().hget(CHILD, "parentKey"), "v1 kept");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("flow-parent") && plan.out().contains("no v1 queue under the run's prefixes holds it"),
                plan.out());
    }

    @Test
    void aChildWhoseParentWasDeletedFromItsQueueIsToldTheLinkDangles() throws Exception {
        SERVER.client().hset(CHILD, Map.of("parentKey", "bull:flows-parent:gone", "parent",
                "{\"id\":\"gone\",\"queueKey\":\"bull:flows-parent\"}"));
        CliRun both = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent", "--json",
                "--yes");
        assertEquals(3, both.code(), both.all());
        String reason = both.queuesByV1().get("bull:flows-child").path("refusal").path("reason").asText();
        assertTrue(reason.contains("v1 holds no job at bull:flows-parent:gone") && reason.contains("the link dangles"), reason);
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("flow-parent") && plan.out().contains("v1 holds no job at bull:flows-parent:gone"), plan.out());
    }

    @Test
    void aParentWhoseFinishedChildIsInAQueueLeftOutOrGoneIsForeseenByThePlan() throws Exception {
        SERVER.client().hset("bull:p:1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().zadd("bull:p:waiting-children", 1, "1");
        SERVER.client().hset("bull:p:1:processed", "bull:flows-child:" + CHILD.substring(CHILD.lastIndexOf(':') + 1), "\"done\"");
        CliRun leftOut = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "p");
        assertEquals(3, leftOut.code(), leftOut.all());
        assertTrue(leftOut.out().contains("flow-child") && leftOut.out().contains("migrate its queue bull:flows-child in the same run"),
                leftOut.out());
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "p", "--no-retire", "--json");
        assertEquals("flow-child", refused.queuesByV1().get("bull:p").path("refusal").path("kind").asText(), refused.all());
        CliRun abandoned = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "p", "--yes");
        assertEquals(0, abandoned.code(), abandoned.all());

        SERVER.client().hset("bull:p:1:processed", "bull:flows-child:removed-on-complete", "\"done\"");
        CliRun dangling = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "p", "--queue", "flows-child", "--queue", "flows-parent");
        assertEquals(3, dangling.code(), dangling.all());
        assertTrue(dangling.out().contains("flow-child") && dangling.out().contains("v1 holds no job at bull:flows-child:removed-on-complete"),
                dangling.out());
    }

    /**
     * A queue whose name nests under another's ({@code p:n} under {@code p}) owns its keys ({@code bull:p:n:5} is job 5 of
     * {@code p:n}, not job {@code n:5} of {@code p}, as {@code migrate} reads it): a parent in {@code p} with a finished
     * child there, and a job in {@code p} whose parent is there, need {@code p:n} in the run; the plan says so.
     */
    @Test
    void aFlowJobInAQueueNestedUnderTheQueuesNameIsForeseenAsAnotherQueues() throws Exception {
        completedChild("p:n", "5", "p", "1");
        waitingParent("p:n", "7");
        SERVER.client().sadd("bull:p:n:7:dependencies", "bull:p:2");
        waitingParent("p", "1");
        SERVER.client().hset("bull:p:1:processed", "bull:p:n:5", "\"done\"");
        SERVER.client().hset("bull:p:2", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1", "parentKey", "bull:p:n:7",
                "parent", "{\"id\":\"7\",\"queueKey\":\"bull:p:n\"}"));
        SERVER.client().rpush("bull:p:wait", "2");

        CliRun alone = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "p");
        assertEquals(3, alone.code(), alone.all());
        assertTrue(alone.out().contains("flow-child") && alone.out().contains("flow-parent")
                && alone.out().contains("its queue bull:p:n has no valid v2 name: migrate it in the same run with --rename p:n=NEW"),
                alone.out());
        Set<String> before = SERVER.client().keys("bull:p:*");
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "p", "--no-retire", "--json");
        assertEquals(3, refused.code(), refused.all());
        assertTrue(Set.of("flow-parent", "flow-child").contains(refused.queuesByV1().get("bull:p").path("refusal").path("kind").asText()),
                refused.all());
        assertEquals(before, SERVER.client().keys("bull:p:*"), "v1 kept");
        CliRun abandoned = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "p", "--yes");
        assertEquals(0, abandoned.code(), abandoned.all());

        // p:n is no v2 name: the run that names it refuses it, and p with it (p's links need p:n's ids) saying why
        CliRun unnamed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "p", "--queue", "p:n", "--no-retire", "--json");
        assertEquals(3, unnamed.code(), unnamed.all());
        assertEquals("invalid-queue-name", unnamed.queuesByV1().get("bull:p:n").path("refusal").path("kind").asText(), unnamed.all());
        assertTrue(unnamed.queuesByV1().get("bull:p").path("refusal").path("reason").asText()
                .contains("its queue bull:p:n has no valid v2 name: migrate it in the same run with --rename p:n=NEW"), unnamed.all());
        assertEquals(before, SERVER.client().keys("bull:p:*"), "v1 kept");
        assertEquals(0, CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "p", "--yes").code());
        CliRun leftOut = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "p", "--rename", "p:n=pn");
        assertEquals(3, leftOut.code(), leftOut.all());
        assertTrue(leftOut.out().contains("migrate its queue bull:p:n in the same run"), leftOut.out());

        CliRun both = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "p", "--queue", "p:n", "--rename", "p:n=pn");
        assertEquals(0, both.code(), both.all());
        CliRun together = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "p", "--queue", "p:n", "--rename", "p:n=pn", "--yes");
        assertEquals(0, together.code(), together.all());
        Set<String> processed = SERVER.client().keys("emq:{p}:job:*:processed");
        assertEquals(1, processed.size(), processed.toString());
        assertTrue(SERVER.client().hkeys(processed.iterator().next()).stream().allMatch(child -> child.startsWith("JOB")),
                "the parent's finished child, under its branded id from p:n's migration");
    }

    /**
     * A queue migrated (and retired) by an earlier run under a {@code --rename} holds its jobs' branded ids in the journal
     * of that name: a flow parent of another queue whose finished child was there resolves it through that journal, so
     * the later run needs no rename repeated; the child is not told to be a dangling link (its v1 hash was retired).
     */
    @Test
    void aFinishedChildInAQueueRetiredBeforeUnderARenameIsFoundThroughItsJournal() throws Exception {
        completedChild("a:b", "C2", "a", "P1");
        waitingParent("a", "P1");
        SERVER.client().hset("bull:a:P1:processed", "bull:a:b:C2", "\"done\"");
        CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a:b", "--rename", "a:b=ab", "--yes");
        assertEquals(0, first.code(), first.all());
        assertEquals(false, SERVER.client().exists("bull:a:b:C2"), "retired");

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "a");
        assertEquals(0, plan.code(), plan.all());
        CliRun all = CliRun.of("plan", "--source", SERVER.uri(), "--all");
        assertTrue(all.out().contains("== queue bull:a -> v2 emq:{a}  ready"), all.out());
        // --all names a:b too (retired, and no v2 name of its own): a's link still resolves through ab's journal
        CliRun later = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--yes", "--json");
        assertEquals("retired", later.queuesByV1().get("bull:a").path("outcome").asText(), later.all());
        Set<String> processed = SERVER.client().keys("emq:{a}:job:*:processed");
        assertEquals(1, processed.size(), processed.toString());
        CliRun child = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "ab", "--v1-id", "C2", "--json");
        assertEquals(0, child.code(), child.all());
        String childId = SERVER.client().hkeys(processed.iterator().next()).iterator().next();
        assertTrue(child.out().contains(childId), "the parent's finished child is ab's C2: " + childId + " " + child.out());
    }

    @Test
    void aChildWhoseParentInItsOwnQueueIsGoneIsForeseenByThePlanAsMigrateRefusesIt() throws Exception {
        SERVER.client().hset("bull:a:C1", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1", "parentKey", "bull:a:P1",
                "parent", "{\"id\":\"P1\",\"queueKey\":\"bull:a\"}"));
        SERVER.client().rpush("bull:a:wait", "C1");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "a");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("flow-parent") && plan.out().contains("v1 holds no job at bull:a:P1"), plan.out());
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a", "--no-retire", "--json");
        assertEquals("flow-parent", refused.queuesByV1().get("bull:a").path("refusal").path("kind").asText(), refused.all());
        waitingParent("a", "P1");
        SERVER.client().sadd("bull:a:P1:dependencies", "bull:a:C1");
        assertEquals(null, SERVER.client().hget("bull:a:meta", "paused"), "v1 serves: refused before it was paused");
        CliRun linked = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "a");
        assertEquals(0, linked.code(), "a parent held: " + linked.all());
        CliRun migrated = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a", "--yes");
        assertEquals(0, migrated.code(), migrated.all());
    }

    /** A completed flow child {@code id} of queue {@code queue} (listed completed) naming its parent {@code parentId} of {@code parentQueue}. */
    /**
     * A child without a failure option (BullMQ's default: a failed child leaves its parent waiting for ever) is migrated
     * with v2's parent_policy fp (the parent fails): the plan says so, in text and JSON, and says nothing of a child
     * whose option v2 keeps (failParentOnFailure, ignoreDependencyOnFailure); the migrated rows carry those policies.
     */
    @Test
    void aChildWithoutAFailureOptionIsPlannedToFailItsParentInV2() throws Exception {
        String told = "flow children: 1 carry no failure option (failParentOnFailure and the like): in v1 a child of them that"
                + " fails leaves its parent waiting for ever; in v2 (parent_policy fp) it fails the parent";
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child", "--queue", "flows-parent");
        assertTrue(plan.out().contains(told), plan.out());
        JsonNode link = Json.MAPPER.readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "flows-child", "--json").out())
                .get("queues").get(0).path("flows").path("links").get(0);
        assertEquals("wait", link.path("onFailure").asText(), link.toString());
        assertEquals("fp", link.path("v2ParentPolicy").asText(), link.toString());

        waitingParent("opted", "P");
        job("bull:opted:c1", "parentKey", "bull:opted:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:opted\",\"fpof\":true}");
        job("bull:opted:c2", "parentKey", "bull:opted:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:opted\",\"idof\":true}");
        SERVER.client().rpush("bull:opted:wait", "c1", "c2");
        SERVER.client().sadd("bull:opted:P:dependencies", "bull:opted:c1", "bull:opted:c2");
        SERVER.client().set("bull:opted:id", "3");
        CliRun opted = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "opted");
        assertEquals(0, opted.code(), opted.all());
        assertFalse(opted.out().contains("flow children:"), opted.out());
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "opted", "--yes").code());
        assertEquals(Set.of("fp", "id"), SERVER.client().keys("emq:{opted}:job:*").stream()
                .filter(row -> row.indexOf(':', "emq:{opted}:job:".length()) < 0) // rows, not their :dependencies
                .map(row -> SERVER.client().hget(row, "parent_policy")).filter(java.util.Objects::nonNull)
                .collect(java.util.stream.Collectors.toSet()));
    }

    private static void completedChild(String queue, String id, String parentQueue, String parentId) {
        job("bull:" + queue + ":" + id, "finishedOn", "2", "returnvalue", "\"done\"", "parentKey", "bull:" + parentQueue + ":" + parentId,
                "parent", "{\"id\":\"" + parentId + "\",\"queueKey\":\"bull:" + parentQueue + "\"}");
        SERVER.client().zadd("bull:" + queue + ":completed", 2, id);
    }

    /** A flow parent {@code id} of queue {@code queue}, waiting for its children. */
    private static void waitingParent(String queue, String id) {
        job("bull:" + queue + ":" + id);
        SERVER.client().zadd("bull:" + queue + ":waiting-children", 1, id);
    }

    private static void job(String key, String... fields) {
        Map<String, String> hash = new java.util.HashMap<>(Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1"));
        for (int i = 0; i < fields.length; i += 2) {
            hash.put(fields[i], fields[i + 1]);
        }
        SERVER.client().hset(key, hash);
    }

    /**
     * A parent completes after letting a failed child go (ignoreDependencyOnFailure): the failed child, a v2 row, still
     * names it, and a completed job gets no branded id unless it names a parent itself. plan and migrate refuse it saying
     * so and what to do (not "added since": no producer was live), in one queue and across two; a finished child without
     * its parentKey, named by its parent's :processed, likewise. Dropping the link in v1 lets the queue migrate.
     */
    @Test
    void aLinkToACompletedJobThatGetsNoIdIsRefusedSayingWhyAndWhatToDo() throws Exception {
        job("bull:a:P1", "finishedOn", "3", "returnvalue", "null");
        SERVER.client().zadd("bull:a:completed", 3, "P1");
        SERVER.client().hset("bull:a:P1:failed", "bull:a:C1", "boom");
        job("bull:a:C1", "parentKey", "bull:a:P1", "parent", "{\"id\":\"P1\",\"queueKey\":\"bull:a\"}", "failedReason", "boom",
                "finishedOn", "2", "opts", "{\"ignoreDependencyOnFailure\":true}");
        SERVER.client().zadd("bull:a:failed", 2, "C1");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "a");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("flow-parent") && plan.out().contains("v1 holds it completed"), plan.out());
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a", "--no-retire", "--json");
        String reason = refused.queuesByV1().get("bull:a").path("refusal").path("reason").asText();
        assertTrue(reason.contains("v1 holds it completed") && reason.contains("ignoreDependencyOnFailure") && !reason.contains("began before"),
                refused.all());

        job("bull:c:C2", "parentKey", "bull:p:P2", "parent", "{\"id\":\"P2\",\"queueKey\":\"bull:p\"}", "failedReason", "boom",
                "finishedOn", "2");
        SERVER.client().zadd("bull:c:failed", 2, "C2");
        job("bull:p:P2", "finishedOn", "3");
        SERVER.client().zadd("bull:p:completed", 3, "P2");
        job("bull:c:K", "finishedOn", "2", "returnvalue", "1"); // finished, its parentKey gone
        SERVER.client().zadd("bull:c:completed", 2, "K");
        waitingParent("p", "P3");
        SERVER.client().hset("bull:p:P3:processed", "bull:c:K", "1");
        CliRun across = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "c", "--queue", "p");
        assertEquals(3, across.code(), across.all());
        assertTrue(across.out().contains("the parent bull:p:P2 of job C2 will have no branded id: v1 holds it completed")
                && across.out().contains("child bull:c:K of flow parent P3 will have no branded id: v1 holds it completed"), across.out());
        CliRun acrossRefused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "c", "--queue", "p", "--no-retire", "--json");
        assertEquals(3, acrossRefused.code(), acrossRefused.all());
        assertTrue(acrossRefused.all().contains("v1 holds it completed") && !acrossRefused.all().contains("began before"), acrossRefused.all());

        for (String queue : List.of("a", "c", "p")) {
            CliRun abandoned = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", queue, "--yes");
            assertTrue(abandoned.code() == 0 || abandoned.all().contains("was never migrated"), abandoned.all());
        }
        SERVER.client().hdel("bull:a:C1", "parentKey", "parent");
        SERVER.client().hdel("bull:c:C2", "parentKey", "parent");
        SERVER.client().hset("bull:c:K", "parentKey", "bull:p:P3");
        CliRun fixed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a", "--queue", "c", "--queue", "p", "--yes");
        assertEquals(0, fixed.code(), fixed.all());
    }

    /**
     * Two v1 servers with queues of the same names and job ids, migrated into one target: a flow link of the second's is
     * never resolved through the first's journal (its ids are another server's jobs); a wrong-typed {@code completed} of a
     * linked queue is no error.
     */
    @Test
    void aLinkedQueueMigratedFromAnotherServerIsNotTakenForThisOnes() throws Exception {
        try (LocalServer other = LocalServer.start(); LocalServer target = LocalServer.start();
             UnifiedJedis otherClient = io.emq.migrate.wire.Endpoint.parse(other.uri()).open()) {
            for (UnifiedJedis v1 : List.of(SERVER.client(), otherClient)) {
                v1.hset("bull:c:C2", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1", "finishedOn", "2",
                        "returnvalue", "1", "parentKey", "bull:p:P1", "parent", "{\"id\":\"P1\",\"queueKey\":\"bull:p\"}"));
                v1.zadd("bull:c:completed", 2, "C2");
                v1.hset("bull:c:meta", "opts.maxLenEvents", "10000");
            }
            CliRun first = CliRun.of("migrate", "--source", other.uri(), "--target", target.uri(), "--queue", "c", "--yes");
            assertEquals(0, first.code(), first.all());
            waitingParent("p", "P1");
            SERVER.client().hset("bull:p:P1:processed", "bull:c:C2", "1");
            CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--target", target.uri(), "--queue", "p");
            assertEquals(3, plan.code(), plan.all());
            assertTrue(plan.out().contains("migrate its queue bull:c in the same run"), plan.out());
            CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--target", target.uri(), "--queue", "p", "--no-retire", "--json");
            assertEquals(3, refused.code(), refused.all());
            assertTrue(refused.queuesByV1().get("bull:p").path("refusal").path("reason").asText()
                    .contains("migrate its queue bull:c in the same run"), refused.all());
            SERVER.client().set("bull:c:completed", "damaged"); // a wrong type: an anomaly of c, no error of p's plan
            CliRun damaged = CliRun.of("plan", "--source", SERVER.uri(), "--target", target.uri(), "--queue", "p");
            assertEquals(3, damaged.code(), damaged.all());
            assertTrue(damaged.out().contains("migrate its queue bull:c in the same run"), damaged.out());
        }
    }
}
