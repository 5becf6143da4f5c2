package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * Without the change feed (a source user refused its commands) every re-sync pass reads the whole queue; one whose
 * key scan met no job's logs list or flow key reads the jobs' hashes alone. A log pushed after such a pass's scan
 * still reaches v2: under the pause, the retirement finds the job's digest changed and copies it again. The copy
 * keeps what it recorded of each job, with its digest, and each pass what it read: a pass looks up in the journal only
 * the jobs read otherwise since, and the ones the pass before wrote.
 */
class FeedlessPassTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "feedless";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    private final Set<String> added = new TreeSet<>();

    @BeforeEach
    void generate() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), QUEUE, 1, JOBS, 100);
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
    }

    @Test
    void aLogPushedAfterThePassUnderThePauseScannedTheQueueIsCopiedByTheRetirement() {
        boolean[] pushed = {false};
        MigrationResult r = migrateWithoutFeed((version, where) -> {
            if (version == 120 && where.equals("source read") && !pushed[0]) {
                pushed[0] = true;
                SERVER.client().rpush("bull:" + QUEUE + ":5:logs", "after the scan under the pause");
            }
        });
        assertTrue(pushed[0], "the pass under the pause read the source");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(SERVER.client(), QUEUE, added, Set.of(), true), r.toString());
        assertEquals(List.of("after the scan under the pause"), LiveV1.v2Logs(SERVER.client(), QUEUE, "5"));
        assertEquals(List.of(), LiveV1.v2Logs(SERVER.client(), QUEUE, "6"));
    }

    /**
     * Without the feed, every flow job's digest is compared before the tombstone: a parent edited after the pass under
     * the pause read it refuses the queue with v1 intact, as with the feed (LiveSourceTest), not after the tombstone.
     */
    @Test
    void aFlowParentEditedAfterThePassUnderThePauseRefusesTheQueueBeforeTheTombstone() {
        SERVER.client().hset("bull:" + QUEUE + ":p1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().sadd("bull:" + QUEUE + ":p1:dependencies", "bull:" + QUEUE + ":c1");
        SERVER.client().zadd("bull:" + QUEUE + ":waiting-children", 0, "p1");
        SERVER.client().hset("bull:" + QUEUE + ":c1", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1",
                "parentKey", "bull:" + QUEUE + ":p1", "parent", "{\"id\":\"p1\",\"queueKey\":\"bull:" + QUEUE + "\"}"));
        SERVER.client().lpush("bull:" + QUEUE + ":wait", "c1");
        boolean[] edited = {false};
        MigrationResult r = migrateWithoutFeed((version, where) -> {
            if (version == 120 && where.equals("before retire") && !edited[0]) {
                edited[0] = true;
                editData("p1", "{\"edited\":true}");
            }
        });
        assertTrue(edited[0], "the retirement was reached");
        assertEquals(java.util.Optional.of(MigrationRefused.Kind.OUT_OF_LINE), r.refusalKind(), r.toString());
        assertTrue(r.withoutFeed().isPresent(), "the run had no feed");
        assertFalse("echomq:2.0.0-migrated".equals(SERVER.client().hget("bull:" + QUEUE + ":meta", "version")), "no tombstone");
        assertEquals("{\"edited\":true}", SERVER.client().hget("bull:" + QUEUE + ":p1", "data"), "v1's parent kept");
    }

    /** Migrates the queue reading v1 as a user without the change feed, {@code during} acting at each checkpoint. */
    private static MigrationResult migrateWithoutFeed(Checkpoints.Observer during) {
        return migrateWithoutFeed(OPTIONS, during);
    }

    private static MigrationResult migrateWithoutFeed(MigrationOptions options, Checkpoints.Observer during) {
        try (UnifiedJedis v1 = Endpoint.parse(LeastPrivilegeTest.userWithoutFeed(SERVER.client(), SERVER.uri())).open()) {
            return new Migrator(Wire.unfenced(v1), Wire.open(SERVER.client()), SERVER.uri(), options, Checkpoints.observed(during))
                    .migrate(List.of("bull"), List.of(QUEUE)).get(0);
        }
    }

    /**
     * Without the feed no read while v1 serves can tell an orphan from a job a producer adds as it reads (its hash met by
     * the key scan, its listing read before the add): with --accept-anomalies every orphan of such a read waits for the
     * next read, and the exact one under the pause settles it. The job the fence's read met half-way is minted in v1's
     * serve order beside the job added just before it, which v1 serves first; the source's orphan is migrated dead, once,
     * minted last.
     */
    @Test
    void withoutTheFeedTheOrphansOfEachReadWhileV1ServesWaitForTheReadUnderThePause() {
        Map<String, String> hash = Map.of("name", "send", "data", "{}", "opts", "{}", "timestamp", "1");
        SERVER.client().hset("bull:" + QUEUE + ":o1", hash);
        String[] met = new String[1];
        MigrationResult r = migrateWithoutFeed(OPTIONS.withAcceptAnomalies(true), (version, where) -> {
            if (version == 10 && where.equals("v2 paused")) {
                met[0] = Long.toString(SERVER.client().incr("bull:" + QUEUE + ":id"));
                SERVER.client().hset("bull:" + QUEUE + ":" + met[0], hash);
            } else if (version == 10 && where.equals("source read")) {
                added.add(LiveV1.add(SERVER.client(), QUEUE).orElseThrow());
                SERVER.client().lpush("bull:" + QUEUE + ":wait", met[0]);
            }
        });
        added.addAll(List.of(met[0], "o1"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(SERVER.client(), QUEUE, added, Set.of(), true), r.toString());
        List<BrandedId> ids = new Journal(Wire.open(SERVER.client()), QUEUE).ids().lookupV1(List.of(Long.toString(JOBS + 2).getBytes(),
                met[0].getBytes(), "o1".getBytes())).stream().map(java.util.Optional::orElseThrow).toList();
        assertEquals(ids, ids.stream().sorted().toList(), "minted in v1's serve order, the orphan last: " + ids);
        assertEquals(List.of("pending", "pending", "dead"), ids.stream().map(id -> SERVER.client().hget(Keys.queue(QUEUE).job(id), "state")).toList());
    }

    private static void editData(String id, String data) {
        SERVER.client().hset("bull:" + QUEUE + ":" + id, "data", data);
    }

    @Test
    void thePassUnderThePauseLooksUpOnlyTheJobsEditedSinceTheCopyRecordedThem() {
        int[] batches = {0};
        boolean[] movedAtRetire = {false};
        MigrationResult r = migrateWithoutFeed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && ++batches[0] == 1) {
                editData("5", "{\"edited\":5}");
            }
            if (version == 120 && where.equals("v1 paused")) {
                editData("11", "{\"edited\":11}");
            }
            movedAtRetire[0] |= where.equals("source moved at retire");
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(SERVER.client(), QUEUE, added, Set.of(), true), r.toString());
        assertEquals(1L, LiveV1.stepCounts(SERVER.client(), QUEUE, 100).get("unchanged"), "no pass while v1 was live: its sizes held");
        Map<String, Long> window = LiveV1.stepCounts(SERVER.client(), QUEUE, 120);
        assertEquals(1L, window.get("pass-full-pass"), window.toString());
        assertEquals((long) JOBS, window.get("pass-re-read"), "without the feed every job is re-read: " + window);
        assertEquals(2L, window.get("pass-looked-up"), "only jobs 5 and 11, edited since the copy recorded them: " + window);
        assertEquals(2L, window.get("pass-rewritten"), window.toString());
        assertFalse(movedAtRetire[0], "the pass brought v2 in line: the retirement copied nothing again");
        assertEquals("{\"edited\":5}", LiveV1.v2Data(SERVER.client(), QUEUE, "5"));
        assertEquals("{\"edited\":11}", LiveV1.v2Data(SERVER.client(), QUEUE, "11"));
    }

    /**
     * A job edited between the live pass's read and its write is written as the write read it: the next pass looks it
     * up again, though the pass under the pause reads it as the live pass did (the edit undone), and brings v2 in line.
     */
    @Test
    void aJobThePassBeforeWroteIsLookedUpAgain() {
        int[] batches = {0};
        boolean[] movedAtRetire = {false};
        boolean[] racing = {false};
        MigrationResult r = migrateWithoutFeed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && ++batches[0] == 1) {
                editData("5", "{\"edited\":5}");
                LiveV1.add(SERVER.client(), QUEUE).ifPresent(added::add); // the sizes move: V100 takes a pass
            }
            if (version == 100 && where.equals("ids minted") && !racing[0]) {
                racing[0] = true;
                editData("5", "{\"racing\":5}"); // after the pass read job 5, before its write reads it
            }
            if (version == 120 && where.equals("v1 paused")) {
                editData("5", "{\"edited\":5}"); // as the live pass read it
            }
            movedAtRetire[0] |= where.equals("source moved at retire");
        });
        assertTrue(racing[0], "the live pass minted the added job's id");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(SERVER.client(), QUEUE, added, Set.of(), true), r.toString());
        Map<String, Long> live = LiveV1.stepCounts(SERVER.client(), QUEUE, 100);
        assertEquals(1L, live.get("added"), live.toString());
        assertEquals(1L, live.get("rewritten"), live.toString());
        Map<String, Long> window = LiveV1.stepCounts(SERVER.client(), QUEUE, 120);
        assertEquals(2L, window.get("pass-looked-up"), "jobs 5 and the added one, which the live pass wrote: " + window);
        assertEquals(1L, window.get("pass-rewritten"), "job 5, written as the write read it: " + window);
        assertFalse(movedAtRetire[0], "the pass brought v2 in line: the retirement copied nothing again");
        assertEquals("{\"edited\":5}", LiveV1.v2Data(SERVER.client(), QUEUE, "5"));
    }
}
