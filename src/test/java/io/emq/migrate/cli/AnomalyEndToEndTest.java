package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.payload.Envelope;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureCodec;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * v1 shapes the keyspace spec names (v1-keyspace.md §1–§5) that had no test of their own, each written key by key with
 * Jedis, then planned and migrated through the command line: what the plan says of it, what migrate does (the v2 row, its
 * state, order and payload, or a refusal with v1 byte for byte as it was), and that every job is there exactly once.
 */
class AnomalyEndToEndTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final double TWO_32 = 4294967296d;

    @BeforeEach
    void clean() {
        SERVER.client().flushAll();
    }

    /** A job hash as BullMQ 5.65.1's addStandardJob writes it, the given fields added or replaced. */
    private static void job(String queue, String id, String... fields) {
        V1QueueGenerator.job(SERVER.client(), queue, id, fields);
    }

    /** A job hash holding exactly these fields. */
    private static void hashOnly(String queue, String id, String... fields) {
        Map<String, String> hash = new LinkedHashMap<>();
        for (int i = 0; i < fields.length; i += 2) {
            hash.put(fields[i], fields[i + 1]);
        }
        SERVER.client().hset("bull:" + queue + ":" + id, hash);
    }

    private static void meta(String queue) {
        SERVER.client().hset("bull:" + queue + ":meta", Map.of("opts.maxLenEvents", "10000", "version", "bullmq:5.65.1"));
    }

    /** v1 id to its {@code lookup --json} entry ({@code v2}, {@code v2Row}), for every id the queue's journal maps. */
    private static Map<String, JsonNode> lookup(String v2Queue) throws Exception {
        CliRun lookup = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", v2Queue, "--all", "--json");
        assertEquals(0, lookup.code(), lookup.all());
        Map<String, JsonNode> byV1 = new HashMap<>();
        Json.MAPPER.readTree(lookup.out()).forEach(e -> {
            assertNull(byV1.put(e.path("v1").asText(), e), "one mapping per v1 id: " + lookup.out());
        });
        return byV1;
    }

    /** The v1 ids of the v2 queue's pending jobs, in the order a v2 consumer claims them. */
    private static List<String> pendingAsV1(String v2Queue) throws Exception {
        Map<String, String> v1ByV2 = new HashMap<>();
        lookup(v2Queue).forEach((v1, e) -> v1ByV2.put(e.path("v2").asText(), v1));
        List<String> out = new ArrayList<>();
        for (String id : SERVER.client().zrange("emq:{" + v2Queue + "}:pending", 0, -1)) {
            out.add(v1ByV2.get(id));
        }
        return out;
    }

    private static Map<String, String> row(String v2Queue, String v2Id) {
        return SERVER.client().hgetAll("emq:{" + v2Queue + "}:job:" + v2Id);
    }

    private static String v2Id(Map<String, JsonNode> lookup, String v1) {
        JsonNode e = lookup.get(v1);
        assertTrue(e != null, "v1 job " + v1 + " has a v2 id: " + lookup.keySet());
        return e.path("v2").asText();
    }

    /** Rows of the v2 queue: every {@code job:<id>} hash, no sub-key. */
    private static Set<String> rows(String v2Queue) {
        Set<String> out = new java.util.TreeSet<>();
        for (String k : SERVER.client().keys("emq:{" + v2Queue + "}:job:*")) {
            if (k.length() == ("emq:{" + v2Queue + "}:job:").length() + 14) {
                out.add(k);
            }
        }
        return out;
    }

    /** A digest of the keys the predicate takes: each key's bytes, type, value and whether it expires. */
    private static Map<String, String> dumpOf(Predicate<String> keys) {
        Map<String, String> out = new TreeMap<>();
        for (FixtureKey k : new KeyspaceDump(SERVER.client()).read()) {
            String name = k.key().display();
            if (keys.test(name)) {
                out.put(name, FixtureCodec.write(new FixtureKey(k.key(), k.type(), k.pttl() > 0 ? 1 : -1, k.value())).toString());
            }
        }
        return out;
    }

    /** Takes off what a refused migrate is documented to leave: the wire fence, the journal, meta's migrating-token. */
    private static void forgetRefusal(String queue) {
        SERVER.client().del("{emq}:version", "{emq}:migration:" + queue);
        SERVER.client().hdel("bull:" + queue + ":meta", "migrating-token");
    }

    private static String droppedLine(CliRun plan) {
        return plan.out().lines().filter(l -> l.contains("dropped with the source:")).findFirst()
                .orElseThrow(() -> new AssertionError(plan.all()));
    }

    /** Audit row 15: "always" fields (name, opts, timestamp) missing from the hash; data is all a job needs. */
    @Test
    void jobHashesWithoutNameOptsOrTimestampMigrateWithTheirDataByteForByte() throws Exception {
        meta("bare");
        String data = "{\"k\":\"v\",\"u\":\"\u00e9\u2603\",\"n\":[1,2.5,null]}";
        hashOnly("bare", "only-data", "data", data);
        job("bare", "no-name", "data", data);
        SERVER.client().hdel("bull:bare:no-name", "name");
        job("bare", "no-opts", "data", "plain text, not JSON");
        SERVER.client().hdel("bull:bare:no-opts", "opts");
        job("bare", "no-timestamp", "data", data);
        SERVER.client().hdel("bull:bare:no-timestamp", "timestamp");
        SERVER.client().lpush("bull:bare:wait", "only-data", "no-name", "no-opts", "no-timestamp"); // only-data is served first

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "bare");
        assertEquals(0, plan.code(), plan.all());
        assertFalse(plan.out().contains("hash-without-data") || plan.out().contains("orphan-hash") || plan.out().contains("BLOCKED"),
                plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "bare", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(List.of("only-data", "no-name", "no-opts", "no-timestamp"), pendingAsV1("bare"), "each once, in v1 serve order");
        assertEquals(4, rows("bare").size());
        Map<String, JsonNode> ids = lookup("bare");
        Map<String, JsonNode> envelopes = new HashMap<>();
        for (String v1 : List.of("only-data", "no-name", "no-opts", "no-timestamp")) {
            Map<String, String> r = row("bare", v2Id(ids, v1));
            assertEquals("pending", r.get("state"), v1 + ": " + r);
            byte[] payload = r.get("payload").getBytes(StandardCharsets.UTF_8);
            byte[] expected = (v1.equals("no-opts") ? "plain text, not JSON" : data).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(expected, Envelope.recoverData(payload).orElseThrow(), v1 + "'s data, byte for byte: " + r.get("payload"));
            envelopes.put(v1, Json.MAPPER.readTree(payload));
        }
        assertEquals("", envelopes.get("only-data").path("name").asText());
        assertTrue(envelopes.get("only-data").path("v1").path("opts").isNull(), envelopes.get("only-data").toString());
        assertEquals("", envelopes.get("only-data").path("v1").path("timestamp").asText());
        assertEquals("only-data", envelopes.get("only-data").path("v1").path("id").asText());
        assertEquals("", envelopes.get("no-name").path("name").asText());
        assertEquals(3, envelopes.get("no-name").path("v1").path("opts").path("attempts").asInt(), "opts kept beside a missing name");
        assertEquals("send", envelopes.get("no-opts").path("name").asText());
        assertTrue(envelopes.get("no-opts").path("v1").path("opts").isNull(), envelopes.get("no-opts").toString());
        assertEquals("string", envelopes.get("no-opts").path("encoding").asText());
        assertEquals("", envelopes.get("no-timestamp").path("v1").path("timestamp").asText());
        assertEquals(Set.of("bull:bare:meta", "bull:bare:id"), SERVER.client().keys("bull:bare:*"), "retired: tombstone only");
    }

    /**
     * Audit row 28: a job pushed back into prioritized (rate limit, changePriority with lifo) scores exactly
     * priority·2^32 (spec §4.1), ahead of the same priority's queued jobs; with priority 2^21 that is 2^53 itself.
     * Valid data: no anomaly, and v2 serves wait first, then the zset's own order.
     */
    @Test
    void aPrioritizedJobPushedBackToExactlyPriorityTimes2To32KeepsItsPlaceInV2() throws Exception {
        meta("prio");
        long top = 1L << 21;
        String[][] jobs = { // id, priority, pc (-1: pushed back, score priority * 2^32 exactly)
            {"a", "5", "1"}, {"b", "5", "-1"}, {"c", "3", "2"}, {"d", "5", "3"}, {"e", "1", "-1"}, {"f", "1", "4"},
            {"top-q", Long.toString(top), "5"}, {"top-back", Long.toString(top), "-1"}};
        for (String[] j : jobs) {
            job("prio", j[0], "priority", j[1]);
            long pc = Long.parseLong(j[2]);
            SERVER.client().zadd("bull:prio:prioritized", Double.parseDouble(j[1]) * TWO_32 + (pc < 0 ? 0 : pc), j[0]);
        }
        SERVER.client().set("bull:prio:pc", "5");
        job("prio", "w");
        SERVER.client().lpush("bull:prio:wait", "w");
        assertEquals(5 * TWO_32, SERVER.client().zscore("bull:prio:prioritized", "b"));
        assertEquals(Math.pow(2, 53), SERVER.client().zscore("bull:prio:prioritized", "top-back"));
        List<String> v1Order = new ArrayList<>(List.of("w")); // wait is drained before prioritized
        v1Order.addAll(SERVER.client().zrange("bull:prio:prioritized", 0, -1)); // then ZPOPMIN's order
        assertEquals(List.of("w", "e", "f", "c", "b", "a", "d", "top-back", "top-q"), v1Order, "the order BullMQ serves");

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "prio");
        assertEquals(0, plan.code(), plan.all());
        assertFalse(plan.out().contains("bad-prioritized-score"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "prio", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(v1Order, pendingAsV1("prio"), "v2 claims them in v1's order");
        assertEquals(9, rows("prio").size(), "each job once");
        assertFalse(SERVER.client().exists("bull:prio:prioritized"));
    }

    /**
     * Audit row 33: BullMQ 6.0's pause is the meta flag alone, the jobs stay in wait and there is no paused list (spec §5).
     * The v2 queue starts paused (no claim gets a job), every job migrated once, in wait's serve order (tail first).
     */
    @Test
    void aBullMq6PauseWithJobsLeftInWaitStartsTheV2QueuePausedWithEveryJobOnceInOrder() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "six", 1, 6, 30);
        job("six", "p1", "priority", "2");
        SERVER.client().zadd("bull:six:prioritized", 2 * TWO_32 + 1, "p1");
        SERVER.client().hset("bull:six:meta", "paused", "1");
        assertFalse(SERVER.client().exists("bull:six:paused"));

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "six");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().contains("== queue bull:six -> v2 emq:{six}  [paused]  ready"), plan.out());
        assertFalse(plan.out().contains("paused-without-flag"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "six", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals("1", SERVER.client().hget("emq:{six}:meta", "paused"), "the v2 queue starts paused, as v1 was");
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "p1"), pendingAsV1("six"), "each once, wait from its tail, then prioritized");
        assertEquals(7, rows("six").size());
        assertEquals(List.of(), Jobs.on(Wire.open(SERVER.client()), "six").claimBatch(Duration.ofSeconds(30), 10), "paused: nothing claimed");
        assertFalse(SERVER.client().exists("bull:six:wait"));
    }

    /**
     * Beside row 33: a keyspace paused under BullMQ 5.x (jobs in the paused list) and then served by 6.0 while still
     * paused (its adds stay in wait): both lists' jobs migrate, each once, into a paused v2 queue.
     */
    @Test
    void aLegacyPausedListBesideA6PausedWaitMigratesEachJobOnceIntoAPausedQueue() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "mixed", 1, 3, 20);
        SERVER.client().rename("bull:mixed:wait", "bull:mixed:paused"); // 5.x pause
        V1QueueGenerator.addWaiting(SERVER.client(), "mixed", 4, 6, 20); // 6.0 adds while paused
        SERVER.client().hset("bull:mixed:meta", "paused", "1");

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "mixed");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().contains("[paused]  ready"), plan.out());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "mixed", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals("1", SERVER.client().hget("emq:{mixed}:meta", "paused"));
        List<String> pending = pendingAsV1("mixed");
        assertEquals(6, pending.size(), pending.toString());
        assertEquals(Set.of("1", "2", "3", "4", "5", "6"), Set.copyOf(pending), "each once");
        assertEquals(6, rows("mixed").size());
        assertFalse(SERVER.client().exists("bull:mixed:paused") || SERVER.client().exists("bull:mixed:wait"));
    }

    /**
     * Audit row 36: {@code job-scheduler} and {@code sc}, names v1's keys module defines but no script writes (spec §1.1),
     * are keys no v1 reader uses: reported as unknown keys dropped with the source, v1 untouched by the plan, nothing
     * registered in v2 from them, the queue's jobs migrated.
     */
    @Test
    void jobSchedulerAndScKeysAreReportedAsUnknownAndDroppedWithTheSource() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "js", 1, 3, 20);
        SERVER.client().zadd("bull:js:job-scheduler", System.currentTimeMillis() + 60_000, "daily");
        SERVER.client().set("bull:js:sc", "1");
        String before = new KeyspaceDump(SERVER.client()).digest();

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "js");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("unknown-key") && l.contains("bull:js:job-scheduler")
                && l.contains("drop-with-source")), plan.out());
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("unknown-key") && l.contains("bull:js:sc ")
                && l.contains("drop-with-source")), plan.out());
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "the plan writes nothing");

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "js", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(List.of("1", "2", "3"), pendingAsV1("js"));
        assertFalse(SERVER.client().exists("emq:{js}:repeat"), "no scheduler registered from them");
        assertFalse(SERVER.client().exists("bull:js:job-scheduler") || SERVER.client().exists("bull:js:sc"), "dropped with the source");
    }

    /**
     * Audit row 6: the v1 stalled-check wrapper briefly leaves a STRING at {@code failed} (spec §1.3). The queue's failed
     * job is then listed nowhere: plan and migrate refuse the queue, naming both, and v1 stays byte for byte as it was;
     * {@code --accept-anomalies} migrates the failed job as dead, {@code last_error} saying why, the waiting ones pending.
     */
    @Test
    void aFailedThatIsAStringIsRefusedNamingItAndV1StaysAsItWas() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "fs", 1, 3, 20);
        long finished = System.currentTimeMillis() - 60_000;
        job("fs", "f1", "failedReason", "boom", "finishedOn", Long.toString(finished), "atm", "1", "ats", "1");
        SERVER.client().set("bull:fs:failed", "1");
        String before = new KeyspaceDump(SERVER.client()).digest();

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "fs");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("BLOCKED"), plan.out());
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("wrong-type") && l.contains("bull:fs:failed")
                && l.contains("failed is a string, expected a zset")), plan.out());
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("orphan-hash") && l.contains("bull:fs:f1 ")), plan.out());
        assertTrue(droppedLine(plan).endsWith("dropped with the source: failed (string, wrong type) 1"), droppedLine(plan));
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("orphan-hash") && l.endsWith(" refuse")), plan.out());
        CliRun planAccepting = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "fs", "--accept-anomalies");
        assertEquals(0, planAccepting.code(), planAccepting.all());
        assertTrue(planAccepting.out().lines().anyMatch(l -> l.startsWith("orphan-hash") && l.endsWith(" accepted: migrate-as-dead")),
                "the treatment the option gives, not the refusal it lifts: " + planAccepting.out());
        assertTrue(planAccepting.out().lines().anyMatch(l -> l.startsWith("wrong-type") && l.endsWith(" drop-with-source")),
                planAccepting.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "fs", "--yes", "--json");
        assertEquals(3, migrate.code(), migrate.all());
        JsonNode refused = migrate.queuesByV1().get("bull:fs");
        assertEquals("anomalies", refused.path("refusal").path("kind").asText(), refused.toString());
        assertTrue(refused.path("refusal").path("reason").asText().contains("{orphan-hash=1} (--accept-anomalies lifts it)"),
                refused.toString());
        assertTrue(SERVER.client().keys("emq:{fs}:*").isEmpty(), "no v2 key");
        forgetRefusal("fs");
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "v1 as it was");

        CliRun accepted = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "fs", "--yes", "--accept-anomalies");
        assertEquals(0, accepted.code(), accepted.all());
        assertEquals(List.of("1", "2", "3"), pendingAsV1("fs"));
        Map<String, JsonNode> ids = lookup("fs");
        assertEquals(4, ids.size(), ids.toString());
        String dead = v2Id(ids, "f1");
        assertEquals(List.of(dead), SERVER.client().zrange("emq:{fs}:dead", 0, -1));
        assertEquals("dead", row("fs", dead).get("state"));
        assertEquals("orphan: the v1 job hash was listed in no structure; its failedReason: boom", row("fs", dead).get("last_error"),
                "says why (MIGRATION.md), and keeps the failure v1 recorded");
        assertFalse(SERVER.client().exists("bull:fs:failed"), "the string dropped with the source");
        assertEquals(4, rows("fs").size(), "each job once");
    }

    /**
     * Audit row 31: a manual rate limit ({@code Queue.rateLimit}) sets {@code limiter} to 2^53-1 with a PX that may be as
     * large. It is dropped with the source as the plan says, not carried (v2 workers are not held back), no error.
     */
    @Test
    void aLimiterWithATtlNear2To53IsDroppedWithTheSourceWithoutAnError() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "rl", 1, 3, 20);
        long max = (1L << 53) - 1;
        SERVER.client().set("bull:rl:limiter", Long.toString(max), redis.clients.jedis.params.SetParams.setParams().px(max));
        assertTrue(SERVER.client().pttl("bull:rl:limiter") > (1L << 52), "the TTL is that large");
        SERVER.client().zadd("bull:rl:marker", 1.5, "1");

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "rl");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(droppedLine(plan).contains("limiter 1"), droppedLine(plan));
        assertFalse(plan.out().contains("unknown-key") || plan.out().contains("wrong-type"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "rl", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertFalse(migrate.err().contains("Exception") || migrate.err().contains("\tat ") || migrate.err().contains("error"),
                "progress only on standard error: " + migrate.err());
        assertEquals(List.of("1", "2", "3"), pendingAsV1("rl"));
        assertFalse(SERVER.client().exists("emq:{rl}:limiter"), "not carried");
        assertFalse(SERVER.client().exists("bull:rl:limiter"), "dropped with the source");
        assertEquals(3, Jobs.on(Wire.open(SERVER.client()), "rl").claimBatch(Duration.ofSeconds(30), 10).size(),
                "v2 workers are not rate limited by it");
    }

    /**
     * Audit row 39: a fail-parent-on-failure child that failed while its parent was still running is in the parent's
     * {@code :unsuccessful} zset (BullMQ 5.42 and later), an ignore-on-failure child in its {@code :failed} hash, a completed one in
     * {@code :processed}; the parent then waits for its last child. v2 gets the parent awaiting its one child, v1
     * {@code :unsuccessful} as v2 {@code :failed} ("failed at ms"), v1 {@code :failed} as v2 {@code :unsuccessful}, each
     * keyed by the child's branded id; every child once, in its state, naming the parent. (The parent's {@code defa},
     * the deferred failure BullMQ 5.49.2 and later records, has no v2 field; it is not asserted here.)
     */
    @Test
    void aFailParentChildInItsParentsUnsuccessfulBecomesTheV2ParentsFailedRecord() throws Exception {
        meta("fl");
        long now = System.currentTimeMillis();
        long failedAt = now - 5_000;
        job("fl", "P", "name", "parent");
        SERVER.client().zadd("bull:fl:waiting-children", now - 1_000, "P");
        SERVER.client().sadd("bull:fl:P:dependencies", "bull:fl:c1");
        SERVER.client().zadd("bull:fl:P:unsuccessful", failedAt, "bull:fl:c2");
        SERVER.client().hset("bull:fl:P:failed", "bull:fl:c3", "ignored");
        SERVER.client().hset("bull:fl:P:processed", "bull:fl:c4", "\"ok\"");
        String fpof = "{\"id\":\"P\",\"queueKey\":\"bull:fl\",\"fpof\":true}";
        job("fl", "c1", "parentKey", "bull:fl:P", "parent", fpof);
        SERVER.client().lpush("bull:fl:wait", "c1");
        job("fl", "c2", "parentKey", "bull:fl:P", "parent", fpof, "failedReason", "boom", "finishedOn", Long.toString(failedAt));
        job("fl", "c3", "parentKey", "bull:fl:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:fl\",\"idof\":true}",
                "failedReason", "ignored", "finishedOn", Long.toString(failedAt + 1));
        SERVER.client().zadd("bull:fl:failed", failedAt, "c2");
        SERVER.client().zadd("bull:fl:failed", failedAt + 1, "c3");
        job("fl", "c4", "parentKey", "bull:fl:P", "parent", fpof, "returnvalue", "\"ok\"", "finishedOn", Long.toString(failedAt));
        SERVER.client().zadd("bull:fl:completed", failedAt, "c4");

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "fl");
        assertEquals(0, plan.code(), plan.all());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "fl", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        Map<String, JsonNode> ids = lookup("fl");
        String p = v2Id(ids, "P");
        String c1 = v2Id(ids, "c1");
        String c2 = v2Id(ids, "c2");
        String c3 = v2Id(ids, "c3");
        String c4 = v2Id(ids, "c4");
        assertEquals(5, Set.of(p, c1, c2, c3, c4).size());
        assertEquals(Set.of("emq:{fl}:job:" + p, "emq:{fl}:job:" + c1, "emq:{fl}:job:" + c2, "emq:{fl}:job:" + c3), rows("fl"),
                "a row for each job but the completed child");
        assertEquals("awaiting_children", row("fl", p).get("state"));
        assertEquals("1", SERVER.client().get("emq:{fl}:job:" + p + ":dependencies"), "c1 still outstanding");
        assertEquals(Map.of(c2, "failed at " + failedAt), SERVER.client().hgetAll("emq:{fl}:job:" + p + ":failed"));
        assertEquals(Map.of(c3, "ignored"), SERVER.client().hgetAll("emq:{fl}:job:" + p + ":unsuccessful"));
        assertEquals(Map.of(c4, "\"ok\""), SERVER.client().hgetAll("emq:{fl}:job:" + p + ":processed"));
        assertEquals(List.of(c1), SERVER.client().zrange("emq:{fl}:pending", 0, -1));
        assertEquals(List.of(c2, c3), SERVER.client().zrange("emq:{fl}:dead", 0, -1), "failed in finishedOn order");
        Map<String, String> child = row("fl", c1);
        assertEquals(p, child.get("parent"), child.toString());
        assertEquals("fp", child.get("parent_policy"), child.toString());
        assertEquals("id", row("fl", c3).get("parent_policy"));
        assertEquals("boom", row("fl", c2).get("last_error"));
        assertTrue(SERVER.client().keys("bull:fl:P*").isEmpty(), "the parent's v1 keys retired with the source");
    }

    /**
     * Audit row 44: queue names with glob characters ({@code a*}, {@code x[y]}) beside the queues their pattern would
     * match ({@code ab}, {@code xy}): planning and migrating {@code a*}, then {@code x[y]}, takes their own jobs only and
     * leaves every key of the other queues byte for byte as it was.
     */
    /**
     * A flow parent v1 released already (its last child completed: BullMQ moved it to wait) still holds its children's
     * results, which it reads when it runs: v2 holds them under its branded id, each keyed by the child's.
     */
    @Test
    void aFlowParentV1ReleasedKeepsItsChildrensResultsInV2() throws Exception {
        meta("rel");
        job("rel", "P", "name", "parent");
        SERVER.client().rpush("bull:rel:wait", "P");
        SERVER.client().hset("bull:rel:P:processed", "bull:rel:c", "{\"sum\":42}");
        job("rel", "c", "parentKey", "bull:rel:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:rel\"}", "finishedOn", "2",
                "returnvalue", "{\"sum\":42}");
        SERVER.client().zadd("bull:rel:completed", 2, "c");
        SERVER.client().set("bull:rel:id", "2");
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "rel", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        Map<String, JsonNode> ids = lookup("rel");
        assertEquals(Map.of(v2Id(ids, "c"), "{\"sum\":42}"), SERVER.client().hgetAll("emq:{rel}:job:" + v2Id(ids, "P") + ":processed"),
                "the child's result, keyed by its branded id");
        assertFalse(SERVER.client().exists("emq:{rel}:job:" + v2Id(ids, "P") + ":dependencies"), "v1 held no children left");
        assertEquals("pending", row("rel", v2Id(ids, "P")).get("state"));
        assertFalse(SERVER.client().exists("bull:rel:P:processed"), "v1 retired");
    }

    /**
     * An every scheduler with a limit or an end date (BullMQ stores them in its record) has no v2 form: a v2 registration
     * fires every period for good. Plan and migrate refuse it, v1 kept; dropped on request, its iteration job migrates as an
     * ordinary job and only the unbounded scheduler is registered.
     */
    @Test
    void anEverySchedulerWithALimitOrAnEndDateIsRefusedUntilDroppedAndNeverRegistered() throws Exception {
        meta("rep");
        job("rep", "1");
        SERVER.client().rpush("bull:rep:wait", "1");
        SERVER.client().set("bull:rep:id", "1");
        long next = System.currentTimeMillis() + 60_000;
        for (String sid : List.of("thrice", "until", "plain")) {
            SERVER.client().zadd("bull:rep:repeat", next, sid);
            SERVER.client().hset("bull:rep:repeat:" + sid, Map.of("name", "tick", "every", "60000", "ic", "1"));
        }
        SERVER.client().hset("bull:rep:repeat:thrice", "limit", "3");
        SERVER.client().hset("bull:rep:repeat:until", "endDate", Long.toString(next + 3_600_000));
        String iteration = "repeat:thrice:" + next;
        job("rep", iteration, "delay", "60000");
        SERVER.client().zadd("bull:rep:delayed", (double) next * 4096, iteration);
        Map<String, String> v1 = dumpOf(k -> k.startsWith("bull:rep:"));

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "rep");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().contains("bounded-scheduler") && plan.out().contains("--drop-bounded-schedulers")
                && plan.out().contains("2 every scheduler(s) with a limit or an end date have no v2 form"), plan.out());
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "rep", "--yes", "--json");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        assertEquals("bounded-scheduler", refused.queuesByV1().get("bull:rep").path("refusal").path("kind").asText(), refused.out());
        forgetRefusal("rep");
        assertEquals(v1, dumpOf(k -> k.startsWith("bull:rep:")), "v1 as it was");

        CliRun dropped = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "rep", "--drop-bounded-schedulers", "--yes");
        assertEquals(ExitCodes.OK, dropped.code(), dropped.all());
        assertEquals(List.of(io.emq.migrate.v1.plan.SchedulerNames.v2Name(io.emq.migrate.v1.Bytes.utf8("plain"))),
                SERVER.client().zrange("emq:{rep}:repeat", 0, -1), "only the unbounded scheduler is registered");
        assertEquals(1, SERVER.client().zcard("emq:{rep}:schedule"), "the iteration v1 created already, as an ordinary job");
    }

    /**
     * A flow parent whose fail-parent child failed is moved to wait holding defa: v1 fails it at its next fetch without
     * running it. Migrated as listed, v2 would run it: refused (an anomaly), v1 kept, until --accept-anomalies.
     */
    @Test
    void aParentV1FailsAtItsNextFetchIsRefusedUntilAccepted() throws Exception {
        meta("dfa");
        job("dfa", "P", "name", "parent", "defa", "child bull:dfa:c failed");
        SERVER.client().rpush("bull:dfa:wait", "P");
        SERVER.client().zadd("bull:dfa:P:unsuccessful", 2, "bull:dfa:c");
        job("dfa", "c", "parentKey", "bull:dfa:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:dfa\",\"fpof\":true}",
                "finishedOn", "2", "failedReason", "boom");
        SERVER.client().zadd("bull:dfa:failed", 2, "c");
        SERVER.client().set("bull:dfa:id", "2");
        Map<String, String> v1 = dumpOf(k -> k.startsWith("bull:dfa:"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "dfa");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().contains("deferred-failure") && plan.out().contains("v1 fails it at its next fetch without running it"),
                plan.out());
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "dfa", "--yes");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        forgetRefusal("dfa");
        assertEquals(v1, dumpOf(k -> k.startsWith("bull:dfa:")), "v1 as it was");
        CliRun accepted = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "dfa", "--accept-anomalies", "--yes");
        assertEquals(ExitCodes.OK, accepted.code(), accepted.all());
        Map<String, JsonNode> ids = lookup("dfa");
        assertEquals("pending", row("dfa", v2Id(ids, "P")).get("state"), "as listed, as the refusal said");
        assertEquals(java.util.Set.of(v2Id(ids, "c")), SERVER.client().hkeys("emq:{dfa}:job:" + v2Id(ids, "P") + ":failed"));
    }

    @Test
    void migratingAQueueWhoseNameHoldsGlobCharactersTouchesOnlyItsOwnKeys() throws Exception {
        for (String q : List.of("a*", "ab", "x[y]", "xy")) {
            meta(q);
            for (String id : List.of("1", "2", "3")) {
                job(q, id, "data", "{\"q\":\"" + q + "\",\"id\":" + id + "}");
                SERVER.client().lpush("bull:" + q + ":wait", id);
            }
            SERVER.client().set("bull:" + q + ":id", "3");
            job(q, "late", "delay", "60000");
            SERVER.client().zadd("bull:" + q + ":delayed", (System.currentTimeMillis() + 60_000) * 4096d, "late");
            SERVER.client().rpush("bull:" + q + ":late:logs", "a log line");
        }
        Predicate<String> others = k -> k.startsWith("bull:ab:") || k.startsWith("bull:xy:");
        Map<String, String> before = dumpOf(others);
        Map<String, String> brackets = dumpOf(k -> k.startsWith("bull:x[y]:"));
        assertEquals(2 * 9, before.size(), before.keySet().toString());

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "a*", "--rename", "a*=astar", "--json");
        assertEquals(0, plan.code(), plan.all());
        JsonNode planned = Json.MAPPER.readTree(plan.out()).path("queues");
        assertEquals(1, planned.size(), plan.out());
        assertEquals("astar", planned.path(0).path("v2Name").asText());
        assertEquals(3, planned.path(0).path("jobs").path("wait").asInt(), "a*'s three, not ab's too");
        assertEquals(1, planned.path(0).path("jobs").path("delayed").asInt());

        CliRun star = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "a*", "--rename", "a*=astar", "--yes");
        assertEquals(0, star.code(), star.all());
        assertEquals(List.of("1", "2", "3"), pendingAsV1("astar"));
        assertEquals(Set.of("1", "2", "3", "late"), lookup("astar").keySet(), "a*'s jobs, none of ab's");
        assertEquals(1, SERVER.client().zcard("emq:{astar}:schedule"));
        assertEquals(Set.of("bull:a*:meta", "bull:a*:id"), SERVER.client().keys("bull:a\\*:*"));
        assertEquals(before, dumpOf(others), "ab and xy byte for byte as they were");
        assertEquals(brackets, dumpOf(k -> k.startsWith("bull:x[y]:")), "x[y] too");

        CliRun bracket = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "x[y]", "--rename", "x[y]=xbracket", "--yes");
        assertEquals(0, bracket.code(), bracket.all());
        assertEquals(List.of("1", "2", "3"), pendingAsV1("xbracket"));
        assertEquals(Set.of("1", "2", "3", "late"), lookup("xbracket").keySet());
        assertEquals(Set.of("bull:x[y]:meta", "bull:x[y]:id"), SERVER.client().keys("bull:x\\[y\\]:*"));
        assertEquals(before, dumpOf(others), "ab and xy byte for byte as they were");
        assertEquals(2 * 2 + 2 * 9, SERVER.client().keys("bull:*").size(), "two tombstones each, and the two untouched queues");
    }
}
