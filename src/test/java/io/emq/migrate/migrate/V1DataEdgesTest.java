package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.cli.Main;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.runtime.Claim;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.AnomalyKind;
import io.emq.migrate.v1.AttemptCount;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.Wire;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.resps.Tuple;

/**
 * Real v1 data at its documented limits, and damage around it, written key by key as BullMQ 5.65.1
 * leaves it: priorities up to 2^21 and delays decades ahead (scores past 2^53) migrate without an
 * anomaly, in the zset's own order and at the exact due time; an id pushed twice into one list and
 * attempts counters no v2 claim can count are anomalies whose treatment keeps every job exactly once.
 */
class V1DataEdgesTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final double TWO_32 = 4294967296d;

    @BeforeEach
    void clean() {
        SERVER.client().flushAll();
    }

    /** A job hash as BullMQ's addJob writes it, plus the extra fields given. */
    private static void job(String queue, String id, String... extra) {
        V1QueueGenerator.job(SERVER.client(), queue, id, extra);
        SERVER.client().hset("bull:" + queue + ":meta", Map.of("version", "bullmq:5.65.1"));
    }

    private static QueueSnapshot snapshot(String queue) {
        QueueRef q = QueueRef.of("bull", queue);
        return new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(q))).read(q);
    }

    /** What {@code plan --queue Q} exits with and prints. */
    private record Plan(int code, String text) {
    }

    private static Plan plan(String queue) {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(sink, true, StandardCharsets.UTF_8);
        int code = Main.run(new String[] {"plan", "--source", SERVER.uri(), "--queue", queue}, out, out);
        return new Plan(code, sink.toString(StandardCharsets.UTF_8));
    }

    private static MigrationResult migrate(MigrationOptions options, String queue) {
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, options, Checkpoints.none(), List.of("bull"), queue);
        assertEquals(1, r.size());
        return r.get(0);
    }

    private static List<String> pendingInServeOrder(String queue) {
        return SERVER.client().zrange(Keys.queue(queue).pending(), 0, -1);
    }

    private static List<String> v1IdsOf(String queue, List<String> branded) {
        Journal journal = new Journal(Wire.open(SERVER.client()), queue);
        List<String> out = new ArrayList<>();
        for (String id : branded) {
            out.add(journal.ids().lookupV2(BrandedId.of(id)).map(b -> new String(b, StandardCharsets.UTF_8)).orElseThrow());
        }
        return out;
    }

    @Test
    void prioritiesUpTo2To21MigrateInTheZsetsOwnOrderWithoutAnAnomaly() {
        long top = 1L << 21; // BullMQ 5.65.1's PRIORITY_LIMIT
        // scores as BullMQ's Lua computes them, priority * 2^32 + pc in doubles: past 2^53 some round onto others
        String[][] jobs = {{"p1", "1", "9"}, {"top-a", Long.toString(top), "1"}, {"top-b", Long.toString(top), "2"},
                {"top-c", Long.toString(top), "3"}, {"top-0", Long.toString(top), "0"}, {"mid", "1000", "4"}};
        for (String[] j : jobs) {
            job("prio", j[0], "priority", j[1]);
            SERVER.client().zadd("bull:prio:prioritized", Double.parseDouble(j[1]) * TWO_32 + Double.parseDouble(j[2]), j[0]);
        }
        assertTrue(SERVER.client().zscore("bull:prio:prioritized", "top-a") >= Math.pow(2, 53), "the scores reach past 2^53");
        List<String> v1Order = SERVER.client().zrange("bull:prio:prioritized", 0, -1); // what BullMQ's ZPOPMIN serves

        QueueSnapshot snap = snapshot("prio");
        assertEquals(List.of(), snap.anomalies());
        assertEquals(top, snap.job(Bytes.utf8("top-b")).orElseThrow().priority(), "priority from the hash");
        assertEquals(0, plan("prio").code(), "a clean plan: nothing blocks");

        MigrationResult r = migrate(MigrationOptions.defaults(), "prio");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertEquals(v1Order, v1IdsOf("prio", pendingInServeOrder("prio")), "v2 serves in the zset's order");
    }

    @Test
    void aDelayPast2To53KeepsItsExactDueTimeAndNeverRunsEarly() {
        long now = System.currentTimeMillis();
        long due = now + Duration.ofDays(365L * 20).toMillis();
        double score = due * 4096d + 5; // BullMQ's due * 0x1000 + seq, in doubles
        assertTrue(score > Math.pow(2, 53), "a delay this far ahead packs past 2^53");
        job("later", "far", "delay", Long.toString(due - now), "timestamp", Long.toString(now));
        SERVER.client().zadd("bull:later:delayed", score, "far");
        job("later", "soon", "delay", "1000", "timestamp", Long.toString(now));
        SERVER.client().zadd("bull:later:delayed", (now + 1000) * 4096d, "soon");

        QueueSnapshot snap = snapshot("later");
        assertEquals(List.of(), snap.anomalies());
        assertEquals(due, snap.job(Bytes.utf8("far")).orElseThrow().dueAt());
        assertEquals(0, plan("later").code());

        MigrationResult r = migrate(MigrationOptions.defaults(), "later");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        List<Tuple> scheduled = SERVER.client().zrangeWithScores(Keys.queue("later").schedule(), 0, -1);
        assertEquals(2, scheduled.size());
        assertEquals(now + 1000, (long) scheduled.get(0).getScore());
        assertEquals(due, (long) scheduled.get(1).getScore(), "scheduled at its exact due ms, not now");
    }

    @Test
    void anIdPushedTwiceIntoOneListIsOneJobAndTheQueueVerifies() {
        for (String id : List.of("1", "2", "3")) {
            job("dup", id);
            SERVER.client().lpush("bull:dup:wait", id);
        }
        SERVER.client().lpush("bull:dup:wait", "2"); // LPUSH bull:q:wait 2 while 2 is there

        QueueSnapshot snap = snapshot("dup");
        assertEquals(List.of("1", "2", "3"), snap.jobs(V1State.WAIT).stream().map(j -> j.id().display()).toList());
        assertEquals(1, snap.anomalyCount(AnomalyKind.LISTED_TWICE));
        assertEquals("listed more than once in wait; migrated once, at its first place in serve order",
                snap.anomalies(AnomalyKind.LISTED_TWICE).get(0).reason());
        assertEquals(3, plan("dup").code(), "refused until --accept-anomalies");

        MigrationResult refused = migrate(MigrationOptions.defaults(), "dup");
        assertEquals(MigrationResult.Outcome.REFUSED, refused.outcome());
        assertTrue(refused.message().contains("listed-twice") && refused.message().contains("--accept-anomalies"),
                refused.message());
        assertEquals(4, SERVER.client().llen("bull:dup:wait"), "a refusal leaves v1 as it was");

        MigrationResult r = migrate(MigrationOptions.defaults().withAcceptAnomalies(true), "dup");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertEquals(List.of("1", "2", "3"), v1IdsOf("dup", pendingInServeOrder("dup")), "each job once, in serve order");
    }

    @Test
    void concurrencyAndTheRateLimitAreCarriedIntoV2MetaShownInThePlanAndTakenBackByAbandon(@TempDir Path dir) throws Exception {
        for (String q : List.of("gated", "loose", "own")) {
            job(q, "1");
            SERVER.client().lpush("bull:" + q + ":wait", "1");
        }
        SERVER.client().hset("bull:gated:meta", Map.of("concurrency", "5", "max", "10", "duration", "1000"));
        SERVER.client().hset("bull:loose:meta", Map.of("concurrency", "many", "max", "10"));
        SERVER.client().hset("bull:own:meta", Map.of("concurrency", "7"));
        SERVER.client().hset("emq:{own}:meta", "concurrency", "2"); // the v2 queue's own setting

        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        Main.run(new String[] {"plan", "--source", SERVER.uri(), "--all", "--json"}, new PrintStream(sink, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Map<String, List<String>> shown = new LinkedHashMap<>();
        new ObjectMapper().readTree(sink.toByteArray()).path("queues").forEach(q -> {
            List<String> lines = new ArrayList<>();
            q.path("settings").forEach(s -> lines.add(s.path("field").asText() + " " + s.path("carried").asBoolean()));
            shown.put(q.path("name").asText(), lines);
        });
        assertEquals(List.of("concurrency true", "max true", "duration true"), shown.get("gated"));
        assertEquals(List.of("concurrency false", "max false"), shown.get("loose"));
        Path page = dir.resolve("plan.html");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        Main.run(new String[] {"plan", "--source", SERVER.uri(), "--all", "--html", page.toString()},
                new PrintStream(text, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        String report = text.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("dropped: concurrency 'many' is not a positive integer")
                && report.contains("dropped: a rate limit needs both max and duration; duration is not set")
                && report.contains("carried to meta.concurrency (the global concurrency)"), report);
        assertTrue(Files.readString(page).contains("carried to meta.duration"), "the page shows the settings too");

        for (MigrationResult r : MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false),
                Checkpoints.none(), List.of("bull"))) {
            assertEquals(MigrationResult.Outcome.VERIFIED, r.outcome(), r.message());
        }
        assertEquals(java.util.Arrays.asList("5", "10", "1000"), settings("gated"), "carried");
        assertEquals(java.util.Arrays.asList(null, null, null), settings("loose"), "nothing carried");
        assertEquals(java.util.Arrays.asList("2", null, null), settings("own"), "the v2 queue's own value is kept");

        Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), "gated", MigrationOptions.DEFAULT_LEASE);
        assertEquals(java.util.Arrays.asList(null, null, null), settings("gated"), "abandon takes back what it carried");
        Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), "own", MigrationOptions.DEFAULT_LEASE);
        assertEquals(java.util.Arrays.asList("2", null, null), settings("own"), "and only that");
    }

    @Test
    void aBinaryNameAndOptsThatAreNotJsonReachTheEnvelopeRecoverably() throws Exception {
        byte[] name = {(byte) 0xff, (byte) 0xfe, 'x'};
        byte[] opts = "attempts: 3".getBytes(StandardCharsets.UTF_8);
        job("odd", "1");
        SERVER.client().hset("bull:odd:1".getBytes(StandardCharsets.UTF_8), Map.of("name".getBytes(StandardCharsets.UTF_8), name,
                "opts".getBytes(StandardCharsets.UTF_8), opts));
        SERVER.client().lpush("bull:odd:wait", "1");
        assertEquals(MigrationResult.Outcome.RETIRED, migrate(MigrationOptions.defaults(), "odd").outcome());
        String id = pendingInServeOrder("odd").get(0);
        JsonNode envelope = new ObjectMapper().readTree(SERVER.client().hget(
                (Keys.queue("odd").base() + "job:" + id).getBytes(StandardCharsets.UTF_8), "payload".getBytes(StandardCharsets.UTF_8)));
        assertEquals("base64", envelope.get("name_encoding").asText());
        assertArrayEquals(name, Base64.getDecoder().decode(envelope.get("name").asText()));
        assertEquals("string", envelope.get("v1").get("opts_encoding").asText());
        assertEquals("attempts: 3", envelope.get("v1").get("opts").asText());
    }

    @Test
    void jsonNestedDeeperThanADefaultReaderTakesIsCarriedAsAStringAndTheReasonSaysSo() throws Exception {
        String deep = "[".repeat(2000) + "]".repeat(2000);
        String edge = "[".repeat(998) + "]".repeat(998);
        job("deep", "1", "data", deep);
        job("deep", "2", "opts", "{\"attempts\":1,\"x\":" + deep + "}");
        job("deep", "3", "data", edge, "opts", "{\"x\":" + "[".repeat(996) + "]".repeat(996) + "}");
        job("deep", "4", "data", "[".repeat(999) + "]".repeat(999));
        SERVER.client().rpush("bull:deep:wait", "4", "3", "2", "1");
        QueueSnapshot snap = snapshot("deep");
        assertEquals(List.of("data (4000 bytes) is JSON nested deeper than 998 levels, more than the envelope splices (a JSON reader"
                + " takes 1000 by default): carried as a JSON string, its bytes intact", "data (1998 bytes) is JSON nested deeper than"
                + " 998 levels, more than the envelope splices (a JSON reader takes 1000 by default): carried as a JSON string, its bytes intact"),
                snap.anomalies(AnomalyKind.NON_JSON_DATA).stream().map(a -> a.reason()).toList());
        assertEquals(List.of("opts (4019 bytes) is JSON nested deeper than 998 levels, more than the envelope splices (a JSON reader"
                + " takes 1000 by default): carried as a JSON string, its bytes intact"),
                snap.anomalies(AnomalyKind.NON_JSON_OPTS).stream().map(a -> a.reason()).toList());
        Plan planned = plan("deep");
        assertEquals(0, planned.code(), "warnings, not refusals: " + planned.text());
        assertTrue(planned.text().contains("non-json-opts"), planned.text());

        assertEquals(MigrationResult.Outcome.RETIRED, migrate(MigrationOptions.defaults(), "deep").outcome());
        ObjectMapper reader = new ObjectMapper(); // a consumer's default reader: 1000 levels at most
        List<JsonNode> envelopes = new ArrayList<>();
        for (String id : pendingInServeOrder("deep")) {
            envelopes.add(reader.readTree(SERVER.client().hget(Keys.queue("deep").base() + "job:" + id, "payload")));
        }
        assertEquals("json", envelopes.get(2).get("encoding").asText(), "998 levels are spliced");
        assertEquals("string", envelopes.get(3).get("encoding").asText(), "999 would make the envelope 1000 deep");
        assertTrue(envelopes.get(2).get("v1").get("opts").isObject(), "and opts of 998 levels within the envelope");
        assertEquals("string", envelopes.get(0).get("encoding").asText());
        assertEquals(deep, envelopes.get(0).get("data").asText());
        assertEquals("string", envelopes.get(1).get("v1").get("opts_encoding").asText());
    }

    /** The v2 meta's concurrency, max and duration (null where absent). */
    private static List<String> settings(String queue) {
        return SERVER.client().hmget(Keys.queue(queue).meta(), "concurrency", "max", "duration");
    }

    @Test
    void attemptsNoClaimCanCountAreClampedReportedAndEveryJobIsClaimable() {
        Map<String, String[]> bad = new LinkedHashMap<>();
        bad.put("1", new String[] {"ats", "1e30"});
        bad.put("2", new String[] {"ats", "9223372036854775807"});
        bad.put("3", new String[] {"ats", "-7"});
        bad.put("4", new String[] {"atm", "2.5"});
        bad.put("5", new String[] {"ats", "many"});
        bad.put("6", new String[] {"ats", "4", "atm", "3"});
        for (Map.Entry<String, String[]> e : bad.entrySet()) {
            job("counts", e.getKey(), e.getValue());
            SERVER.client().lpush("bull:counts:wait", e.getKey());
        }
        QueueSnapshot snap = snapshot("counts");
        assertEquals(5, snap.anomalyCount(AnomalyKind.BAD_ATTEMPTS), snap.anomalies().toString());
        assertEquals("ats '1e30' is above 2^53-2, the most a v2 claim can count from; migrated as " + AttemptCount.LIMIT,
                snap.anomalies(AnomalyKind.BAD_ATTEMPTS).get(0).reason());
        assertEquals(List.of(AttemptCount.LIMIT, AttemptCount.LIMIT, 0L, 2L, 0L, 4L),
                snap.jobs(V1State.WAIT).stream().map(JobFacts::attempts).toList());
        Plan counted = plan("counts");
        assertEquals(0, counted.code(), "clamped, so migrate does not refuse, and neither does the plan");
        assertTrue(counted.text().contains("bad-attempts") && counted.text().contains("ats '-7' is negative; migrated as 0"),
                counted.text());

        MigrationResult r = migrate(MigrationOptions.defaults(), "counts");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), "clamped, so nothing to decide: " + r.message());
        List<Claim> claimed = Jobs.on(Wire.open(SERVER.client()), "counts").claimBatch(Duration.ofSeconds(30), 10);
        assertEquals(List.of("1", "2", "3", "4", "5", "6"), v1IdsOf("counts", claimed.stream().map(Claim::id).toList()),
                "every job is claimed, none stranded");
        assertEquals(List.of(AttemptCount.LIMIT + 1, AttemptCount.LIMIT + 1, 1L, 3L, 1L, 5L),
                claimed.stream().map(Claim::token).toList());
        assertEquals(0, SERVER.client().zcard(Keys.queue("counts").dead()));
    }

    /**
     * A job's progress reaches its row byte for byte (a number or an object, as updateProgress wrote it); a flow child
     * whose parent opts say to ignore, continue or remove its dependency on failure keeps its parent on failure (policy
     * {@code id}), one whose parent field is not JSON fails its parent as BullMQ's default does ({@code fp}).
     */
    @Test
    void progressAndTheParentPolicyReachTheRows() {
        job("rows", "1", "progress", "42");
        job("rows", "2", "progress", "{\"pct\":50,\"step\":\"copy\"}");
        job("rows", "p", "name", "parent");
        SERVER.client().zadd("bull:rows:waiting-children", 0, "p");
        SERVER.client().sadd("bull:rows:p:dependencies", "bull:rows:c1", "bull:rows:c2", "bull:rows:c3");
        job("rows", "c1", "parentKey", "bull:rows:p", "parent", "{\"id\":\"p\",\"queueKey\":\"bull:rows\",\"idof\":true}");
        job("rows", "c2", "parentKey", "bull:rows:p", "parent", "{\"id\":\"p\",\"queueKey\":\"bull:rows\",\"rdof\":true}");
        job("rows", "c3", "parentKey", "bull:rows:p", "parent", "not json");
        SERVER.client().lpush("bull:rows:wait", "1", "2", "c1", "c2", "c3");

        MigrationResult r = migrate(MigrationOptions.defaults().withAcceptAnomalies(true), "rows");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals("42", rowField("rows", "1", "progress"));
        assertEquals("{\"pct\":50,\"step\":\"copy\"}", rowField("rows", "2", "progress"));
        assertEquals(null, rowField("rows", "c1", "progress"), "no progress, no field");
        assertEquals("id", rowField("rows", "c1", "parent_policy"));
        assertEquals("id", rowField("rows", "c2", "parent_policy"));
        assertEquals("fp", rowField("rows", "c3", "parent_policy"));
    }

    /**
     * A dedup key pointing at a waiting job points at its branded id in v2 with its TTL; one whose id v2 cannot name
     * (a colon) and one pointing at a job v1 completed are not carried, each counted in V70's history row.
     */
    @Test
    void dedupKeysAreCarriedForJobsThatGetRowsAndCountedWhereTheyCannotBe() {
        job("dd", "1");
        job("dd", "2");
        job("dd", "9", "finishedOn", "1", "returnvalue", "null");
        SERVER.client().lpush("bull:dd:wait", "1", "2");
        SERVER.client().zadd("bull:dd:completed", 1, "9");
        SERVER.client().set("bull:dd:de:good-1", "1");
        SERVER.client().pexpire("bull:dd:de:good-1", 600_000);
        SERVER.client().set("bull:dd:de:inv:7", "2");
        SERVER.client().set("bull:dd:de:done", "9");

        MigrationResult r = migrate(MigrationOptions.defaults().withAcceptAnomalies(true), "dd");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        BrandedId one = new Journal(Wire.open(SERVER.client()), "dd").ids().lookupV1(List.of("1".getBytes(StandardCharsets.UTF_8)))
                .get(0).orElseThrow();
        assertEquals(one.toString(), SERVER.client().get(Keys.queue("dd").dedup("good-1")));
        long ttl = SERVER.client().pttl(Keys.queue("dd").dedup("good-1"));
        assertTrue(ttl > 0 && ttl <= 600_000, "its TTL is carried: " + ttl);
        assertEquals(java.util.Set.of(Keys.queue("dd").dedup("good-1")), SERVER.client().keys("emq:{dd}:de:*"), "nothing else");
        Map<String, Long> v70 = new Journal(Wire.open(SERVER.client()), "dd").history().rows().stream()
                .filter(h -> h.version() == 70).findFirst().orElseThrow().counts();
        assertEquals(1L, v70.get("dedup-invalid-id"), v70.toString());
        assertEquals(1L, v70.get("dedup-finished-job"), v70.toString());
        assertEquals(1L, v70.get("dedup-keys"), v70.toString());
    }

    /**
     * A job scheduler record whose id the repeat zset no longer lists (BullMQ creates no more iterations of it) is a
     * {@code stale-scheduler}: reported, not migrated, deleted with the source; a registered one beside it migrates.
     * A hash outside {@code repeat:} with an every field is no scheduler ({@code unknown-key}). Neither reads as a
     * legacy repeatable (they did: the plan refused, naming --drop-legacy-repeatables).
     */
    @Test
    void aSchedulerRecordNoLongerRegisteredIsStaleNotALegacyRepeatable() {
        job("st", "1");
        SERVER.client().lpush("bull:st:wait", "1");
        SERVER.client().hset("bull:st:repeat:gone", Map.of("every", "60000", "name", "tick"));
        SERVER.client().hset("bull:st:repeat:templated", Map.of("pattern", "0 * * * *", "name", "tack", "data", "{\"n\":1}"));
        SERVER.client().hset("bull:st:repeat:live", Map.of("every", "1000", "name", "tock"));
        SERVER.client().zadd("bull:st:repeat", System.currentTimeMillis() + 1000, "live");
        SERVER.client().hset("bull:st:odd", Map.of("every", "5"));

        Plan plan = plan("st");
        assertEquals(0, plan.code(), plan.text());
        assertTrue(plan.text().contains("stale-scheduler") && plan.text().contains("bull:st:repeat:gone")
                && plan.text().contains("job scheduler gone has a record but no member in repeat"), plan.text());
        assertTrue(plan.text().contains("bull:st:repeat:templated") && plan.text().contains("job scheduler templated has a record"),
                "a record with template data is a scheduler, not an orphan job: " + plan.text());
        assertTrue(!plan.text().contains("orphan-hash"), plan.text());
        assertTrue(plan.text().contains("unknown-key") && plan.text().contains("bull:st:odd"), plan.text());
        assertTrue(!plan.text().contains("legacy-repeatable"), plan.text());

        MigrationResult r = migrate(MigrationOptions.defaults(), "st");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of("live"), SERVER.client().zrange(Keys.queue("st").base() + "repeat", 0, -1), "only the registered one");
        assertEquals(java.util.Set.of("bull:st:meta", "bull:st:id"), SERVER.client().keys("bull:st:*"), "the stale record is deleted");
    }

    /** A field of the v2 row of a v1 job (null when the row has none). */
    private static String rowField(String queue, String v1Id, String field) {
        BrandedId id = new Journal(Wire.open(SERVER.client()), queue).ids().lookupV1(List.of(v1Id.getBytes(StandardCharsets.UTF_8)))
                .get(0).orElseThrow();
        return SERVER.client().hget(Keys.queue(queue).job(id), field);
    }
}
