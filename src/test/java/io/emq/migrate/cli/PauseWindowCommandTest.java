package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.migrate.LeastPrivilegeTest;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code plan} estimates each queue's v1 pause window; {@code migrate} prints and reports the window it journaled, and
 * where v2's order breaks v1's at the cutover.
 */
class PauseWindowCommandTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @Test
    void planEstimatesTheWindowAndMigratePrintsTheOneItJournaled() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails");
        assertTrue(Pattern.compile("(?m)^estimated v1 pause window: \\d+ ms \\(v1 serves through the copy").matcher(plan.out()).find(),
                plan.out());
        JsonNode doc = new ObjectMapper().readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails", "--json").out());
        assertTrue(doc.path("queues").path(0).path("estimatedPauseMs").isIntegralNumber(), doc.toString());

        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.OK, m.code(), m.all());
        Matcher printed = Pattern.compile("(?m)^bull:emails: v1 paused (\\d+) ms \\(the pause window").matcher(m.out());
        assertTrue(printed.find(), m.out());
        assertEquals(SERVER.client().hget("{emq}:migration:emails", "window-ms"), printed.group(1), "the journaled window");
        assertTrue(SERVER.client().hexists("{emq}:migration:emails", "v1_paused_at"), "and the instant of the pause");
        assertTrue(!m.out().contains("another order than v1's"), m.out());
    }

    /**
     * A source user without the change feed's commands (MIGRATION.md §10 names them) gets the window of a pass that reads
     * every job again; the plan says why, in its text and its JSON.
     */
    @Test
    void planEstimatesTheLongerWindowOfASourceUserWithoutTheChangeFeedAndSaysWhy() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "big", 1, 2000, 20);
        JsonNode fed = new ObjectMapper().readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "big", "--json").out())
                .path("queues").path(0);
        assertTrue(fed.path("changeFeed").asBoolean() && fed.path("withoutChangeFeed").isMissingNode(), fed.toString());
        assertEquals(3, fed.path("estimatedPauseMs").asLong(), "2,000 jobs at 1.5 µs");

        // the source as a user of its own; the target (the same server) as the admin: the user may read bull:* alone
        String asPlanner = LeastPrivilegeTest.userWithoutFeed(SERVER.client(), SERVER.uri());
        JsonNode unfed = new ObjectMapper().readTree(CliRun.of("plan", "--source", asPlanner, "--target", SERVER.uri(), "--queue", "big",
                "--json").out())
                .path("queues").path(0);
        assertFalse(unfed.path("changeFeed").asBoolean(), unfed.toString());
        assertTrue(unfed.path("withoutChangeFeed").asText().contains("NOPERM"), unfed.toString());
        assertEquals(28, unfed.path("estimatedPauseMs").asLong(), "2,000 jobs at 14 µs");
        CliRun text = CliRun.of("plan", "--source", asPlanner, "--target", SERVER.uri(), "--queue", "big");
        assertTrue(Pattern.compile("(?m)^estimated v1 pause window: 28 ms \\(v1 serves through the copy; it is paused from the last"
                + " re-sync pass until the v2 queue serves; without the change feed \\(.*NOPERM.*\\), that pass reads every job"
                + " again\\)$").matcher(text.out()).find(), text.out());
    }

    /**
     * A queue with an anomaly is read whole under the pause even with the change feed: the plan charges it as a pass
     * without the feed, and says why; locks, logs lists, job schedulers and flows the feed's refresh carries, so they
     * cost nothing more.
     */
    @Test
    void planEstimatesTheLongerWindowOfAQueueTheFeedCannotCarryAndSaysWhy() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "logged", 1, 2000, 20);
        SERVER.client().rpush("bull:logged:5:logs", "a line");
        SERVER.client().hset("bull:logged:repeat:tick", Map.of("every", "60000", "name", "tick"));
        SERVER.client().zadd("bull:logged:repeat", 1, "tick");
        SERVER.client().hset("bull:logged:p1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().sadd("bull:logged:p1:dependencies", "bull:logged:1");
        SERVER.client().zadd("bull:logged:waiting-children", 0, "p1");
        SERVER.client().hset("bull:logged:1", Map.of("parentKey", "bull:logged:p1", "parent", "{\"id\":\"p1\",\"queueKey\":\"bull:logged\"}"));
        JsonNode logged = new ObjectMapper().readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "logged", "--json").out())
                .path("queues").path(0);
        assertTrue(logged.path("pauseReadsEveryJob").isMissingNode(), logged.toString());
        assertEquals(3, logged.path("estimatedPauseMs").asLong(), "2,001 jobs at 1.5 µs: a logs list, a scheduler and a flow are carried");

        V1QueueGenerator.addWaiting(SERVER.client(), "odd", 1, 2000, 20);
        SERVER.client().lpush("bull:odd:wait", "0:1000"); // a BullMQ 4.x marker, which no refresh carries
        JsonNode odd = new ObjectMapper().readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "odd", "--json").out())
                .path("queues").path(0);
        assertTrue(odd.path("changeFeed").asBoolean(), odd.toString());
        assertEquals("it holds 1 BullMQ 4.x marker", odd.path("pauseReadsEveryJob").asText(), odd.toString());
        assertEquals(28, odd.path("estimatedPauseMs").asLong(), "2,000 jobs at 14 µs");
        CliRun text = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "odd");
        assertTrue(text.out().contains("estimated v1 pause window: 28 ms (v1 serves through the copy; it is paused from the last re-sync"
                + " pass until the v2 queue serves; it holds 1 BullMQ 4.x marker, which the change feed does not carry from one read to the next,"
                + " so that pass reads every job again)"), text.out());
    }

    /**
     * A run that re-synced without the change feed says so, and why, in its summary and its JSON; a run with the feed
     * says nothing of it.
     */
    @Test
    void migrateSaysWhyItReSyncedWithoutTheChangeFeed() throws Exception {
        SERVER.client().flushAll();
        for (String queue : List.of("unfed", "unfed2", "fed")) {
            V1QueueGenerator.addWaiting(SERVER.client(), queue, 1, 50, 20);
        }
        String asMigrator = LeastPrivilegeTest.userWithoutFeed(SERVER.client(), SERVER.uri());
        CliRun unfed = CliRun.of("migrate", "--source", asMigrator, "--target", SERVER.uri(), "--queue", "unfed", "--yes");
        assertEquals(ExitCodes.OK, unfed.code(), unfed.all());
        assertTrue(Pattern.compile("(?m)^bull:unfed: re-synced without the change feed \\(.*NOPERM.*\\): each pass read every job"
                + " again, so the pause window grows with the queue \\(MIGRATION.md §3\\)$").matcher(unfed.out()).find(), unfed.out());
        JsonNode unfedJson = new ObjectMapper().readTree(CliRun.of("migrate", "--source", asMigrator, "--target", SERVER.uri(),
                "--queue", "unfed2", "--yes", "--json").out()).path("queues").path(0);
        assertTrue(unfedJson.path("withoutChangeFeed").asText().contains("NOPERM"), unfedJson.toString());

        CliRun fed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "fed", "--yes");
        assertEquals(ExitCodes.OK, fed.code(), fed.all());
        assertFalse(fed.out().contains("without the change feed"), fed.out());
        JsonNode fedJson = new ObjectMapper().readTree(CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "fed", "--yes",
                "--json").out()).path("queues").path(0);
        assertTrue(fedJson.has("withoutChangeFeed") && fedJson.path("withoutChangeFeed").isNull(), fedJson.toString());
    }

    /** A run's change feed watches its first 64 queues: the plan of 65 estimates the last one's window without it. */
    @Test
    void planEstimatesTheQueuesPastTheFeedsFirst64WithoutIt() throws Exception {
        SERVER.client().flushAll();
        for (int q = 0; q < 65; q++) {
            V1QueueGenerator.addWaiting(SERVER.client(), String.format("t%02d", q), 1, 1, 20);
        }
        JsonNode queues = new ObjectMapper().readTree(CliRun.of("plan", "--source", SERVER.uri(), "--all", "--prefix", "bull", "--json")
                .out()).path("queues");
        List<String> fed = new ArrayList<>();
        queues.forEach(q -> {
            if (q.path("changeFeed").asBoolean()) {
                fed.add(q.path("name").asText());
            }
        });
        assertEquals(64, fed.size(), fed.toString());
        JsonNode last = queues.path(queues.size() - 1);
        assertEquals("t64", last.path("name").asText(), last.toString());
        assertEquals("a run's change feed watches its first 64 queues", last.path("withoutChangeFeed").asText(), last.toString());
    }

    /**
     * Each queue's estimate says whether a run's feed would watch that queue: on a cluster, a queue under a prefix without a
     * hash tag (its keys over many slots) is estimated without it, one under a hash-tagged prefix with it, whichever comes first.
     */
    @Test
    void planEstimatesEachQueueOfAClusterSourceWithOrWithoutTheFeedAsARunWouldWatchIt() throws Exception {
        V1QueueGenerator.addWaiting(CLUSTER.client(), "bull", "spread", 1, 10, 20);
        V1QueueGenerator.addWaiting(CLUSTER.client(), "{t}", "tagged", 1, 10, 20);
        CliRun run = CliRun.of("plan", "--source", "redis+cluster://" + CLUSTER.uri().substring("redis://".length()), "--all",
                "--prefix", "bull", "--prefix", "{t}", "--json");
        JsonNode queues = new ObjectMapper().readTree(run.out()).path("queues");
        assertEquals(2, queues.size(), run.all());
        assertEquals("spread", queues.path(0).path("name").asText(), queues.toString());
        assertEquals("the queue's keys are spread over the cluster's slots (its prefix has no hash tag)",
                queues.path(0).path("withoutChangeFeed").asText(), queues.path(0).toString());
        assertTrue(queues.path(1).path("changeFeed").asBoolean(), queues.path(1).toString());
    }

    @Test
    void migratePrintsWhereV2sOrderBreaksV1sAfterAJobWasPutAheadWhileV1Served() throws Exception {
        for (int id = 1; id <= 3; id++) {
            SERVER.client().hset("bull:q:" + id, java.util.Map.of("name", "t", "data", "{}", "opts", "{}", "timestamp", "1", "delay", "0"));
            SERVER.client().lpush("bull:q:wait", Integer.toString(id));
        }
        SERVER.client().set("bull:q:id", "3");
        CliRun copied = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--no-retire", "--yes");
        assertEquals(ExitCodes.OK, copied.code(), copied.all());
        SERVER.client().hset("bull:q:4", java.util.Map.of("name", "t", "data", "{}", "opts", "{\"lifo\":true}", "timestamp", "2", "delay", "0"));
        SERVER.client().rpush("bull:q:wait", "4"); // v1 serves it next
        SERVER.client().set("bull:q:id", "4");

        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        assertTrue(refused.out().contains("bull:q refused (out-of-order): v1 moved jobs of bull:q while it served through the copy,"
                + " and v2 would hold them in another order than v1's: pending breaks v1's order once (v1 job 1 comes after v1 job 4"
                + " in v1, before it in v2); stop what puts jobs ahead in v1"), refused.out());
        assertTrue(Pattern.compile("(?m)^bull:q +q +refused +1 +0 +0 +0 +4 *$").matcher(refused.out()).find(),
                "its catch-up moved job 4 into v2 before the refusal, beside the 3 of the copy: " + refused.out());
        assertEquals("4", SERVER.client().rpop("bull:q:wait"), "v1 serves on: job 4 next");
        SERVER.client().rpush("bull:q:wait", "4");

        CliRun retired = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes", "--accept-order-drift");
        assertEquals(ExitCodes.OK, retired.code(), retired.all());
        assertTrue(retired.out().contains("bull:q: v2 holds jobs v1 moved while it served in another order than v1's: pending breaks"
                + " v1's order once (v1 job 1 comes after v1 job 4 in v1, before it in v2)"), retired.out());
        JsonNode doc = new ObjectMapper().readTree(CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes", "--json").out());
        assertEquals("pending breaks v1's order once (v1 job 1 comes after v1 job 4 in v1, before it in v2)",
                doc.path("queues").path(0).path("orderDrift").asText(), doc.toString());
        CliRun info = CliRun.of("info", "--target", SERVER.uri(), "--queue", "q");
        assertTrue(info.out().contains("v2 holds jobs v1 moved while it served in another order than v1's: pending breaks v1's order"
                + " once (v1 job 1 comes after v1 job 4 in v1, before it in v2)"), info.out());
        assertTrue(info.out().contains("pending-order-breaks 1"), "V120's counts: " + info.out());
    }
}
