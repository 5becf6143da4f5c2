package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The exact read under the v1 pause refreshes the snapshot of the catch-up's last pass with what the
 * change feed told written (the pause's RENAME, an edit) instead of reading the whole source; a feed
 * killed once v1 is paused makes it the full read, which still catches the edit. Both end with each
 * job exactly once, the edit in v2. A queue with logs lists, a job scheduler and a job a v1 worker holds is refreshed
 * the same way.
 */
class RefreshedReadTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "refreshed";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, JOBS, 100);
    }

    private static UnifiedJedis client() {
        return SERVER.client();
    }

    @Test
    void theReadUnderThePauseRefreshesTheCatchUpsSnapshot() {
        Map<String, Long> window = migrateEditingUnderThePause(false);
        assertEquals(1L, window.get("pass-refreshed-read"), "the catch-up's snapshot refreshed: " + window);
        assertTrue(window.containsKey("pass-delta-keys"), window.toString());
        assertEquals(1L, window.get("pass-rewritten"), window.toString());
    }

    @Test
    void aFeedKilledUnderThePauseTakesTheFullReadWhichStillCatchesTheEdit() {
        Map<String, Long> window = migrateEditingUnderThePause(true);
        assertFalse(window.containsKey("pass-refreshed-read"), "the feed broke: the source read in full: " + window);
        assertEquals(1L, window.get("pass-full-pass"), window.toString());
        assertEquals(1L, window.get("pass-rewritten"), window.toString());
    }

    @Test
    void aQueueWithLogsListsASchedulerAndAJobAWorkerHoldsIsRefreshedUnderThePauseToo() {
        client().hset("bull:" + QUEUE + ":repeat:tick", Map.of("every", "60000", "name", "tick"));
        client().zadd("bull:" + QUEUE + ":repeat", 1, "tick");
        client().rpush("bull:" + QUEUE + ":11:logs", "first line");
        client().rpush("bull:" + QUEUE + ":12:logs", "kept line");
        String held = client().rpoplpush("bull:" + QUEUE + ":wait", "bull:" + QUEUE + ":active");
        client().psetex("bull:" + QUEUE + ":" + held + ":lock", 60_000, "a-worker-token");
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) { // the worker finishes the job it holds; a job logs a line; the scheduler is rescheduled
                client().lrem("bull:" + QUEUE + ":active", 0, held);
                client().del("bull:" + QUEUE + ":" + held + ":lock");
                client().zadd("bull:" + QUEUE + ":completed", 1, held);
                client().hset("bull:" + QUEUE + ":" + held, Map.of("finishedOn", "1", "returnvalue", "null"));
                client().rpush("bull:" + QUEUE + ":11:logs", "second line");
                client().zadd("bull:" + QUEUE + ":repeat", 2, "tick");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        Map<String, Long> window = windowCounts();
        assertEquals(1L, window.get("pass-refreshed-read"), "locks and logs lists: the snapshot refreshed all the same: " + window);
        assertEachJobOnce(Set.of(held));
        List<BrandedId> ids = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("11".getBytes(), "12".getBytes()))
                .stream().map(java.util.Optional::orElseThrow).toList();
        assertEquals(List.of("first line", "second line"), client().lrange(Keys.queue(QUEUE).job(ids.get(0), JobSub.LOGS), 0, -1));
        assertEquals(List.of("kept line"), client().lrange(Keys.queue(QUEUE).job(ids.get(1), JobSub.LOGS), 0, -1));
        assertEquals(List.of("tick"), client().zrange(Keys.queue(QUEUE).base() + "repeat", 0, -1), "the scheduler carried");
    }

    /**
     * A queue with a flow (parent p1 waiting for children c1 and c2, which wait) whose flow stays under the pause is
     * refreshed there as any other: the flow lands in v2 whole, the edit too, each job once.
     */
    @Test
    void aQueueWithAFlowThatStaysIsRefreshedUnderThePauseToo() {
        String queue = "bull:" + QUEUE + ":";
        client().hset(queue + "p1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        client().sadd(queue + "p1:dependencies", queue + "c1", queue + "c2");
        client().zadd(queue + "waiting-children", 1, "p1");
        for (String child : List.of("c1", "c2")) {
            client().hset(queue + child, Map.of("name", "part", "data", "{}", "opts", "{}", "timestamp", "1", "parentKey", queue + "p1",
                    "parent", "{\"id\":\"p1\",\"queueKey\":\"bull:" + QUEUE + "\"}"));
            client().lpush(queue + "wait", child);
        }
        Map<String, Long> window = migrateEditingUnderThePause(false);
        assertEquals(1L, window.get("pass-refreshed-read"), "the flow stayed: the snapshot refreshed all the same: " + window);
        List<BrandedId> ids = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("p1".getBytes(), "c1".getBytes(),
                "c2".getBytes())).stream().map(java.util.Optional::orElseThrow).toList();
        assertEquals("awaiting_children", client().hget(Keys.queue(QUEUE).job(ids.get(0)), "state"));
        assertEquals("2", client().get(Keys.queue(QUEUE).job(ids.get(0), JobSub.DEPENDENCIES)), "two children pending");
        for (BrandedId child : ids.subList(1, 3)) {
            assertEquals(ids.get(0).toString(), client().hget(Keys.queue(QUEUE).job(child), "parent"));
        }
    }

    /**
     * A queue holding a stalled job (in {@code active}, its lock run out: a worker that crashed) is refreshed under the
     * pause as any other, the stalled job found again; it migrates as pending, once.
     */
    @Test
    void aQueueWithAStalledJobIsRefreshedUnderThePauseToo() {
        client().lrem("bull:" + QUEUE + ":wait", 0, "7");
        client().lpush("bull:" + QUEUE + ":active", "7");
        client().hset("bull:" + QUEUE + ":7", "processedOn", "1");
        Map<String, Long> window = migrateEditingUnderThePause(false);
        assertEquals(1L, window.get("pass-refreshed-read"), "the stalled job found again: the snapshot refreshed: " + window);
    }

    /**
     * A queue holding anomalies in job hashes (opts that are no JSON, a negative attempts counter: jobs written by an old
     * client or by hand), an id listed without its hash (evicted) and a job in {@code paused} without the flag (stranded by
     * v1's pause/resume wrappers, which leave {@code events} a zset; the stalled check leaves a hash at the bare key) and
     * an application's own key under the queue's prefix, the lock and logs list of a job whose hash is gone (evicted) and
     * a job scheduler's record the repeat zset no longer lists is refreshed under the pause as any other, the anomalies
     * carried or found again; each job migrates once, the opts carried as the string they are, and the retirement drops
     * the wrappers', the application's, the evicted job's and the stale record's keys with the source.
     */
    @Test
    void aQueueWithAnomaliesInJobHashesIsRefreshedUnderThePauseToo() throws Exception {
        client().hset("bull:" + QUEUE + ":5", "opts", "attempts: 3");
        client().hset("bull:" + QUEUE + ":9", "attemptsMade", "-3");
        client().lpush("bull:" + QUEUE + ":wait", "evicted");
        client().lrem("bull:" + QUEUE + ":wait", 0, "3");
        client().lpush("bull:" + QUEUE + ":paused", "3"); // stranded by v1's pause/resume wrappers: no meta.paused
        client().zadd("bull:" + QUEUE + ":events", 1, "resumed"); // by the resume wrapper, as the stream should be
        client().hset("bull:" + QUEUE, "opts.maxLenEvents", "10000"); // by the stalled-check wrapper
        client().set("bull:" + QUEUE + ":app:counter", "7"); // an application's own key under the prefix
        client().rpush("bull:" + QUEUE + ":gone:logs", "a line"); // the keys of a job whose hash was evicted
        client().set("bull:" + QUEUE + ":gone:lock", "a worker's token");
        client().hset("bull:" + QUEUE + ":repeat:old", Map.of("every", "60000", "name", "tick")); // a record repeat no longer lists
        Map<String, Long> window = migrateEditingUnderThePause(false);
        assertEquals(1L, window.get("pass-refreshed-read"), "the anomalies carried: the snapshot refreshed: " + window);
        JsonNode v1 = new ObjectMapper().readTree(payloadInV2("5")).get("v1");
        assertEquals("string", v1.get("opts_encoding").asText());
        assertEquals("attempts: 3", v1.get("opts").asText());
        assertEquals(Set.of(), client().keys("bull:" + QUEUE + "*").stream().filter(k -> !k.endsWith(":meta") && !k.endsWith(":id"))
                .collect(Collectors.toSet()), "the source retired, the wrappers' keys with it");
    }

    /**
     * A queue v1's pause/resume wrappers left orphan hashes in (each add after them writes its hash, then fails
     * WRONGTYPE), migrated with --accept-anomalies while such an add under the pause leaves one more: the pass under the
     * pause refreshes the read before (the orphans carried, the new one found as a full read finds it), and each orphan
     * migrates as dead, once.
     */
    @Test
    void aQueueWithOrphanHashesIsRefreshedUnderThePauseToo() {
        Map<String, String> hash = Map.of("name", "send", "data", "{}", "timestamp", "1700000000000");
        List.of("o1", "o2", "o3").forEach(id -> client().hset("bull:" + QUEUE + ":" + id, hash));
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS.withAcceptAnomalies(true), Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                client().hset("bull:" + QUEUE + ":o4", hash);
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        Map<String, Long> window = windowCounts();
        assertEquals(1L, window.get("pass-refreshed-read"), "the orphans carried: the snapshot refreshed: " + window);
        for (String id : List.of("o1", "o2", "o3", "o4")) {
            BrandedId row = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(id.getBytes())).get(0).orElseThrow();
            assertEquals("dead", client().hget(Keys.queue(QUEUE).job(row), "state"), id);
        }
        assertEquals(4L, client().zcard(Keys.queue(QUEUE).dead()), "each orphan once");
        assertEachJobOnce(Set.of());
    }

    /**
     * A queue no refresh stands for (it holds a BullMQ 4.x marker) is read whole under the pause at once, no
     * refresh tried, so a client editing a job while each refresh would have read does not have the run refused.
     */
    @Test
    void aQueueNoRefreshStandsForIsReadWholeUnderThePauseAtOnce() {
        client().lpush("bull:" + QUEUE + ":wait", "0:1000"); // a BullMQ 4.x marker, which no refresh carries
        int[] edits = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && (where.equals("v1 paused") || where.equals("source refresh gave nothing"))) {
                client().hset("bull:" + QUEUE + ":20", "data", "{\"edited\":" + ++edits[0] + "}");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(1, edits[0], "no refresh tried under the pause");
        Map<String, Long> window = windowCounts();
        assertFalse(window.containsKey("pass-refreshed-read"), "read whole: " + window);
        assertEachJobOnce(Set.of());
        assertEquals("{\"edited\":1}", v1DataInV2("20"));
    }

    /**
     * A client edits waiting jobs under the pause (BullMQ's updateData, log and updateProgress, which add to the events
     * stream) while each refresh reads the source: the refresh stands all the same, at its first read, and the pass
     * copies the edits; the retirement finds v2 holding them.
     */
    @Test
    void editsOfListedJobsWhileTheRefreshReadsDoNotTakeItAgain() {
        client().xadd("bull:" + QUEUE + ":events", redis.clients.jedis.StreamEntryID.NEW_ENTRY, Map.of("event", "added"));
        int[] refreshes = {0};
        Map<String, Long> window = migrateActingAtEachRefresh(refreshes, () -> {
            client().hset("bull:" + QUEUE + ":20", "data", "{\"edited\":" + refreshes[0] + "}");
            client().rpush("bull:" + QUEUE + ":30:logs", "line " + refreshes[0]);
            client().xadd("bull:" + QUEUE + ":events", redis.clients.jedis.StreamEntryID.NEW_ENTRY, Map.of("event", "progress"));
        });
        assertEquals(1, refreshes[0], "one refresh read: the edits meanwhile moved no listing");
        assertEquals(1L, window.get("pass-refreshed-read"), window.toString());
        assertEachJobOnce(Set.of());
        List<BrandedId> ids = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("20".getBytes(), "30".getBytes()))
                .stream().map(java.util.Optional::orElseThrow).toList();
        byte[] payload = client().hget(Keys.queue(QUEUE).job(ids.get(0)).getBytes(), "payload".getBytes());
        assertEquals("{\"edited\":1}", new String(PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()));
        assertEquals(List.of("line 1"), client().lrange(Keys.queue(QUEUE).job(ids.get(1), JobSub.LOGS), 0, -1));
    }

    /**
     * A client removes a job (its listing and its hash) while the refresh reads the source: a listing moved, so the refresh
     * reads again, and the job is gone from v2.
     */
    @Test
    void aRemovalWhileTheRefreshReadsTakesItAgain() {
        int[] refreshes = {0};
        Map<String, Long> window = migrateActingAtEachRefresh(refreshes, () -> {
            if (refreshes[0] == 1) {
                client().lrem("bull:" + QUEUE + ":paused", 0, "40"); // paused: v1's pause renamed its wait list
                client().del("bull:" + QUEUE + ":40");
            }
        });
        assertEquals(2, refreshes[0], "the refresh read again: a listing moved meanwhile");
        assertEquals(1L, window.get("pass-refreshed-read"), window.toString());
        assertEachJobOnce(Set.of("40"));
    }

    /**
     * Jobs 101..150 edited as v1 is paused, then job 40 removed while the first refresh reads: the refresh is taken again
     * from the first one's read with only what was written since that read began (the listing and 40's hash), not from
     * the snapshot held with the 50 edits as well; the edits the first read carries reach v2.
     */
    @Test
    void aRefreshTakenAgainReadsOnlyWhatWasWrittenSinceTheTryBefore() {
        String queue = "bull:" + QUEUE + ":";
        int[] refreshes = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                LongStream.rangeClosed(101, 150).forEach(n -> client().hset(queue + n, "data", "{\"edited\":" + n + "}"));
            }
            if (version == 120 && where.equals("source refreshed") && ++refreshes[0] == 1) {
                client().lrem(queue + "paused", 0, "40");
                client().del(queue + "40");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        Map<String, Long> window = windowCounts();
        assertEquals(2, refreshes[0], window.toString());
        assertTrue(window.get("pass-delta-keys") >= 52, "the pass was told the edits, the listing and 40: " + window);
        assertEquals(2L, window.get("pass-refresh-keys"), "the try again read the listing and 40's hash: " + window);
        assertEquals(50L, window.get("pass-rewritten"), window.toString());
        assertEachJobOnce(Set.of("40"));
        assertEquals("{\"edited\":150}", v1DataInV2("150"));
    }

    /**
     * A client removes a job while each refresh under the pause reads: after the fifth, the queue is refused
     * {@code source-changed} without reading it whole (five whole reads would each meet a removal too, and keep v1 paused
     * far longer), v1 resumed with every job it still holds, listed in wait.
     */
    @Test
    void aClientMovingJobsDuringEachRefreshIsRefusedWithoutTheWholeReads() {
        String queue = "bull:" + QUEUE + ":";
        int[] refreshes = {0};
        int[] readsAfter = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("source refreshed")) {
                String id = Integer.toString(40 + ++refreshes[0]);
                client().lrem(queue + "paused", 0, id);
                client().del(queue + id);
            }
            if (version == 120 && where.equals("source read") && refreshes[0] > 0) {
                readsAfter[0]++;
            }
        }), List.of("bull"));
        assertRefusedAfterFiveRefreshes(r.get(0), readsAfter[0]);
        assertEquals(5, refreshes[0]);
        List<String> waiting = client().lrange(queue + "wait", 0, -1);
        assertEquals(JOBS - 5, waiting.size());
        assertTrue(waiting.stream().allMatch(id -> client().exists(queue + id)), "every job v1 still lists has its hash");
    }

    /**
     * Under the pause the first refresh meets a client's removal half-way (job 30 in no listing, its hash gone, its logs
     * list left: what a full read finds dangling) and gives nothing; the removal ends meanwhile, and a client removes a job
     * while each of the four refreshes after it reads: the queue is refused {@code source-changed} after the fifth try,
     * without reading it whole, as when each try read and met a removal (v1 moved during every try), v1 resumed.
     */
    @Test
    void aRefreshThatGaveNothingThenRefreshesMeetingRemovalsAreRefusedWithoutTheWholeReads() {
        String queue = "bull:" + QUEUE + ":";
        client().rpush(queue + "30:logs", "a line");
        int[] refreshes = {0};
        int[] gaveNothing = {0};
        int[] readsAfter = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                client().lrem(queue + "paused", 0, "30");
                client().del(queue + "30");
            }
            if (version == 120 && where.equals("source refresh gave nothing") && ++gaveNothing[0] == 1) {
                client().del(queue + "30:logs");
            }
            if (version == 120 && where.equals("source refreshed")) {
                String id = Integer.toString(40 + ++refreshes[0]);
                client().lrem(queue + "paused", 0, id);
                client().del(queue + id);
            }
            if (version == 120 && where.equals("source read") && gaveNothing[0] > 0) {
                readsAfter[0]++;
            }
        }), List.of("bull"));
        assertRefusedAfterFiveRefreshes(r.get(0), readsAfter[0]);
        assertEquals(List.of(1, 4), List.of(gaveNothing[0], refreshes[0]));
    }

    /** {@code r} refused {@code source-changed} after five refreshes under the pause, none followed by a whole read, v1 resumed. */
    private static void assertRefusedAfterFiveRefreshes(MigrationResult r, int readsAfter) {
        assertEquals(java.util.Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), r.refusalKind(), r.toString());
        assertTrue(r.message().contains("changed during each of 5 refreshes of what v1 wrote under the pause"), r.message());
        assertEquals(0, readsAfter, "no whole read after the refreshes");
        assertFalse(client().hexists("bull:" + QUEUE + ":meta", "paused"), "v1 resumed");
    }

    /**
     * A job's hash deleted alone while the refresh reads (damage: the job stays listed) looks like an edit to it, and the
     * refresh stands; the pass finds the job gone and proves nothing, and the next pass reads it again though no drain
     * tells it any more: it is listed without a hash, as a whole read finds it (missing-hash: nothing to migrate, its v2
     * row removed), and the run retires every other job.
     */
    @Test
    void aHashDeletedAloneWhileTheRefreshReadsIsReadAgainByTheNextPass() {
        int[] refreshes = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("source refreshed") && ++refreshes[0] == 1) {
                client().del("bull:" + QUEUE + ":40");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(java.util.Optional.of(299L), r.get(0).inV2(), r.get(0).toString());
        assertEachJobOnce(Set.of("40"));
    }

    /**
     * The catch-up's last read while v1 serves meets a v1 worker's move half-way (job 1, at the served end, listed in
     * {@code wait} and in {@code active}, its lock gone: the worker took it between the reads of the two listings and
     * finished it before its lock was read); once v1 is paused, the move is complete (1 completed). The feed told job 1
     * written, so the pass under the pause refreshes that read instead of reading the queue whole, and 1, finished in v1,
     * has no v2 row.
     */
    @Test
    void aLiveReadThatMetAWorkersMoveHalfWayIsRefreshedUnderThePause() {
        Map<String, Long> window = migrateFinishingJob1TakenHalfWay("v1 paused", "paused"); // v1's pause renamed its wait list
        assertEquals(1L, window.get("pass-refreshed-read"), "the live read refreshed, its anomalies read again: " + window);
        assertEachJobOnce(Set.of("1"));
    }

    /**
     * A v1 worker takes job 1 while V110 proves (its listing in {@code wait} still read, not yet taken off: a move met
     * half-way) and finishes it once the catch-up's first pass read: that pass refreshes the snapshot before, keeping 1's
     * move as a full read would (listed twice, its lock gone), as does each pass after it, and 1 has no v2 row.
     */
    @Test
    void aLivePassThatMetAWorkersMoveHalfWayRefreshesTheSnapshot() {
        Map<String, Long> window = migrateFinishingJob1TakenHalfWay("source read", "wait");
        assertEquals(window.get("live-passes"), window.get("live-refreshed-read"), "no live pass read the source whole: " + window);
        assertEquals(1L, window.get("pass-refreshed-read"), window.toString());
        assertEachJobOnce(Set.of("1"));
    }

    /**
     * A v1 worker takes job 40 and fails it as V110 proves; the catch-up's first pass meets its retry half-way (listed
     * nowhere, its hash there: pushed back to {@code wait} only once that pass read). That pass refreshes the snapshot
     * before, finding 40 an orphan as a full read would, as does each pass after it, and 40 is migrated once (the
     * retry put it last: the operator accepts the order drift).
     */
    @Test
    void aLivePassThatMetARetryHalfWayRefreshesTheSnapshot() {
        String queue = "bull:" + QUEUE + ":";
        int[] reached = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS.withAcceptOrderDrift(true), Checkpoints.observed((version, at) -> {
            if (version == 110 && at.equals("verified, not yet recorded")) {
                client().lrem(queue + "wait", 0, "40");
                client().hset(queue + "40", Map.of("processedOn", "1", "attemptsMade", "1"));
            }
            if (version == 120 && at.equals("source read") && ++reached[0] == 1) {
                client().lpush(queue + "wait", "40");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        Map<String, Long> window = windowCounts();
        assertEquals(window.get("live-passes"), window.get("live-refreshed-read"), "no live pass read the source whole: " + window);
        assertEachJobOnce(Set.of());
    }

    /**
     * A client removes job 50 (BullMQ's remove: off {@code wait}, its hash deleted) as V110 proves, then job 40 after the
     * feed's drain of V120's first live pass and before that pass reads the source: the drain told 50 and not 40, so the
     * pass finds 40's row among the keys the feed told since (its peek), without walking the journal, and removes both.
     */
    @Test
    void aJobRemovedBetweenALivePasssDrainAndItsReadIsFoundAmongTheKeysToldSince() {
        int[] reached = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, at) -> {
            if (version == 110 && at.equals("verified, not yet recorded")) {
                remove("50");
            }
            if (version == 120 && at.equals("feed drained") && ++reached[0] == 1) {
                remove("40");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        Map<String, Long> window = windowCounts();
        assertEquals(2L, window.get("live-removed"), window.toString());
        assertFalse(window.containsKey("live-journal-walked"), "the feed told the removed jobs: " + window);
        assertEachJobOnce(Set.of("40", "50"));
    }

    /** What BullMQ's remove does to a waiting job: off {@code wait}, its hash deleted. */
    private static void remove(String id) {
        client().lrem("bull:" + QUEUE + ":wait", 0, id);
        client().del("bull:" + QUEUE + ":" + id);
    }

    /**
     * A v1 worker finishes job 40 under the pause and BullMQ removes it ({@code removeOnComplete}): the pass finds its
     * row to remove among the jobs the feed told written, without walking the journal, and v2 holds every other job once.
     */
    @Test
    void aJobRemovedUnderThePauseIsFoundAmongTheJobsTheFeedToldWritten() {
        Map<String, Long> window = migrateActingAt("v1 paused", () -> {
            client().lrem("bull:" + QUEUE + ":paused", 0, "40"); // paused: v1's pause renamed its wait list
            client().del("bull:" + QUEUE + ":40");
        });
        assertEquals(1L, window.get("pass-removed"), window.toString());
        assertFalse(window.containsKey("pass-journal-walked"), "the feed told the removed job: " + window);
        assertEachJobOnce(Set.of("40"));
    }

    /**
     * Job 40 leaves its listing for {@code completed} under the pause with its hash unwritten (no BullMQ script does so,
     * but nothing stops a client): the jobs the feed told written hold none of the rows gone, so the pass walks the whole
     * journal, finds 40's row and removes it.
     */
    @Test
    void aJobThatLeftItsListingWithItsHashUnwrittenIsFoundByWalkingTheJournal() {
        Map<String, Long> window = migrateActingAt("v1 paused", () -> {
            client().lrem("bull:" + QUEUE + ":paused", 0, "40");
            client().zadd("bull:" + QUEUE + ":completed", 1, "40");
        });
        assertEquals(1L, window.get("pass-removed"), window.toString());
        assertEquals(1L, window.get("pass-journal-walked"), "no told job accounts for the row gone: " + window);
        assertEachJobOnce(Set.of("40"));
    }

    /**
     * Under the pause a v1 worker finishes job 40, which it held: the refresh meets the job in no listing (taken from
     * {@code paused} for the sake of the test: as a read meets a move between its reads of two listings), its hash still
     * there, an orphan as a full read would find it, and stands; the move's end written before the drain after it
     * ({@code completed}), the refresh is tried again and stands, and 40 has no v2 row.
     */
    @Test
    void aRefreshThatMetAWorkersMoveHalfWayIsTriedAgainWithWhatWasWrittenMeanwhile() {
        String queue = "bull:" + QUEUE + ":";
        int[] refreshed = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                client().lrem(queue + "paused", 0, "40"); // the worker's move half-way: 40 in no listing
                client().hset(queue + "40", "processedOn", "1");
            }
            if (version == 120 && where.equals("source refreshed") && ++refreshed[0] == 1) {
                client().zadd(queue + "completed", 1, "40"); // and its end
                client().hset(queue + "40", Map.of("finishedOn", "1", "returnvalue", "null"));
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        Map<String, Long> window = windowCounts();
        assertEquals(2, refreshed[0], "the refresh tried again with what was written meanwhile: " + window);
        assertEquals(1L, window.get("pass-refreshed-read"), "the refresh tried again stood: " + window);
        assertEquals(1L, window.get("pass-removed"), window.toString());
        assertEachJobOnce(Set.of("40"));
    }

    /**
     * Migrates while a v1 worker takes job 1 as V110 proves (listed in {@code active} too, not yet taken off {@code wait})
     * and finishes it, from {@code listing}, at the first {@code where} V120 reaches. The window's counts.
     */
    private static Map<String, Long> migrateFinishingJob1TakenHalfWay(String where, String listing) {
        String queue = "bull:" + QUEUE + ":";
        int[] reached = {0};
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, at) -> {
            if (version == 110 && at.equals("verified, not yet recorded")) {
                client().lpush(queue + "active", "1");
                client().hset(queue + "1", "processedOn", "1");
            }
            if (version == 120 && at.equals(where) && ++reached[0] == 1) {
                client().lrem(queue + listing, 0, "1");
                client().lrem(queue + "active", 0, "1");
                client().zadd(queue + "completed", 1, "1");
                client().hset(queue + "1", Map.of("finishedOn", "1", "returnvalue", "null"));
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        return windowCounts();
    }

    /** Migrates, running {@code act} at each refresh of the source under the pause, right after it read (counted in {@code refreshes}). The window's counts. */
    private static Map<String, Long> migrateActingAtEachRefresh(int[] refreshes, Runnable act) {
        return migrateActingAt("source refreshed", () -> {
            refreshes[0]++;
            act.run();
        });
    }

    /** Migrates, running {@code act} each time V120 reaches the checkpoint {@code where}. The window's counts. */
    private static Map<String, Long> migrateActingAt(String where, Runnable act) {
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, at) -> {
            if (version == 120 && at.equals(where)) {
                act.run();
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        return windowCounts();
    }

    /** Migrates; once v1 is paused, optionally kills the feed's subscriber, then edits job 11. The window's counts. */
    private static Map<String, Long> migrateEditingUnderThePause(boolean killFeed) {
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v1 paused")) {
                if (killFeed) {
                    assertEquals(1, SERVER.dropConnections("sub=1"), "one feed subscriber to kill");
                }
                client().hset("bull:" + QUEUE + ":11", "data", "{\"edited\":11}");
            }
        }), List.of("bull"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEachJobOnce(Set.of());
        assertEquals("{\"edited\":11}", v1DataInV2("11"));
        return windowCounts();
    }

    /**
     * The queue retired with each job 1..{@value #JOBS} exactly one v2 row, but those of {@code noRow} (removed or finished
     * in v1), which have none, as {@link LiveV1#problems} checks it.
     */
    private static void assertEachJobOnce(Set<String> noRow) {
        Set<String> all = LongStream.rangeClosed(1, JOBS).mapToObj(Long::toString).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, all, noRow, true));
    }

    /** The v1 data the v2 row of v1 job {@code v1Id} carries in its payload. */
    private static String v1DataInV2(String v1Id) {
        return new String(PayloadPolicy.ENVELOPE.v1Data(payloadInV2(v1Id)).orElseThrow());
    }

    /** The payload of the v2 row of v1 job {@code v1Id}. */
    private static byte[] payloadInV2(String v1Id) {
        BrandedId id = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(v1Id.getBytes())).get(0).orElseThrow();
        return client().hget(Keys.queue(QUEUE).job(id).getBytes(), "payload".getBytes());
    }

    /** V120's counts, as its history row records them. */
    private static Map<String, Long> windowCounts() {
        return new Journal(Wire.open(client()), QUEUE).history().rows().stream()
                .filter(row -> row.version() == 120).findFirst().orElseThrow().counts();
    }
}
