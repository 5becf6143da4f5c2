package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Queue {@code a} lists a job under a custom id holding a colon, {@code b:1}: its hash {@code bull:a:b:1} lies under
 * the keys of queue {@code a:b}, which lists it nowhere (v1-keyspace.md §3, §10.1). It is {@code a}'s job: {@code a:b}
 * is refused while {@code a} lists it, even with --accept-anomalies (an orphan there would be migrated a second time,
 * as a dead job, or deleted by {@code a:b}'s retirement before {@code a} copied it); once {@code a} is migrated, so is
 * {@code a:b}, every job once. A hash both list ({@code a} lists {@code b:7}, {@code a:b} lists {@code 7}) refuses
 * {@code a} instead: {@code a:b} moves it, after which {@code a} lists it with no hash.
 */
class NestedQueueJobsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void queuesAAndAB() {
        SERVER.client().flushAll();
        for (String q : List.of("a", "a:b")) {
            SERVER.client().hset("bull:" + q + ":meta", "version", "bullmq:5.65.1");
            SERVER.client().set("bull:" + q + ":id", "10");
        }
        job("a", "1");
        job("a", "b:1");
        SERVER.client().rpush("bull:a:wait", "b:1", "1");
        job("a:b", "7");
        SERVER.client().rpush("bull:a:b:wait", "7");
    }

    private static void job(String queue, String id) {
        SERVER.client().hset("bull:" + queue + ":" + id, Map.of("name", "n", "data", "{\"id\":\"" + id + "\"}", "opts", "{}",
                "timestamp", "1"));
    }

    @Test
    void aJobOfAnEnclosingQueueUnderANestedQueuesKeysIsRefusedThereUntilItsQueueIsMigrated() throws Exception {
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--rename", "a:b=ab", "--accept-anomalies");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("== queue bull:a -> v2 emq:{a}  ready"), plan.out());
        assertTrue(plan.out().contains("another-queues-job  bull:a:b:1  job b:1 of bull:a, which lists it; migrate bull:a first"),
                plan.out());
        String before = new KeyspaceDump(SERVER.client()).digest();

        CliRun alone = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a:b", "--rename", "a:b=ab", "--accept-anomalies",
                "--yes", "--json");
        assertEquals(3, alone.code(), alone.all());
        JsonNode refused = Json.MAPPER.readTree(alone.out()).path("queues").path(0);
        assertEquals("another-queues-job", refused.path("refusal").path("kind").asText(), refused.toString());
        SERVER.client().del("{emq}:version", "{emq}:migration:ab");
        SERVER.client().hdel("bull:a:b:meta", "migrating-token");
        assertEquals(List.of(), SERVER.client().keys("emq:{ab}:*").stream().toList(), "no v2 key");
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "v1 as it was: a's job b:1 kept");

        CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--rename", "a:b=ab", "--yes");
        CliRun second = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--rename", "a:b=ab", "--yes");
        assertEquals(0, second.code(), first.all() + second.all());
        assertEquals(List.of("1", "b:1"), v1Ids("a"), "a's two jobs, b:1 among them");
        assertEquals(List.of("7"), v1Ids("ab"), "a:b's one job, and not b:1 a second time");
    }

    @Test
    void aJobHashBothQueuesListRefusesTheEnclosingQueueUntilTheNestedOneMovedIt() {
        SERVER.client().lrem("bull:a:wait", 0, "b:1");
        SERVER.client().rename("bull:a:b:7", "bull:a:b:1");
        SERVER.client().lset("bull:a:b:wait", 0, "1"); // a lists b:1, a:b lists 1: one hash, bull:a:b:1
        SERVER.client().rpush("bull:a:wait", "b:1");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--rename", "a:b=ab", "--accept-anomalies");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("another-queues-job  bull:a:b:1  listed by bull:a:b too, as its job 1"), plan.out());
        assertTrue(plan.out().contains("== queue bull:a:b -> v2 emq:{ab}  ready"), plan.out());

        CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--rename", "a:b=ab", "--yes", "--accept-anomalies");
        assertEquals(3, first.code(), first.all());
        assertTrue(first.out().contains("bull:a refused (another-queues-job)"), first.all());
        CliRun second = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--rename", "a:b=ab", "--yes");
        assertEquals(0, second.code(), second.all());
        assertEquals(List.of("1"), v1Ids("a"), "a's own job; b:1 lost its hash to a:b's retirement");
        assertEquals(List.of("1"), v1Ids("ab"), "the hash both listed, once");
    }

    /** The v1 ids of the rows of a v2 queue, sorted (lookup --all). */
    private static List<String> v1Ids(String v2Queue) {
        CliRun lookup = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", v2Queue, "--all");
        return lookup.out().lines().filter(l -> l.contains("JOB")).map(l -> l.split("\\s+")[0]).sorted().toList();
    }
}
