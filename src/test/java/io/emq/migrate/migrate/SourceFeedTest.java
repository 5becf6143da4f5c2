package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The re-sync re-reads only what the source's change feed says was written: an add, two edits
 * (updateData, changePriority) and a removal made by v1 clients during the copy (after it copied the
 * edited jobs) are caught by a delta pass that re-reads exactly the edited jobs, and the run's first pass looks
 * up in the journal only the jobs written since the copy read them and those of a listing written since; a feed whose
 * connection is killed falls back to the full pass, which still catches an edit made after the kill.
 * While v1 serves, a pass refreshes the snapshot held with the keys the feed told written instead of
 * reading the whole source; a write made after a pass drained the feed is caught by the next pass.
 * V120 catches up again while v1 serves and proves what those passes wrote before it pauses v1, so the
 * pass under the pause has nothing of it left, and a row they wrote that no longer carries its v1 bytes
 * is refused before the pause. Every run ends with each job exactly once.
 */
class SourceFeedTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "fed";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));
    private static final String REMOVE = """
            redis.call('LREM', KEYS[1], 0, ARGV[1])
            redis.call('LREM', KEYS[2], 0, ARGV[1])
            return redis.call('DEL', KEYS[3], KEYS[3] .. ':logs')
            """;

    /** BullMQ's changePriority on a job of a paused queue: out of the list, into prioritized, its priority field set. */
    private static final String CHANGE_PRIORITY = """
            redis.call('LREM', KEYS[1], 0, ARGV[1])
            redis.call('LREM', KEYS[2], 0, ARGV[1])
            redis.call('ZADD', KEYS[3], ARGV[2] * 4294967296, ARGV[1])
            return redis.call('HSET', KEYS[4], 'priority', ARGV[2])
            """;

    /** A job moved from wait (or paused) to failed by its listings alone: its hash is not written. */
    private static final String FAIL_BY_LISTINGS = """
            redis.call('LREM', KEYS[1], 0, ARGV[1])
            redis.call('LREM', KEYS[2], 0, ARGV[1])
            return redis.call('ZADD', KEYS[3], 1, ARGV[1])
            """;

    private final Set<String> added = Collections.synchronizedSet(new TreeSet<>());

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, JOBS, 100);
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
    }

    private static UnifiedJedis client() {
        return SERVER.client();
    }

    /** Runs the migration; once the copy has written its last batch (of two), {@code during} acts on the source. */
    private MigrationResult migrateWith(Runnable during) {
        int[] batches = {0};
        // the drift a change of priority makes is accepted here (the feed is what these tests are about), and reported
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS.withAcceptOrderDrift(true), Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && ++batches[0] == 2) {
                during.run();
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true));
        return r.get(0);
    }

    private static void editData(String id) {
        client().hset("bull:" + QUEUE + ":" + id, "data", "{\"edited\":" + id + "}");
    }

    private static Map<String, Long> catchUpCounts() {
        return LiveV1.stepCounts(client(), QUEUE, 100);
    }

    private static Map<String, Long> windowCounts() {
        return LiveV1.stepCounts(client(), QUEUE, 120);
    }

    private static BrandedId v2Id(String v1Id) {
        return new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(v1Id.getBytes())).get(0).orElseThrow();
    }

    private static String v2Data(String v1Id) {
        return LiveV1.v2Data(client(), QUEUE, v1Id);
    }

    @Test
    void anAddTwoEditsAndARemovalDuringTheCopyAreCaughtByADeltaPassThatReReadsOnlyTheEditedJobs() {
        MigrationResult r = migrateWith(() -> {
            LiveV1.add(client(), QUEUE).ifPresent(added::add);
            editData("5");
            client().eval(CHANGE_PRIORITY, List.of("bull:" + QUEUE + ":wait", "bull:" + QUEUE + ":paused",
                    "bull:" + QUEUE + ":prioritized", "bull:" + QUEUE + ":9"), List.of("9", "5"));
            client().eval(REMOVE, List.of("bull:" + QUEUE + ":wait", "bull:" + QUEUE + ":paused", "bull:" + QUEUE + ":7"),
                    List.of("7"));
            added.remove("7");
        });
        Map<String, Long> counts = catchUpCounts();
        assertTrue(counts.containsKey("delta-keys") && !counts.containsKey("full-pass"), "a delta pass: " + counts);
        assertEquals(2L, counts.get("re-read"), "only the two edited jobs are re-read: " + counts);
        assertEquals(1L, counts.get("added"), counts.toString());
        assertEquals(2L, counts.get("rewritten"), "the edits the copy missed: " + counts);
        assertEquals(1L, counts.get("removed"), counts.toString());
        assertEquals("{\"edited\":5}", v2Data("5"));
        assertFalse(LiveV1.v2Rows(client(), QUEUE).containsKey("7"), "the removed job has no v2 row");
        assertEquals(JOBS, LiveV1.v2Rows(client(), QUEUE).size());
        assertEquals(java.util.Optional.of("pending breaks v1's order once (v1 job 9 comes after v1 job 301 in v1, before it in v2)"),
                r.orderDrift(), "job 9, prioritized now, is served after every job of wait in v1: before the add in v2");
    }

    /**
     * A producer's add during the copy writes {@code wait}, which lists every job the copy wrote: the first pass after it
     * looks up only the added job and the edited one (the copy's table holds what it wrote of the others), not every
     * waiting job.
     */
    @Test
    void anAddDuringTheCopyHasTheFirstPassLookUpOnlyTheJobsTheFeedNames() {
        migrateWith(() -> {
            LiveV1.add(client(), QUEUE).ifPresent(added::add);
            editData("5");
        });
        Map<String, Long> counts = catchUpCounts();
        assertEquals(2L, counts.get("looked-up"), "the add and the edit alone: " + counts);
        assertEquals(1L, counts.get("added"), counts.toString());
        assertEquals(1L, counts.get("rewritten"), counts.toString());
        assertEquals("{\"edited\":5}", v2Data("5"));
    }

    @Test
    void thePassUnderThePauseLooksUpOnlyTheJobTouchedSinceThePassBeforeAndRewritesIt() {
        int[] batches = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals("expectations recorded") && ++batches[0] == 2) {
                editData("5");
            }
            if (version == 120 && where.equals("v1 paused")) {
                editData("11");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true));
        assertEquals(1L, catchUpCounts().get("looked-up"), "the first pass of the run after the copy: only job 5, edited since,"
                + " is looked up: " + catchUpCounts());
        Map<String, Long> window = windowCounts();
        assertTrue(window.containsKey("pass-delta-keys"), "a delta pass under the pause: " + window);
        assertEquals(1L, window.get("pass-looked-up"), "only job 11 (the pause moved every waiting job to paused, still pending in v2): " + window);
        assertEquals(1L, window.get("pass-re-read"), window.toString());
        assertEquals(1L, window.get("pass-rewritten"), window.toString());
        assertEquals("{\"edited\":11}", v2Data("11"));
        assertEquals("{\"edited\":5}", v2Data("5"));
    }

    /**
     * The run that retires after {@code --no-retire} (MIGRATION.md §8) begins its watch before its catch-up: that pass
     * reads the whole source while v1 serves, as the feed tells nothing of what v1 did between the runs (an edit, an
     * add), and the pass under the pause reads only what the feed told since.
     */
    @Test
    void aRunResumedAfterNoRetireWatchesFromItsCatchUpAndItsPassUnderThePauseIsADelta() {
        List<MigrationResult> copied = MigrationHarness.migrate(SERVER, SERVER, OPTIONS.withRetire(false), Checkpoints.none(), List.of("bull"));
        assertEquals(MigrationResult.Outcome.VERIFIED, copied.get(0).outcome(), copied.get(0).toString());
        editData("5"); // between the runs: no feed watches
        LiveV1.add(client(), QUEUE).ifPresent(added::add);
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                editData("11");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(java.util.Optional.empty(), r.get(0).withoutFeed(), "every pass of the run had the feed, or read in full");
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true));
        Map<String, Long> window = windowCounts();
        assertEquals(1L, window.get("live-full-pass"), "the catch-up's first pass reads the whole source: " + window);
        assertEquals(1L, window.get("live-added"), window.toString());
        assertEquals(1L, window.get("live-rewritten"), "job 5, edited between the runs: " + window);
        assertTrue(window.containsKey("pass-delta-keys"), "the pass under the pause is a delta: " + window);
        assertEquals(3L, window.get("pass-looked-up"), "job 11, and jobs 5 and the added one, which the catch-up wrote: " + window);
        assertEquals(1L, window.get("pass-rewritten"), window.toString());
        assertEquals("{\"edited\":5}", v2Data("5"));
        assertEquals("{\"edited\":11}", v2Data("11"));
    }

    @Test
    void everyWriteAnsweredBeforeADrainIsInThatDrainAndInNoLaterOne() {
        try (SourceFeed feed = new SourceFeed(Wire.unfenced(client()))) {
            SourceFeed.Watch watch = feed.watch(io.emq.migrate.v1.QueueRef.of("bull", QUEUE)).orElseThrow();
            for (int i = 0; i < 200; i++) {
                String key = "bull:" + QUEUE + ":" + (i % 7) + ":logs";
                client().rpush(key, "line " + i);
                SourceFeed.Changes changes = watch.drain().orElseThrow();
                assertEquals(1, changes.keys(), "write " + i);
                assertTrue(changes.touched(io.emq.migrate.v1.Bytes.utf8("bull:" + QUEUE + ":" + (i % 7))), "write " + i);
            }
            client().set("bull:other:1", "not watched");
            assertEquals(0, watch.drain().orElseThrow().keys(), "nothing of this queue since the last drain");
        }
    }

    @Test
    void changesLostAfterTheirDrainTellEveryKeyTouched() {
        try (SourceFeed feed = new SourceFeed(Wire.unfenced(client()))) {
            SourceFeed.Watch watch = feed.watch(io.emq.migrate.v1.QueueRef.of("bull", QUEUE)).orElseThrow();
            client().hset("bull:" + QUEUE + ":5", "data", "{}");
            SourceFeed.Changes changes = watch.drain().orElseThrow();
            io.emq.migrate.v1.Bytes other = io.emq.migrate.v1.Bytes.utf8("bull:" + QUEUE + ":6");
            assertTrue(changes.touched(io.emq.migrate.v1.Bytes.utf8("bull:" + QUEUE + ":5")));
            assertFalse(changes.touched(other), "job 6 was not written");
            changes.lost();
            assertTrue(changes.touched(other), "the feed broke before the next drain: job 6 may have been written since");
            assertEquals(1, changes.keys(), "the keys it was told stay what they were");
        }
    }

    /** A job told touched by its id under the queue's base is the job told touched by its whole key, as more drains join. */
    @Test
    void aJobIsToldTouchedByItsIdAsByItsKey() {
        try (SourceFeed feed = new SourceFeed(Wire.unfenced(client()))) {
            io.emq.migrate.v1.QueueRef queue = io.emq.migrate.v1.QueueRef.of("bull", QUEUE);
            SourceFeed.Watch watch = feed.watch(queue).orElseThrow();
            client().rpush("bull:" + QUEUE + ":repeat:a:7:logs", "line");
            client().hset("bull:" + QUEUE + ":5", "data", "{}");
            SourceFeed.Changes changes = watch.drain().orElseThrow();
            List<String> ids = List.of("5", "6", "repeat:a:7", "repeat:a", "repeat", "repeat:a:7:logs", "8", "");
            for (String id : ids) {
                io.emq.migrate.v1.Bytes v1 = io.emq.migrate.v1.Bytes.utf8(id);
                assertEquals(changes.touched(queue.jobKey(v1)), changes.touchedJob(queue.base(), v1), "job '" + id + "'");
            }
            assertTrue(changes.touchedJob(queue.base(), io.emq.migrate.v1.Bytes.utf8("repeat:a:7")), "its logs were written");
            assertFalse(changes.touchedJob(queue.base(), io.emq.migrate.v1.Bytes.utf8("6")), "job 6 was not written");
            client().hset("bull:" + QUEUE + ":6", "data", "{}");
            changes.absorb(watch.drain().orElseThrow());
            assertTrue(changes.touchedJob(queue.base(), io.emq.migrate.v1.Bytes.utf8("6")), "written before the next drain, absorbed");
            assertFalse(changes.touchedJob(queue.base(), io.emq.migrate.v1.Bytes.utf8("8")), "job 8 was not written");
            changes.lost();
            assertTrue(changes.touchedJob(queue.base(), io.emq.migrate.v1.Bytes.utf8("8")), "the feed broke: job 8 may have been");
        }
    }

    @Test
    void aFlushBreaksTheFeedForGood() {
        try (SourceFeed feed = new SourceFeed(Wire.unfenced(client()))) {
            SourceFeed.Watch watch = feed.watch(io.emq.migrate.v1.QueueRef.of("bull", QUEUE)).orElseThrow();
            assertTrue(watch.drain().isPresent());
            client().flushAll();
            assertTrue(watch.drain().isEmpty(), "a flush tells no keys: the feed cannot say what changed");
            client().set("bull:" + QUEUE + ":1", "x");
            assertTrue(watch.drain().isEmpty());
        }
    }

    @Test
    void aPassWithNothingWrittenSinceReReadsNoJobAndLooksUpNone() {
        migrateWith(() -> { });
        Map<String, Long> counts = catchUpCounts();
        assertEquals(0L, counts.get("re-read"), counts.toString());
        assertEquals(0L, counts.get("looked-up"), "every job is as the copy of this run read it: " + counts);
        assertTrue(counts.containsKey("delta-keys"), counts.toString());
    }

    @Test
    void aJobMovedByItsListingsAloneAfterTheCopyWroteItIsLookedUpAndRewritten() {
        migrateWith(() -> client().eval(FAIL_BY_LISTINGS, List.of("bull:" + QUEUE + ":wait", "bull:" + QUEUE + ":paused",
                "bull:" + QUEUE + ":failed"), List.of("3")));
        Map<String, Long> counts = catchUpCounts();
        assertEquals(1L, counts.get("looked-up"), "job 3 alone, read in another state than the copy wrote it: " + counts);
        assertEquals(0L, counts.get("re-read"), "its hash was not written: " + counts);
        assertEquals(1L, counts.get("rewritten"), counts.toString());
        assertEquals("dead", client().hget(Keys.queue(QUEUE).job(v2Id("3")), "state"));
    }

    @Test
    void aKilledSubscriberConnectionForcesTheFullPassWhichStillCatchesTheEdit() {
        assertKillForcesAFullPass("sub=1");
    }

    @Test
    void aKilledTrackingConnectionForcesTheFullPassWhichStillCatchesTheEdit() {
        assertKillForcesAFullPass("flags=t");
    }

    private void assertKillForcesAFullPass(String marker) {
        migrateWith(() -> {
            assertEquals(1, SERVER.dropConnections(marker), "one feed connection (" + marker + ") to kill");
            editData("5");
        });
        Map<String, Long> counts = catchUpCounts();
        assertEquals(1L, counts.get("full-pass"), "the feed broke: a full pass: " + counts);
        assertEquals((long) JOBS, counts.get("re-read"), counts.toString());
        assertEquals(1L, counts.get("rewritten"), "the edit no feed told of: " + counts);
        assertEquals("{\"edited\":5}", v2Data("5"));
    }

    @Test
    void anEditAndAddsAfterTheCatchUpsReadAreCaughtUpWhileV1ServesAndThePassUnderThePauseHasNothingLeft() {
        boolean[] once = {false};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 100 && where.equals("source read") && !once[0]) {
                once[0] = true;
                editData("5");
                for (int i = 0; i < 3; i++) {
                    LiveV1.add(client(), QUEUE).ifPresent(added::add);
                }
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true));
        Map<String, Long> catchUp = catchUpCounts();
        assertEquals(1L, catchUp.get("refreshed-read"), "V100's pass refreshed V10's snapshot: " + catchUp);
        assertEquals(0L, catchUp.get("rewritten"), "the edit came after the pass drained the feed: " + catchUp);
        Map<String, Long> window = windowCounts();
        assertEquals(1L, window.get("live-refreshed-read"), "caught up before the pause, refreshed: " + window);
        assertEquals(1L, window.get("live-rewritten"), "the edit, caught by the next pass while v1 serves: " + window);
        assertEquals(3L, window.get("live-added"), window.toString());
        assertEquals(0L, window.get("pass-added") + window.get("pass-rewritten"), "nothing left under the pause: " + window);
        assertEquals("{\"edited\":5}", v2Data("5"));
    }

    @Test
    void aRowTheCatchUpBeforeThePauseWroteIsProvenBeforeThePause() {
        boolean[] tampered = {false};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 110 && where.equals("verified, not yet recorded")) {
                LiveV1.add(client(), QUEUE).ifPresent(added::add);
            }
            if (version == 120 && where.equals("pass recorded") && !tampered[0]) {
                tampered[0] = true;
                client().hset(Keys.queue(QUEUE).job(v2Id(Integer.toString(JOBS + 1))), "payload", "tampered");
            }
        }), List.of("bull"));
        assertFalse(r.get(0).ok(), r.get(0).toString());
        assertEquals(Optional.of(MigrationRefused.Kind.VERIFICATION), r.get(0).refusalKind(), r.get(0).toString());
        assertFalse(new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.V1_PAUSED_AT).isPresent(),
                "refused before the pause");
        assertFalse(client().hexists("bull:" + QUEUE + ":meta", "paused"), "v1 serves");
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), false));
    }
}
