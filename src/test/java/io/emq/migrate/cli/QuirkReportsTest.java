package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What plan and lookup say of v1 shapes that look like something else (v1-keyspace.md §1, §3): each as it is. */
class QuirkReportsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void aQueue() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "q", 1, 2, 20);
    }

    private static void waiting(byte[] id) {
        byte[] key = concat("bull:q:".getBytes(StandardCharsets.UTF_8), id);
        SERVER.client().hset(key, Map.of(bytes("name"), bytes("quirk"), bytes("data"), bytes("{}"), bytes("opts"), bytes("{}"),
                bytes("timestamp"), bytes("1"), bytes("delay"), bytes("0"), bytes("priority"), bytes("0")));
        SERVER.client().lpush(bytes("bull:q:wait"), id);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String droppedLine(CliRun plan) {
        return plan.out().lines().filter(l -> l.contains("dropped with the source:")).findFirst().orElseThrow(() -> new AssertionError(plan.all()));
    }

    @Test
    void jobsWhoseIdsAreStructureNamesAreCarriedNotReportedAsBrokenStructures() throws Exception {
        for (String id : List.of("active", "stalled", "paused", "failed")) {
            waiting(bytes(id));
        }
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(0, plan.code(), plan.all());
        assertFalse(droppedLine(plan).contains("wrong type"), droppedLine(plan));
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes", "--json");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(6, SERVER.client().zcard("emq:{q}:pending"), "the four and the two");
    }

    /**
     * A job whose id is {@code 5:lock} has its hash where active job 5's lock would be: a hash that never expires, which
     * was read as a live lock (refused live-lock, which no wait lifts). A lock is a string: job 5 has none, it stalled.
     */
    @Test
    void aJobHashWhereAnActiveJobsLockWouldBeIsNoLock() {
        waiting(bytes("5:lock"));
        waiting(bytes("5"));
        SERVER.client().lrem("bull:q:wait", 0, "5");
        SERVER.client().rpush("bull:q:active", "5");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().contains("expired-lock  bull:q:5 "), plan.out());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(4, SERVER.client().zcard("emq:{q}:pending"), "the two, 5 and 5:lock");
    }

    /**
     * A job whose id is {@code 6:processed} beside flow parent 6: its hash is where the parent keeps its finished
     * children. It was read as the parent's (migrate refused naming a child "data"; plan said ready). Refused by both,
     * even with --accept-anomalies, v1 kept; with the job under another id, as the refusal says, the queue migrates.
     */
    @Test
    void aJobHashWhereAFlowParentKeepsItsChildrenIsRefusedUntilTheJobHasAnotherId() throws Exception {
        waiting(bytes("6:processed"));
        SERVER.client().hset("bull:q:6", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().zadd("bull:q:waiting-children", 1, "6");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q", "--accept-anomalies");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("flow-key-job  bull:q:6:processed  the hash of job 6:processed is where flow parent 6 keeps"
                + " its :processed"), plan.out());
        String before = new io.emq.migrate.v1.fixture.KeyspaceDump(SERVER.client()).digest();
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes", "--accept-anomalies", "--json");
        assertEquals(3, migrate.code(), migrate.all());
        assertEquals("flow-key-job", Json.MAPPER.readTree(migrate.out()).path("queues").path(0).path("refusal").path("kind").asText());
        SERVER.client().del("{emq}:version", "{emq}:migration:q");
        SERVER.client().hdel("bull:q:meta", "migrating-token");
        assertEquals(before, new io.emq.migrate.v1.fixture.KeyspaceDump(SERVER.client()).digest(), "v1 as it was");

        SERVER.client().rename("bull:q:6:processed", "bull:q:six-processed");
        SERVER.client().lset("bull:q:wait", SERVER.client().lpos("bull:q:wait", "6:processed"), "six-processed");
        CliRun fixed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes");
        assertEquals(0, fixed.code(), fixed.all());
        assertEquals(3, SERVER.client().zcard("emq:{q}:pending"), "the two and six-processed; parent 6 awaits its children");
    }

    @Test
    void theAddCounterIsNotSaidToBeDroppedForRetirementKeepsItBesideTheTombstone() {
        SERVER.client().set("bull:q:id", "2");
        SERVER.client().xadd("bull:q:events", redis.clients.jedis.StreamEntryID.NEW_ENTRY, Map.of("event", "added"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertTrue(droppedLine(plan).endsWith("dropped with the source: events 1"), droppedLine(plan));
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals("echomq:2.0.0-migrated", SERVER.client().get("bull:q:id"), "kept, holding the tombstone: a v1 add fails");
        assertFalse(SERVER.client().exists("bull:q:events"));
    }

    @Test
    void twoQueuesWhoseNamesDisplayAlikeAreRefusedSayingSo() {
        for (byte[] name : List.of(new byte[] {(byte) 0xff, 'q'}, bytes("\\xffq"))) {
            byte[] base = concat(concat(bytes("bull:"), name), bytes(":"));
            SERVER.client().hset(concat(base, bytes("1")), Map.of(bytes("name"), bytes("n"), bytes("data"), bytes("{}"),
                    bytes("timestamp"), bytes("1")));
            SERVER.client().lpush(concat(base, bytes("wait")), bytes("1"));
        }
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "bull:\\xffq", "--yes");
        assertEquals(3, migrate.code(), migrate.all());
        assertTrue(migrate.all().contains("names 2 v1 queues whose names display alike"), migrate.all());
    }

    @Test
    void dedupKeysNamingNoJobOrNoV2NameAreNamedAmongWhatIsDropped() {
        SERVER.client().set("bull:q:de:gone", "999");
        SERVER.client().set("bull:q:de:kept", "1");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertTrue(droppedLine(plan).contains("dedup keys naming no v1 job 1"), droppedLine(plan));
        SERVER.client().set("bull:q:de:user:42", "404"); // a BullMQ deduplication id v2 cannot hold, naming no job either
        CliRun again = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertTrue(droppedLine(again).contains("dedup keys whose id is no v2 dedup id 1")
                && droppedLine(again).contains("dedup keys naming no v1 job 1"), "each key counted once: " + droppedLine(again));
        String estimate = again.out().lines().filter(l -> l.startsWith("emq:{q}:de:<dedup id>")).findFirst().orElseThrow();
        assertTrue(estimate.matches("emq:\\{q}:de:<dedup id>\\s+string\\s+1\\s.*"), "the one key v2 takes: " + estimate);
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--no-retire").code());
        assertEquals(Set.of("emq:{q}:de:kept"), SERVER.client().keys("emq:{q}:de:*"), "as the plan estimated");
    }

    @Test
    void legacyMarkersAreNotSaidToBeInWaitWhenTheyAreElsewhere() {
        SERVER.client().lpush("bull:q:paused", "0:123");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertTrue(plan.out().contains("1 BullMQ 4.x 0: marker(s) in the lists, not jobs"), plan.all());
        assertTrue(droppedLine(plan).contains("0: markers 1") && !droppedLine(plan).contains("wait 0:"), droppedLine(plan));
    }

    @Test
    void aJobWhoseIdIsAMarkersShapeIsToldWhyNoWorkerServesIt() {
        waiting(bytes("0:7")); // a custom id BullMQ 5.x takes for a 4.x marker where a list holds it
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("orphan-hash") && plan.out().contains("job hash whose id a list holds, but as 0:<n>, the marker"
                + " of BullMQ 4.x"), plan.out());
    }

    @Test
    void theMappingOfABinaryIdHoldsItsBytesBesideADisplayATextIdShares() throws Exception {
        byte[] binary = {(byte) 0xff, 'z'};
        waiting(binary);
        waiting(bytes("\\xffz")); // the text a display of the binary id shows
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--yes").code());
        CliRun lookup = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "q", "--all", "--json");
        List<JsonNode> shared = new ArrayList<>();
        Json.MAPPER.readTree(lookup.out()).forEach(entry -> {
            if (entry.path("v1").asText().equals("\\xffz")) {
                shared.add(entry);
            }
        });
        assertEquals(2, shared.size(), lookup.all());
        assertEquals(List.of("", "/3o="), shared.stream().map(e -> e.path("v1Base64").asText()).sorted().toList(), lookup.all());
        String binaryJob = shared.stream().filter(e -> e.path("v1Base64").asText().equals("/3o=")).findFirst().orElseThrow()
                .path("v2").asText();
        CliRun byBytes = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "q", "--v1-base64", "/3o=", "--json");
        assertEquals(0, byBytes.code(), byBytes.all());
        assertEquals(binaryJob, Json.MAPPER.readTree(byBytes.out()).get(0).path("v2").asText(), byBytes.out());
        assertEquals(2, CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "q", "--v1-base64", "not base64!").code());
    }

    @Test
    void aQueueWithAnEmptyNameIsFoundRefusedUnderItAndMigratesRenamed() {
        SERVER.client().hset("bull::meta", Map.of("opts.maxLenEvents", "10000", "version", "bullmq:5.65.1"));
        SERVER.client().hset("bull::1", Map.of("name", "x", "data", "{}", "opts", "{}", "timestamp", "1", "delay", "0", "priority", "0"));
        SERVER.client().lpush("bull::wait", "1");
        CliRun discover = CliRun.of("discover", "--source", SERVER.uri());
        assertTrue(discover.out().contains("v1 queues under bull: 2") && discover.out().contains("'' (empty)"), discover.all());
        CliRun all = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--yes");
        assertEquals(3, all.code(), "not '1 of 1 queues done' with a job left in v1: " + all.all());
        assertTrue(all.out().contains("pass --rename =NEW"), all.all());
        assertEquals(1, SERVER.client().llen("bull::wait"), "v1 keeps it");
        CliRun renamed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "", "--rename", "=orphans", "--yes");
        assertEquals(0, renamed.code(), renamed.all());
        assertEquals(1, SERVER.client().zcard("emq:{orphans}:pending"));
    }

    @Test
    void planNamesTheV2RegistrationOfEachScheduler() throws Exception {
        for (String sid : List.of("a:b", "a_b")) {
            SERVER.client().zadd("bull:q:repeat", 1, sid);
            SERVER.client().hset("bull:q:repeat:" + sid, Map.of("name", "tick", "every", "60000", "ic", "1"));
        }
        String renamed = io.emq.migrate.v1.plan.SchedulerNames.v2Name(io.emq.migrate.v1.Bytes.utf8("a:b"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("a:b ") && l.endsWith(" " + renamed)), plan.all());
        assertTrue(plan.out().lines().anyMatch(l -> l.startsWith("a_b ") && l.endsWith(" a_b")), plan.all());
        JsonNode schedulers = Json.MAPPER.readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q", "--json").out())
                .path("queues").path(0).path("schedulers");
        List<String> names = new ArrayList<>();
        schedulers.forEach(sch -> names.add(sch.path("id").asText() + "=" + sch.path("v2Name").asText()));
        assertEquals(List.of("a:b=" + renamed, "a_b=a_b"), names.stream().sorted().toList());
    }

    @Test
    void anOrphanListedOnlyInALegacyZsetIsToldSo() {
        for (String id : List.of("4", "5", "6")) {
            SERVER.client().hset("bull:q:" + id, Map.of("name", "x", "data", "{}", "opts", "{}", "timestamp", "1", "delay", "0",
                    "priority", "0"));
        }
        SERVER.client().zadd("bull:q:priority", 3, "4"); // BullMQ 3.x: listed in priority (and, then, in wait too)
        SERVER.client().zadd("bull:q:delay", 1_700_000_000_000L, "5");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(3, plan.code(), "orphans need a decision: " + plan.all());
        List<String> orphans = plan.out().lines().filter(l -> l.startsWith("orphan-hash ")).toList();
        assertTrue(orphans.stream().anyMatch(l -> l.contains("bull:q:4") && l.contains("listed only in the legacy priority zset of"
                + " BullMQ 3.x and older, which no BullMQ 5.x worker serves")), plan.all());
        assertTrue(orphans.stream().anyMatch(l -> l.contains("bull:q:5") && l.contains("listed only in the legacy delay zset")),
                plan.all());
        assertTrue(orphans.stream().anyMatch(l -> l.contains("bull:q:6") && l.contains("listed in no structure")), plan.all());
    }
}
