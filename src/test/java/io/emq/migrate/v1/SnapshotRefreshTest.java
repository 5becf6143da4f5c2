package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * A snapshot refreshed with the keys written since it was read equals a full read of the same source,
 * having read again only the listings and the facts of the written or new jobs, and scanned no key;
 * a refresh that cannot prove that (a written key it does not know, a job unlisted but still there)
 * gives nothing, and the caller reads in full.
 */
class SnapshotRefreshTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final QueueRef Q = QueueRef.of("bull", "fresh");
    static final int JOBS = 2500;
    private final Set<Bytes> written = new HashSet<>();

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), "fresh", 1, JOBS, 60);
    }

    private static UnifiedJedis client() {
        return SERVER.client();
    }

    private static QueueSnapshotReader reader() {
        return new QueueSnapshotReader(client(), new QueueBases(Set.of(Q))).withoutPayloadDigests();
    }

    private void wrote(String suffix) {
        written.add(Q.key(suffix));
    }

    /**
     * {@code before} refreshed with the keys told written, under the pause and while v1 serves: each holds these
     * {@code anomalies} and equals a full read.
     */
    private void refreshedAsAFullRead(QueueSnapshot before, Map<AnomalyKind, Long> anomalies) {
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        assertEquals(anomalies, refreshed.anomalyCounts());
        assertSameSource(reader().read(Q), refreshed);
        assertSameSource(reader().read(Q), reader().refreshLive(before, written).orElseThrow());
    }

    /**
     * The keys told written, and {@code suffix}: under the pause a refresh reads again only the listings told written
     * (the drain after it tells those written as it read, and the try is taken again), where a live one reads every
     * listing again once one was told.
     */
    private Set<Bytes> toldToo(String suffix) {
        Set<Bytes> told = new HashSet<>(written);
        told.add(Q.key(suffix));
        return told;
    }

    /** What a producer does while v1 serves, told written: job {@value #JOBS} + 1 added to {@code wait}. */
    private void addJobTold() {
        V1QueueGenerator.addWaiting(client(), "fresh", JOBS + 1, JOBS + 1, 60);
        List.of("wait", Integer.toString(JOBS + 1), "id").forEach(this::wrote);
    }

    /** {@link #addJobTold}, then the added job taken off {@code wait} (not told); its id. */
    private String addJobToldThenUnlistIt() {
        addJobTold();
        String added = Integer.toString(JOBS + 1);
        client().lrem("bull:fresh:wait", 0, added);
        return added;
    }

    /** What the pause and the writes around it do: RENAME wait to paused, meta.paused, 30 adds, an edit, a removal. */
    private void pauseAddEditRemove() {
        client().rename("bull:fresh:wait", "bull:fresh:paused");
        client().hset("bull:fresh:meta", "paused", "1");
        wrote("wait");
        wrote("paused");
        wrote("meta");
        V1QueueGenerator.addWaiting(client(), "fresh", JOBS + 1, JOBS + 30, 60);
        for (int n = JOBS + 1; n <= JOBS + 30; n++) {
            client().rpoplpush("bull:fresh:wait", "bull:fresh:paused");
            wrote(Integer.toString(n));
        }
        wrote("id");
        client().hset("bull:fresh:7", "data", "{\"edited\":7}");
        wrote("7");
        client().lrem("bull:fresh:paused", 0, "9");
        client().del("bull:fresh:9");
        wrote("9");
    }

    @Test
    void aRefreshEqualsAFullReadAndReadsOnlyTheListingsAndTheWrittenJobs() {
        QueueSnapshot before = reader().read(Q);
        pauseAddEditRemove();
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        Map<String, Long> calls = commandCalls();
        assertEquals(31L, calls.getOrDefault("hmget", 0L), "the facts of 30 new jobs and of the edited one: " + calls);
        assertEquals(0L, calls.getOrDefault("scan", 0L), "no key scan: " + calls);
        assertTrue(calls.getOrDefault("lrange", 0L) <= 8, "the listings, 1000 ids a call: " + calls);
        QueueSnapshot full = reader().read(Q);
        assertSameSource(full, refreshed);
        assertEquals(JOBS + 30 - 1, refreshed.jobCount());
        assertEquals(refreshed.jobs(V1State.PAUSED).size(), refreshed.jobCount(), "every job paused");
        assertFalse(refreshed.held(V1State.PAUSED).sharesColumnsOf(before.held(V1State.WAIT)), "jobs added, edited, removed: copied");
    }

    @Test
    void aRefreshWalksEachListingBesideTheOneBeforePastTakenJobsAndJobsAddedAtEitherEnd() {
        QueueSnapshot before = reader().read(Q);
        for (int n = 1; n <= 3; n++) {
            client().zadd("bull:fresh:completed", n, client().rpop("bull:fresh:wait"));
            client().hset("bull:fresh:" + n, Map.of("processedOn", "1", "finishedOn", "2", "returnvalue", "null"));
            wrote(Integer.toString(n));
        }
        client().zrem("bull:fresh:completed", "2");
        client().del("bull:fresh:2");
        V1QueueGenerator.addWaiting(client(), "fresh", JOBS + 1, JOBS + 2, 60);
        client().rpush("bull:fresh:wait", client().lpop("bull:fresh:wait"));
        wrote(Integer.toString(JOBS + 1));
        wrote(Integer.toString(JOBS + 2));
        wrote("wait");
        wrote("completed");
        client().hset("bull:fresh:1500", "data", "{\"edited\":1500}");
        wrote("1500");
        QueueSnapshot refreshed = refreshReadingFactsOf(before, 5, "the two jobs completed, those added at either end, the edited");
        assertEquals(List.of(Bytes.utf8(Integer.toString(JOBS + 2)), Bytes.utf8("4")), refreshed.jobs(V1State.WAIT).stream()
                .limit(2).map(JobFacts::id).toList(), "the job pushed to the near end is served first");
    }

    /** A read that met a job's hash before its listing (an orphan then) is refreshed as a full read once it is listed, its hash told written or not. */
    @Test
    void aReadThatMetAJobAddedAfterItsListingsIsRefreshedAsAFullReadOnceListed() {
        client().hset("bull:fresh:" + (JOBS + 1), Map.of("name", "send", "data", "{}", "timestamp", "1"));
        QueueSnapshot before = reader().read(Q);
        assertEquals(1, before.anomalyCount(AnomalyKind.ORPHAN_HASH), "the hash met before its listing");
        client().lpush("bull:fresh:wait", Integer.toString(JOBS + 1));
        wrote("wait");
        refreshedAsAFullRead(before, Map.of());
        wrote(Integer.toString(JOBS + 1));
        refreshedAsAFullRead(before, Map.of());
    }

    /**
     * A flow as BullMQ's FlowProducer leaves it once one child finished: parent p1 waits for children c1 and c2 (waiting),
     * c0's result in its {@code :processed}; c0 completed; and c3 waiting, a child of a parent in another queue.
     */
    private static void addFlow() {
        client().hset("bull:fresh:p1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        client().zadd("bull:fresh:waiting-children", 1, "p1");
        client().sadd("bull:fresh:p1:dependencies", "bull:fresh:c1", "bull:fresh:c2");
        client().hset("bull:fresh:p1:processed", "bull:fresh:c0", "{\"made\":0}");
        child("c0", "bull:fresh:p1");
        client().zadd("bull:fresh:completed", 2, "c0");
        for (String id : List.of("c1", "c2")) {
            child(id, "bull:fresh:p1");
            client().lpush("bull:fresh:wait", id);
        }
        child("c3", "bull:other:p9");
        client().lpush("bull:fresh:wait", "c3");
    }

    private static void child(String id, String parentKey) {
        String parentId = parentKey.substring(parentKey.lastIndexOf(':') + 1);
        String parentQueue = parentKey.substring(0, parentKey.lastIndexOf(':'));
        client().hset("bull:fresh:" + id, Map.of("name", "part", "data", "{}", "opts", "{}", "timestamp", "1", "parentKey", parentKey,
                "parent", "{\"id\":\"" + parentId + "\",\"queueKey\":\"" + parentQueue + "\"}"));
    }

    /**
     * A queue with flows is refreshed as any other while no key of a flow was written: the pause renamed {@code wait}
     * (the children with it), jobs were added, edited and removed; the flow parents and every child's link are carried,
     * equal to a full read's, with no key scan, and a live refresh carries them too.
     */
    @Test
    void aRefreshCarriesTheFlowsWhileNoKeyOfAFlowWasWritten() {
        addFlow();
        QueueSnapshot before = reader().read(Q);
        assertEquals(1, before.flowParents().size());
        assertEquals(4, before.flowLinks().size(), before.flowLinks().toString());
        assertTrue(before.readInFullBecause().isEmpty(), "flows: a refresh may start from it");
        pauseAddEditRemove();
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        Map<String, Long> calls = commandCalls();
        assertEquals(0L, calls.getOrDefault("scan", 0L), "no key scan: " + calls);
        assertEquals(0L, calls.getOrDefault("smembers", 0L) + calls.getOrDefault("hkeys", 0L), "the parent's keys carried: " + calls);
        QueueSnapshot full = reader().read(Q);
        assertSameSource(full, refreshed);
        assertEquals(before.flowParents(), refreshed.flowParents());
        assertSameSource(full, reader().refreshLive(before, written).orElseThrow());
    }

    /**
     * Once a key of a flow was written (a child finished: its parent's {@code :dependencies} and {@code :processed};
     * children removed, their parent's {@code :dependencies} gone with the last), a refresh gives nothing, v1 live or
     * not: only a full read reads the flow as it is now; so does a live refresh that finds a parent gone with its flow's
     * keys left (a full read finds them dangling).
     */
    @Test
    void aRefreshAfterAFlowMovedGivesNothing() {
        QueueSnapshot before = readAFreshFlow();
        client().lrem("bull:fresh:wait", 0, "c1");
        client().zadd("bull:fresh:completed", 3, "c1");
        client().srem("bull:fresh:p1:dependencies", "bull:fresh:c1");
        client().hset("bull:fresh:p1:processed", "bull:fresh:c1", "{\"made\":1}");
        List.of("wait", "completed", "c1", "p1:dependencies", "p1:processed").forEach(this::wrote);
        assertTrue(reader().refresh(before, written).isEmpty(), "a child finished");
        assertTrue(reader().refreshLive(before, written).isEmpty(), "a child finished, v1 live");

        QueueSnapshot again = readAFreshFlow();
        for (String id : List.of("c1", "c2")) {
            client().lrem("bull:fresh:wait", 0, id);
            client().del("bull:fresh:" + id);
            client().srem("bull:fresh:p1:dependencies", "bull:fresh:" + id);
            List.of(id, "p1:dependencies").forEach(this::wrote);
        }
        wrote("wait");
        assertFalse(client().exists("bull:fresh:p1:dependencies"), "gone with its last member");
        assertTrue(reader().refresh(again, written).isEmpty(), "the parent's children removed, its pending ones gone");
        assertTrue(reader().refreshLive(again, written).isEmpty(), "the same, v1 live");

        QueueSnapshot third = readAFreshFlow();
        client().zrem("bull:fresh:waiting-children", "p1");
        client().del("bull:fresh:p1");
        wrote("waiting-children"); // v1 live: the parent's hash not told yet
        assertTrue(reader().refreshLive(third, written).isEmpty(), "a parent gone, its keys left: dangling to a full read");
        assertEquals(1, reader().read(Q).anomalyCount(AnomalyKind.DANGLING_SUBKEY));
    }

    /** The queue generated again with {@link #addFlow}'s flow, nothing told written, read in full. */
    private QueueSnapshot readAFreshFlow() {
        generate();
        addFlow();
        written.clear();
        return reader().read(Q);
    }

    /**
     * A stalled job (in {@code active}, its lock run out: a worker that crashed) is an anomaly a refresh finds again as a
     * full read does, since every refresh reads the active jobs again: a refresh starts from a read that met one, and
     * stands with it, under the pause or not.
     */
    @Test
    void aStalledJobIsFoundAgainByARefreshAsByAFullRead() {
        client().lrem("bull:fresh:wait", 0, "5");
        client().lpush("bull:fresh:active", "5");
        client().hset("bull:fresh:5", "processedOn", "1");
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.EXPIRED_LOCK, 1L), before.anomalyCounts());
        assertTrue(before.readInFullBecause().isEmpty(), "a stalled job: a refresh may start from it");
        pauseAddEditRemove();
        refreshedAsAFullRead(before, Map.of(AnomalyKind.EXPIRED_LOCK, 1L));
    }

    @Test
    void aWrittenKeyThatIsNeitherAStructureNorAJobHashIsReadInFull() {
        QueueSnapshot before = reader().read(Q);
        client().sadd("bull:fresh:5:dependencies", "bull:other:1");
        wrote("5:dependencies");
        assertTrue(reader().refresh(before, written).isEmpty(), "a flow's per-job key: only a scan classifies it as a full read does");
        assertTrue(reader().refreshLive(before, written).isEmpty(), "a flow's per-job key, v1 live or not");
    }

    /** A hash written under the queue that is no job (an unknown key to a full read) is met as an orphan is, and resolved as a full read resolves it. */
    @Test
    void aWrittenHashListedNowhereThatIsNoJobIsResolvedAsByAFullRead() {
        QueueSnapshot before = reader().read(Q);
        client().hset("bull:fresh:odd", "colour", "blue");
        wrote("odd");
        refreshedAsAFullRead(before, Map.of(AnomalyKind.UNKNOWN_KEY, 1L));
    }

    /**
     * While v1 serves, a producer adds a job after the read (told written) and a v1 worker moves it half-way through the
     * refresh (a failed attempt's backoff promoted to {@code wait} after the refresh read {@code wait}, before it read
     * {@code delayed}: here listed nowhere, its hash there). A refresh finds it an orphan as a full read does (under the
     * pause the drain after the read tells the move's writes, and the try is taken again). Once the move is told and
     * done, the next refresh stands with no anomaly.
     */
    @Test
    void aLiveRefreshThatMetAnAddedJobMovedHalfWayFindsItAnOrphanAsAFullReadDoes() {
        QueueSnapshot before = reader().read(Q);
        String added = addJobToldThenUnlistIt();
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
        refreshLiveAsAFullReadThenOnceMoved(before, Map.of(AnomalyKind.ORPHAN_HASH, 1L), () -> {
            client().lpush("bull:fresh:wait", added);
            client().hset("bull:fresh:" + added, "attemptsMade", "1");
            List.of("wait", added).forEach(this::wrote);
        });
    }

    /**
     * The refresh of a live source from {@code before} with what was written, equal to a full read and showing
     * {@code anomalies} (a move met half-way); then, once {@code moveEnds} (its writes told), the next live refresh, equal
     * to a full read with no anomaly. Returns the first.
     */
    private QueueSnapshot refreshLiveAsAFullReadThenOnceMoved(QueueSnapshot before, Map<AnomalyKind, Long> anomalies, Runnable moveEnds) {
        QueueSnapshot live = reader().refreshLive(before, written).orElseThrow();
        assertEquals(anomalies, live.anomalyCounts());
        assertSameSource(reader().read(Q), live);
        written.clear();
        moveEnds.run();
        QueueSnapshot done = reader().refreshLive(live, written).orElseThrow();
        assertEquals(Map.of(), done.anomalyCounts());
        assertSameSource(reader().read(Q), done);
        return live;
    }

    /** What a v1 worker does when it takes the job at the near end of {@code wait}: moves it to {@code active} under a lock. */
    private String take() {
        String id = client().rpoplpush("bull:fresh:wait", "bull:fresh:active");
        client().psetex("bull:fresh:" + id + ":lock", 60_000, "a-worker-token");
        client().hset("bull:fresh:" + id, "processedOn", "1");
        List.of("wait", "active", id, id + ":lock").forEach(this::wrote);
        return id;
    }

    /** What a v1 worker does when it finishes a job it took: the lock goes, the job is completed. */
    private void complete(String id) {
        client().lrem("bull:fresh:active", 0, id);
        client().del("bull:fresh:" + id + ":lock");
        client().zadd("bull:fresh:completed", 2, id);
        client().hset("bull:fresh:" + id, Map.of("finishedOn", "2", "returnvalue", "null"));
        List.of("active", "completed", id, id + ":lock").forEach(this::wrote);
    }

    private void log(String id, String line) {
        client().rpush("bull:fresh:" + id + ":logs", line);
        wrote(id + ":logs");
    }

    @Test
    void locksAndLogsListsAreCarriedThroughARefreshAndOnlyThoseWrittenSinceAreTypedAgain() {
        String first = take();
        List.of("30", "40", "50").forEach(id -> client().rpush("bull:fresh:" + id + ":logs", "line of " + id));
        written.clear();
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(JobSubKind.LOCK, 1L, JobSubKind.LOGS, 3L), before.subkeys());
        assertTrue(before.readInFullBecause().isEmpty(), "locks and logs lists: a refresh may start from it");
        complete(first);
        String second = take();
        log("40", "another line");
        log("60", "a first line");
        client().del("bull:fresh:50:logs");
        wrote("50:logs");
        long unwritten = typeCalls(before, Set.of());
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        Map<String, Long> calls = commandCalls();
        assertEquals(0L, calls.getOrDefault("scan", 0L), "no key scan: " + calls);
        assertEquals(5L, calls.getOrDefault("type", 0L) - unwritten, "the two locks and three logs lists written, typed: " + calls);
        assertSameSource(reader().read(Q), refreshed);
        assertEquals(Map.of(JobSubKind.LOCK, 1L, JobSubKind.LOGS, 3L), refreshed.subkeys(), "30, 40 and 60 log; " + second + " is locked");
        written.clear();
        complete(second);
        assertSameSource(reader().read(Q), reader().refresh(refreshed, written).orElseThrow());
    }

    /** The TYPE calls of a refresh of {@code before} told {@code written} (its structures and bare key are typed whatever was written). */
    private static long typeCalls(QueueSnapshot before, Set<Bytes> written) {
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        reader().refresh(before, written);
        return commandCalls().getOrDefault("type", 0L);
    }

    private void schedule(String sid, long next) {
        client().hset("bull:fresh:repeat:" + sid, Map.of("every", "60000", "name", sid));
        client().zadd("bull:fresh:repeat", next, sid);
        wrote("repeat:" + sid);
        wrote("repeat");
    }

    @Test
    void jobSchedulersAreReadAgainWholeInARefresh() {
        schedule("tick", 1000);
        schedule("tock", 2000);
        schedule("gone", 3000);
        written.clear();
        QueueSnapshot before = reader().read(Q);
        assertTrue(before.readInFullBecause().isEmpty(), "job schedulers: a refresh may start from it");
        client().zadd("bull:fresh:repeat", 1500, "tick"); // its next run moved
        wrote("repeat");
        client().hset("bull:fresh:repeat:tock", "every", "30000");
        wrote("repeat:tock");
        client().zrem("bull:fresh:repeat", "gone");
        client().del("bull:fresh:repeat:gone");
        wrote("repeat:gone");
        schedule("new", 4000);
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        assertSameSource(reader().read(Q), refreshed);
        assertEquals(List.of("new 4000 60000", "tick 1500 60000", "tock 2000 30000"), refreshed.schedulers().stream()
                .map(sc -> sc.id().utf8() + " " + sc.nextRunMs() + " " + sc.everyMs()).sorted().toList());
    }

    /** A record the zset stops listing since the read before is resolved by a full read; a refresh carries it from then on. */
    @Test
    void aSchedulersRecordTheZsetNoLongerListsIsReadInFullOnce() {
        schedule("tick", 1000);
        written.clear();
        QueueSnapshot before = reader().read(Q);
        client().zrem("bull:fresh:repeat", "tick");
        wrote("repeat");
        assertTrue(reader().refresh(before, written).isEmpty(), "a stale record: only a full read resolves it");
        QueueSnapshot full = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.STALE_SCHEDULER, 1L), full.anomalyCounts());
        written.clear();
        addJobTold();
        refreshedAsAFullRead(full, Map.of(AnomalyKind.STALE_SCHEDULER, 1L));
    }

    @Test
    void aLogsKeyThatIsNoListIsReadInFull() {
        QueueSnapshot before = reader().read(Q);
        client().set("bull:fresh:7:logs", "not a list");
        wrote("7:logs");
        assertTrue(reader().refresh(before, written).isEmpty(), "only a scan classifies it as a full read does");
        assertEquals(1, reader().read(Q).anomalyCount(AnomalyKind.UNKNOWN_KEY));
    }

    @Test
    void aLogsListOfAJobListedNowhereIsReadInFull() {
        QueueSnapshot before = reader().read(Q);
        log(Integer.toString(JOBS + 7), "a line of a job never added");
        assertTrue(reader().refresh(before, written).isEmpty(), "dangling: only a full read reports it");
        assertEquals(1, reader().read(Q).anomalyCount(AnomalyKind.DANGLING_SUBKEY));
    }

    /**
     * The read met a logs list of a job it listed nowhere (the job added after the listings were read, its hash passed
     * by the key scan, then logged): a refresh gives nothing while the feed has not told that list written, or while the
     * job is still listed nowhere; once the job is listed and both are told written, the refresh stands.
     */
    @Test
    void aReadThatMetALogsListBeforeItsJobIsRefreshedOnceTheFeedToldTheListWritten() {
        String added = Integer.toString(JOBS + 1);
        log(added, "a line");
        written.clear();
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.DANGLING_SUBKEY, 1L), before.anomalyCounts());
        wrote(added + ":logs");
        assertTrue(reader().refresh(before, written).isEmpty(), "dangling still: only a full read reports it");
        written.clear();
        addJobTold();
        assertTrue(reader().refresh(before, written).isEmpty(), "a dangling list the feed did not tell written: damage, not a move");
        wrote(added + ":logs");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        assertSameSource(reader().read(Q), refreshed);
        assertTrue(refreshed.hasLogs(Bytes.utf8(added)));
    }

    @Test
    void aJobRemovedWhileItsLogsListStaysIsReadInFull() {
        client().rpush("bull:fresh:12:logs", "a line");
        QueueSnapshot before = reader().read(Q);
        client().lrem("bull:fresh:wait", 0, "12");
        client().del("bull:fresh:12");
        wrote("wait");
        wrote("12");
        assertTrue(reader().refresh(before, written).isEmpty(), "its logs list is left dangling: only a full read reports it");
        assertEquals(1, reader().read(Q).anomalyCount(AnomalyKind.DANGLING_SUBKEY));
        client().del("bull:fresh:12:logs");
        wrote("12:logs");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
    }

    @Test
    void dedupKeysAreCarriedThroughARefreshAndOnlyThoseWrittenSinceAreReadAgain() {
        client().set("bull:fresh:de:kept", "1");
        client().set("bull:fresh:de:changed", "2");
        client().set("bull:fresh:de:gone", "3");
        client().psetex("bull:fresh:de:ttl", 60_000, "4");
        QueueSnapshot before = reader().read(Q);
        client().set("bull:fresh:de:changed", "5");
        client().del("bull:fresh:de:gone");
        client().set("bull:fresh:de:new", "6");
        List.of("de:changed", "de:gone", "de:new").forEach(this::wrote);
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        assertEquals(2L, commandCalls().getOrDefault("get", 0L), "the two keys written since");
        assertSameSource(reader().read(Q), refreshed);
        assertEquals(Set.of("kept=1", "changed=5", "new=6", "ttl=4"), Set.copyOf(refreshed.dedupKeys().stream()
                .map(e -> e.dedupId().utf8() + "=" + e.jobId().utf8()).toList()));
        long left = refreshed.dedupKeys().stream().filter(e -> e.dedupId().utf8().equals("ttl")).findFirst().orElseThrow().pttlMs();
        assertTrue(left > 0 && left <= client().pttl("bull:fresh:de:ttl") + 100, "what is left of the TTL kept, not read again: " + left);
    }

    @Test
    void aWrittenKeyUnderTheDedupPrefixThatIsNoStringIsReadInFull() {
        client().set("bull:fresh:de:kept", "1");
        QueueSnapshot before = reader().read(Q);
        client().hset("bull:fresh:de:odd", "a", "b");
        wrote("de:odd");
        assertTrue(reader().refresh(before, written).isEmpty(), "not a dedup key: only a scan classifies it as a full read does");
    }

    /**
     * Job 12 leaves {@code wait} while its hash stays, its hash not told written: a refresh finds 12 an orphan, as a full
     * read does, and the next one carries it on, its hash not written since, as a full read finds it (a job listed nowhere
     * for good: the v1 pause/resume wrappers leave one at each add).
     */
    @Test
    void aJobUnlistedWhileItsHashStaysIsAnOrphanToARefreshAsToAFullRead() {
        QueueSnapshot before = reader().read(Q);
        client().lrem("bull:fresh:wait", 0, "12");
        wrote("wait");
        refreshedAsAFullRead(before, Map.of(AnomalyKind.ORPHAN_HASH, 1L));
        QueueSnapshot orphaned = reader().refresh(before, written).orElseThrow();
        written.clear();
        addJobTold();
        refreshedAsAFullRead(orphaned, Map.of(AnomalyKind.ORPHAN_HASH, 1L));
    }

    /**
     * While v1 serves, a v1 worker fails job it holds after the drain (its writes not told yet): its lock goes and its
     * retry pushes it from {@code active} back to {@code wait}, between the refresh's reads of {@code wait} and
     * {@code active} (here: listed nowhere, as that refresh meets it). The refresh of a live source finds the job an
     * orphan with its logs list, as a full read does, as does the refresh of the pause's read. Once the move is told and
     * done, the next refresh stands with no anomaly.
     */
    @Test
    void aLiveRefreshThatMetARetryHalfWayFindsTheJobAnOrphanAsAFullReadDoes() {
        String id = take();
        log(id, "a line");
        written.clear();
        QueueSnapshot before = reader().read(Q);
        addJobTold();
        client().lrem("bull:fresh:active", 0, id);
        client().del("bull:fresh:" + id + ":lock");
        client().hset("bull:fresh:" + id, "attemptsMade", "1");
        assertSameSource(reader().read(Q), reader().refresh(before, toldToo("active")).orElseThrow()); // under the pause the drain after it tells the move: taken again
        QueueSnapshot live = refreshLiveAsAFullReadThenOnceMoved(before, Map.of(AnomalyKind.ORPHAN_HASH, 1L), () -> {
            client().lpush("bull:fresh:wait", id);
            List.of("wait", "active", id, id + ":lock").forEach(this::wrote);
        });
        assertEquals(Map.of(JobSubKind.LOGS, 1L), live.subkeys(), "its logs list carried, its lock gone");
    }

    /**
     * While v1 serves, a v1 worker takes jobs 1 to 3 from the near end of {@code wait} and finishes them after the drain
     * (their writes not told yet) as a producer adds a job: the refresh of a live source walks {@code wait} past them to
     * job 4 and keeps every other job's facts, reading only those of the added job and of 1 to 3 in {@code completed}.
     */
    @Test
    void aLiveRefreshWalksPastJobsAWorkerTookAfterTheDrain() {
        QueueSnapshot before = reader().read(Q);
        addJobTold();
        for (int taken = 1; taken <= 3; taken++) {
            String id = client().rpop("bull:fresh:wait");
            assertEquals(Integer.toString(taken), id);
            client().zadd("bull:fresh:completed", 2, id);
            client().hset("bull:fresh:" + id, Map.of("processedOn", "2", "finishedOn", "2", "returnvalue", "null"));
        }
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot live = reader().refreshLive(before, written).orElseThrow();
        assertEquals(4L, commandCalls().getOrDefault("hmget", 0L), "the facts of the added job and of the 3 taken");
        assertSameSource(reader().read(Q), live);
    }

    /**
     * While v1 serves, a client removes job 12 after the drain (its writes not told yet) and a producer adds a job: the
     * refresh of a live source leaves 12 out as a full read does, as does the refresh of the pause's read.
     */
    @Test
    void aJobRemovedAfterTheDrainIsLeftOutByALiveRefresh() {
        QueueSnapshot before = reader().read(Q);
        addJobTold();
        client().lrem("bull:fresh:wait", 0, "12");
        client().del("bull:fresh:12");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow()); // under the pause the drain after it tells the removal: taken again
        QueueSnapshot live = reader().refreshLive(before, written).orElseThrow();
        assertSameSource(reader().read(Q), live);
        assertEquals(JOBS, live.jobCount());
    }

    /**
     * As above, job 12 and 13 having logs lists, and a client removing 12 with its list after the drain: the refresh of a
     * live source carries 13's list and no longer 12's; with 12's list left behind (a dangling list, which only a full read
     * reports), it gives nothing.
     */
    @Test
    void aJobRemovedWithItsLogsAfterTheDrainIsLeftOutByALiveRefreshWithItsLogs() {
        client().rpush("bull:fresh:12:logs", "a line");
        client().rpush("bull:fresh:13:logs", "a line");
        QueueSnapshot before = reader().read(Q);
        addJobTold();
        client().lrem("bull:fresh:wait", 0, "12");
        client().del("bull:fresh:12");
        assertTrue(reader().refreshLive(before, written).isEmpty(), "12's logs list dangling");
        client().del("bull:fresh:12:logs");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow()); // under the pause the drain after it tells the removal: taken again
        QueueSnapshot live = reader().refreshLive(before, written).orElseThrow();
        assertEquals(Map.of(JobSubKind.LOGS, 1L), live.subkeys());
        assertSameSource(reader().read(Q), live);
    }

    @Test
    void aJobListedTwiceSinceIsReadInFull() {
        QueueSnapshot before = reader().read(Q);
        client().lpush("bull:fresh:wait", "12");
        client().zadd("bull:fresh:completed", 1, "30");
        wrote("wait");
        wrote("completed");
        assertTrue(reader().refresh(before, written).isEmpty(), "listed twice: an anomaly, which only a full read reports");
        assertEquals(2, reader().read(Q).anomalyCount(AnomalyKind.LISTED_TWICE));
        assertSameSource(reader().read(Q), reader().refreshLive(before, written).orElseThrow());
    }

    /**
     * While v1 serves, a v1 worker takes job 5 as the refresh reads, between its reads of {@code wait} and {@code active}
     * (after the drain: its writes are not told yet), and a producer adds a job: the refresh of a live source keeps 5 as a
     * full read does (listed twice, its lock gone, its facts read in {@code active}, none in {@code wait}); the refresh of
     * the pause's read gives nothing. Once the move is told and done, the next refresh stands with no anomaly.
     */
    @Test
    void aLiveRefreshThatMetAWorkersMoveHalfWayKeepsItAsAFullReadDoes() {
        QueueSnapshot before = reader().read(Q);
        addJobTold();
        refreshMeetingAMoveOfJob5(before);
    }

    /** As above with no job added: {@code wait} is the listing before entry for entry, and 5 still holds no facts there. */
    @Test
    void aLiveRefreshThatMetAWorkersMoveHalfWayBesideAnUnchangedWaitKeepsItAsAFullReadDoes() {
        QueueSnapshot before = reader().read(Q);
        addToZset("delayed", JOBS + 1, JOBS + 1, 1_800_000_000_000L * 4096, Map.of("delay", "1000"));
        List.of("delayed", Integer.toString(JOBS + 1)).forEach(this::wrote);
        refreshMeetingAMoveOfJob5(before);
    }

    private void refreshMeetingAMoveOfJob5(QueueSnapshot before) {
        client().lpush("bull:fresh:active", "5");
        client().hset("bull:fresh:5", "processedOn", "1");
        assertTrue(reader().refresh(before, toldToo("active")).isEmpty(), "the pause's read: a move met half-way is read again");
        refreshLiveAsAFullReadThenOnceMoved(before, Map.of(AnomalyKind.LISTED_TWICE, 1L, AnomalyKind.EXPIRED_LOCK, 1L), () -> {
            client().lrem("bull:fresh:wait", 0, "5");
            wrote("wait");
            complete("5");
        });
    }

    @Test
    void aListingCopiedWholeBesideTheOneBeforeIsListedTwiceAndReadInFull() {
        QueueSnapshot before = reader().read(Q);
        client().sendCommand(Protocol.Command.COPY, "bull:fresh:wait", "bull:fresh:paused");
        client().hset("bull:fresh:meta", "paused", "1");
        wrote("paused");
        wrote("meta");
        assertTrue(reader().refresh(before, written).isEmpty(), "both walks pair every job with the same job before: each listed twice");
        assertEquals(JOBS, reader().read(Q).anomalyCount(AnomalyKind.LISTED_TWICE));
    }

    @Test
    void aListingThePauseRenamedWholeKeepsTheColumnsBeforeAndOneJobWrittenCopiesThem() {
        QueueSnapshot before = reader().read(Q);
        client().rename("bull:fresh:wait", "bull:fresh:paused");
        client().hset("bull:fresh:meta", "paused", "1");
        wrote("wait");
        wrote("paused");
        wrote("meta");
        QueueSnapshot renamed = reader().refresh(before, written).orElseThrow();
        assertSameSource(reader().read(Q), renamed);
        assertTrue(renamed.held(V1State.PAUSED).sharesColumnsOf(before.held(V1State.WAIT)), "the columns kept, not copied");

        client().hset("bull:fresh:7", "data", "{\"edited\":7}");
        written.clear();
        wrote("7");
        QueueSnapshot edited = reader().refresh(renamed, written).orElseThrow();
        assertSameSource(reader().read(Q), edited);
        assertFalse(edited.held(V1State.PAUSED).sharesColumnsOf(renamed.held(V1State.PAUSED)), "a job written: its facts read again");
    }

    @Test
    void aRefreshWithNoListingWrittenKeepsTheListedIdsBeforeAndReadsNoListing() {
        QueueSnapshot before = reader().read(Q);
        client().hset("bull:fresh:7", "data", "{\"edited\":7}");
        wrote("7");
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        Map<String, Long> calls = commandCalls();
        assertEquals(0L, calls.getOrDefault("lrange", 0L) + calls.getOrDefault("llen", 0L), "no listing read: " + calls);
        assertEquals(1L, calls.getOrDefault("hmget", 0L), "the edited job's facts: " + calls);
        assertSameSource(reader().read(Q), refreshed);
        assertSame(before.held(V1State.WAIT).ids(), refreshed.held(V1State.WAIT).ids(), "the listed ids before, kept");
    }

    /**
     * A worker finishing the jobs it holds (as under the pause) writes {@code active} and {@code completed}: a refresh
     * reads those listings again and copies the ids of {@code wait}, unwritten, from the snapshot before.
     */
    @Test
    void aRefreshReadsAgainOnlyTheListingsWrittenSince() {
        String first = take();
        String second = take();
        QueueSnapshot before = reader().read(Q);
        written.clear();
        complete(first);
        complete(second);
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        Map<String, Long> calls = commandCalls();
        assertEquals(0L, calls.getOrDefault("lrange", 0L), "wait (" + (JOBS - 2) + " ids) not read again, active gone: " + calls);
        assertEquals(1L, calls.getOrDefault("zrange", 0L), "completed, read again: " + calls);
        assertSameSource(reader().read(Q), refreshed);
        assertEquals(List.of(Bytes.utf8("3"), Bytes.utf8("4")), refreshed.jobs(V1State.WAIT).stream().limit(2).map(JobFacts::id).toList());
    }

    /**
     * The anomalies met in job hashes (opts that are no JSON, a bad attempts counter, a hash without data, a deferred
     * failure) and in listings' scores: a refresh carries those of the jobs whose facts it keeps (in a listing walked beside
     * the one before, and in one kept whole) and finds again those of the jobs it reads again and of every score, as a full
     * read finds them, in the same order; a job edited out of its anomaly has none, one edited into one has it.
     */
    @Test
    void theAnomaliesOfJobHashesAndScoresAreCarriedOrFoundAgainByARefreshAsByAFullRead() {
        client().hset("bull:fresh:5", "opts", "not json");
        client().hset("bull:fresh:6", "attemptsMade", "-3");
        client().hdel("bull:fresh:8", "data");
        client().hset("bull:fresh:10", "defa", "stalled more than allowable limit");
        client().hset("bull:fresh:12", "opts", "not json either");
        addToZset("delayed", 4001, 4003, 1_800_000_000_000L * 4096, Map.of("delay", "1000"));
        client().zadd("bull:fresh:delayed", 1.5, "4002");
        client().hset("bull:fresh:4003", "opts", "{not json");
        addToZset("prioritized", 5001, 5002, 3L << 32, Map.of("priority", "3"));
        client().zadd("bull:fresh:prioritized", -1, "5001");
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.NON_JSON_OPTS, 3L, AnomalyKind.BAD_ATTEMPTS, 1L, AnomalyKind.HASH_WITHOUT_DATA, 1L,
                AnomalyKind.DEFERRED_FAILURE, 1L, AnomalyKind.BAD_DELAYED_SCORE, 1L, AnomalyKind.BAD_PRIORITIZED_SCORE, 1L),
                before.anomalyCounts());
        assertTrue(before.readInFullBecause().isEmpty(), "anomalies of job hashes and scores: a refresh may start from it");
        pauseAddEditRemove();
        client().hset("bull:fresh:12", "opts", "{}");
        wrote("12");
        client().hset("bull:fresh:3", "ats", "x"); // served before the jobs kept with theirs: listed before them
        wrote("3");
        client().zadd("bull:fresh:prioritized", 2.5, "5002"); // its hash unwritten: kept, its score's anomaly found again
        wrote("prioritized");
        QueueSnapshot refreshed = refreshReadingFactsOf(before, 33, "the 30 added jobs, the three edited (the removed one gone)");
        assertEquals(Map.of(AnomalyKind.NON_JSON_OPTS, 2L, AnomalyKind.BAD_ATTEMPTS, 2L, AnomalyKind.HASH_WITHOUT_DATA, 1L,
                AnomalyKind.DEFERRED_FAILURE, 1L, AnomalyKind.BAD_DELAYED_SCORE, 1L, AnomalyKind.BAD_PRIORITIZED_SCORE, 2L),
                refreshed.anomalyCounts());
        assertSameSource(reader().read(Q), reader().refreshLive(before, written).orElseThrow());
        assertSameSource(reader().read(Q), reader().refresh(refreshed, Set.of()).orElseThrow());
    }

    /**
     * Ids listed without a hash (evicted, or deleted by hand): a refresh reads each such entry again, as it reads a job
     * whose hash was written, and finds them as a full read does, one deleted since too.
     */
    @Test
    void theIdsListedWithoutAHashAreFoundAgainByARefreshAsByAFullRead() {
        client().lpush("bull:fresh:wait", "evicted");
        client().zadd("bull:fresh:delayed", 1_800_000_000_000L * 4096, "gone");
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.MISSING_HASH, 2L), before.anomalyCounts());
        assertTrue(before.readInFullBecause().isEmpty(), "ids listed without a hash: a refresh may start from it");
        pauseAddEditRemove();
        client().del("bull:fresh:12");
        wrote("12");
        refreshedAsAFullRead(before, Map.of(AnomalyKind.MISSING_HASH, 3L));
    }

    /**
     * Jobs in {@code paused} without {@code meta.paused} (stranded by the v1 pause/resume wrappers): a refresh finds them as
     * a full read does, and finds none once the flag is set.
     */
    @Test
    void jobsInPausedWithoutTheFlagAreFoundAgainByARefreshAsByAFullRead() {
        for (int n = 1; n <= 3; n++) {
            client().lrem("bull:fresh:wait", 0, Integer.toString(n));
            client().lpush("bull:fresh:paused", Integer.toString(n));
        }
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.PAUSED_WITHOUT_FLAG, 1L), before.anomalyCounts());
        assertTrue(before.readInFullBecause().isEmpty(), "jobs in paused without the flag: a refresh may start from it");
        addJobTold();
        client().hset("bull:fresh:7", "data", "{\"edited\":7}");
        wrote("7");
        refreshedAsAFullRead(before, Map.of(AnomalyKind.PAUSED_WITHOUT_FLAG, 1L));
        client().hset("bull:fresh:meta", "paused", "1");
        wrote("meta");
        refreshedAsAFullRead(before, Map.of());
    }

    /**
     * What the v1 wrappers leave beside the queue's structures: {@code events} a zset (pause/resume) and a hash at the bare
     * key (the stalled check). A refresh types both again, as a full read does; the events zset gone, it finds none.
     */
    @Test
    void aStructureOfTheWrongTypeAndABareHashAreFoundAgainByARefreshAsByAFullRead() {
        client().zadd("bull:fresh:events", 1, "resumed");
        client().hset("bull:fresh", "opts.maxLenEvents", "10000");
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.WRONG_TYPE, 1L, AnomalyKind.BARE_QUEUE_HASH, 1L), before.anomalyCounts());
        assertTrue(before.readInFullBecause().isEmpty(), "a zset at events, a bare hash: a refresh may start from it");
        pauseAddEditRemove();
        refreshedAsAFullRead(before, before.anomalyCounts());
        client().del("bull:fresh:events");
        wrote("events");
        refreshedAsAFullRead(before, Map.of(AnomalyKind.BARE_QUEUE_HASH, 1L));
    }

    /** A snapshot holding more anomalies of a kind than it keeps the keys of cannot tell which jobs to carry them with. */
    @Test
    void aSnapshotHoldingMoreAnomaliesOfJobHashesThanItKeepsIsReadInFull() {
        for (int n = 1; n <= AnomalyLog.KEPT_PER_KIND + 1; n++) {
            client().hset("bull:fresh:" + n, "opts", "not json");
        }
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.NON_JSON_OPTS, AnomalyLog.KEPT_PER_KIND + 1L), before.anomalyCounts());
        assertEquals(java.util.Optional.of("it holds 1001 anomalies"), before.readInFullBecause());
        assertTrue(reader().refresh(before, written).isEmpty());
        client().hset("bull:fresh:1", "opts", "{}");
        QueueSnapshot fewer = reader().read(Q);
        assertTrue(fewer.readInFullBecause().isEmpty(), "every one kept: " + fewer.readInFullBecause());
    }

    @Test
    void aRefreshOfASnapshotWithAnAnomalyIsReadInFull() {
        client().lpush("bull:fresh:wait", "5"); // listed twice
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.LISTED_TWICE, 1L), before.anomalyCounts());
        assertTrue(reader().refresh(before, written).isEmpty());
    }

    /**
     * The queue read whole holding these {@code anomalies}, from which a refresh may start; then paused, added to, edited
     * and trimmed ({@link #pauseAddEditRemove}), and refreshed as a full read ({@link #refreshedAsAFullRead}). The read.
     */
    private QueueSnapshot readThenRefreshedAsAFullRead(Map<AnomalyKind, Long> anomalies) {
        QueueSnapshot before = reader().read(Q);
        assertEquals(anomalies, before.anomalyCounts());
        assertTrue(before.readInFullBecause().isEmpty(), "a refresh may start from it: " + before.readInFullBecause());
        pauseAddEditRemove();
        refreshedAsAFullRead(before, anomalies);
        return before;
    }

    /**
     * Orphan hashes (v1's pause/resume wrappers leave one at each add: its hash written, its listing refused) are found
     * again by a refresh as a full read finds them, their anomalies listed in the order of their ids: those unwritten since
     * (one of them without data, one with a logs list), one edited, one deleted, one listed since, and a new one.
     */
    @Test
    void orphanHashesAreFoundAgainByARefreshAsByAFullRead() {
        Map<String, String> hash = Map.of("name", "send", "data", "{}", "timestamp", "1700000000000");
        List.of("orphan-e", "orphan-b", "orphan-d", "orphan-a", "orphan-c", "orphan-f").forEach(id -> client().hset("bull:fresh:" + id, hash));
        client().hdel("bull:fresh:orphan-d", "data");
        client().rpush("bull:fresh:orphan-a:logs", "a line");
        QueueSnapshot before = readThenRefreshedAsAFullRead(Map.of(AnomalyKind.ORPHAN_HASH, 6L, AnomalyKind.HASH_WITHOUT_DATA, 1L));
        client().hset("bull:fresh:orphan-b", "data", "{\"edited\":true}");
        client().del("bull:fresh:orphan-c");
        client().lpush("bull:fresh:paused", "orphan-f");
        client().hset("bull:fresh:orphan-g", hash);
        List.of("orphan-b", "orphan-c", "paused", "orphan-g").forEach(this::wrote);
        refreshedAsAFullRead(before, Map.of(AnomalyKind.ORPHAN_HASH, 5L, AnomalyKind.HASH_WITHOUT_DATA, 1L));
    }

    /**
     * A key of no v1 shape (an application's own key under the queue's prefix) is carried by a refresh as the read before
     * met it while it is not written; written since, or a new one, has the queue read in full.
     */
    @Test
    void aKeyOfNoV1ShapeIsCarriedWhileUnwrittenAndReadInFullOnceWritten() {
        client().set("bull:fresh:app:counter", "7");
        QueueSnapshot before = readThenRefreshedAsAFullRead(Map.of(AnomalyKind.UNKNOWN_KEY, 1L));
        assertTrue(reader().refresh(before, toldToo("app:counter")).isEmpty(), "the key written since: read in full");
        client().set("bull:fresh:app:other", "1");
        assertTrue(reader().refresh(before, toldToo("app:other")).isEmpty(), "a new one: read in full");
    }

    /**
     * The per-job keys of jobs whose hash is gone (evicted, or deleted by hand: a logs list and a lock, a flow's
     * dependencies set) are carried by a refresh as the read before met them while no key of their job was written and
     * their id is listed nowhere; one of their job's keys written since, the id listed again, or a new such key, has the
     * queue read in full.
     */
    @Test
    void thePerJobKeysOfJobsGoneAreCarriedWhileNoKeyOfTheirJobIsWritten() {
        client().rpush("bull:fresh:evicted:logs", "a line");
        client().set("bull:fresh:evicted:lock", "a worker's token");
        client().sadd("bull:fresh:gone:dependencies", "bull:fresh:1");
        QueueSnapshot before = readThenRefreshedAsAFullRead(Map.of(AnomalyKind.DANGLING_SUBKEY, 2L));

        client().hset("bull:fresh:evicted", Map.of("name", "send", "data", "{}", "opts", "{}", "timestamp", "1700000000000"));
        assertTrue(reader().refresh(before, toldToo("evicted")).isEmpty(), "its hash written again: an orphan now, read in full");
        client().lpush("bull:fresh:paused", "evicted");
        assertTrue(reader().refresh(before, toldToo("paused")).isEmpty(), "its id listed again, its hash not told: read in full");
        client().lrem("bull:fresh:paused", 0, "evicted");
        client().del("bull:fresh:evicted");
        String reported = before.anomalies(AnomalyKind.DANGLING_SUBKEY).stream().map(a -> a.key().utf8())
                .filter(key -> key.startsWith("bull:fresh:evicted:")).findFirst().orElseThrow().substring("bull:fresh:".length());
        String other = reported.endsWith(":lock") ? "evicted:logs" : "evicted:lock";
        assertTrue(reader().refresh(before, toldToo(other)).isEmpty(), "another key of its job written: read in full");
        client().del("bull:fresh:" + reported);
        assertTrue(reader().refresh(before, toldToo(reported)).isEmpty(), "the key reported gone, the other left: read in full");
        client().del("bull:fresh:" + other);
        written.addAll(List.of(Q.key(reported), Q.key(other)));
        refreshedAsAFullRead(before, Map.of(AnomalyKind.DANGLING_SUBKEY, 1L)); // the flow's set is left
        client().rpush("bull:fresh:other:logs", "a line");
        assertTrue(reader().refresh(before, toldToo("other:logs")).isEmpty(), "a new one: read in full");
    }

    /**
     * A job scheduler's record the {@code repeat} zset no longer lists (an older BullMQ's removal of a repeatable job left
     * it) is carried by a refresh as the read before met it, in its place among the keys of no v1 shape, while its record
     * is not written and its id not listed again; either has the queue read in full.
     */
    @Test
    void aStaleSchedulersRecordIsCarriedWhileUnwrittenAndUnlisted() {
        client().hset("bull:fresh:repeat:gone", Map.of("every", "1000", "name", "tick"));
        client().set("bull:fresh:app:counter", "7");
        QueueSnapshot before = readThenRefreshedAsAFullRead(Map.of(AnomalyKind.STALE_SCHEDULER, 1L, AnomalyKind.UNKNOWN_KEY, 1L));
        client().zadd("bull:fresh:repeat", 1_800_000_000_000d, "gone");
        assertTrue(reader().refresh(before, toldToo("repeat")).isEmpty(), "its id listed again: read in full");
        client().zrem("bull:fresh:repeat", "gone");
        client().hset("bull:fresh:repeat:gone", "every", "2000");
        assertTrue(reader().refresh(before, toldToo("repeat:gone")).isEmpty(), "its record written: read in full");
    }

    /** Jobs {@code from} to {@code to}, each written as a hash with {@code fields} and added to {@code zset} at {@code score + n}. */
    private static void addToZset(String zset, long from, long to, long score, Map<String, String> fields) {
        for (long n = from; n <= to; n++) {
            Map<String, String> hash = new java.util.HashMap<>(Map.of("name", "send", "data", "{}", "opts", "{}",
                    "timestamp", Long.toString(1_700_000_000_000L + n)));
            hash.putAll(fields);
            client().hset("bull:fresh:" + n, hash);
            client().zadd("bull:fresh:" + zset, score + n, Long.toString(n));
        }
    }

    @Test
    void theJobsOfZsetsThatStayedUnwrittenKeepTheirFactsThroughARefresh() {
        addToZset("completed", 3001, 3400, 1_700_000_100_000L, Map.of("finishedOn", "1700000100000", "returnvalue", "null"));
        addToZset("delayed", 4001, 4300, 1_800_000_000_000L * 4096, Map.of("delay", "1000"));
        addToZset("prioritized", 5001, 5200, 3L << 32, Map.of("priority", "3"));
        QueueSnapshot before = reader().read(Q);
        client().hset("bull:fresh:3100", "returnvalue", "{\"edited\":true}");
        wrote("3100");
        complete(client().rpop("bull:fresh:wait"));
        wrote("wait");
        addToZset("delayed", 4500, 4500, 1_800_000_000_000L * 4096 - 4500 + 4150, Map.of("delay", "2000"));
        wrote("4500");
        wrote("delayed");
        client().zrem("bull:fresh:prioritized", "5100");
        client().del("bull:fresh:5100");
        wrote("5100");
        wrote("prioritized");
        refreshReadingFactsOf(before, 3, "the edited, the newly completed and the new delayed job");
    }

    /** {@code before} refreshed with the keys written since, having read the facts of {@code jobs} jobs ({@code which}): a full read's equal. */
    private QueueSnapshot refreshReadingFactsOf(QueueSnapshot before, long jobs, String which) {
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        Map<String, Long> calls = commandCalls();
        assertEquals(jobs, calls.getOrDefault("hmget", 0L), which + ": " + calls);
        assertSameSource(reader().read(Q), refreshed);
        return refreshed;
    }

    /**
     * A read that met a v1 worker's move half-way: job 5 listed in {@code wait} and in {@code active}, its lock gone (the
     * worker took it between the reads of the two listings and finished it before its lock was read). BullMQ's getState
     * probes {@code active} first, so {@code wait} holds no facts for 5: every job served after it sits one place
     * earlier among the facts than among the entries.
     */
    private QueueSnapshot readMidMove() {
        client().lpush("bull:fresh:active", "5");
        client().hset("bull:fresh:5", "processedOn", "1");
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.LISTED_TWICE, 1L, AnomalyKind.EXPIRED_LOCK, 1L), before.anomalyCounts());
        return before;
    }

    @Test
    void aReadThatMetAWorkersMoveHalfWayIsRefreshedOnceTheFeedToldItsJobWritten() {
        QueueSnapshot before = readMidMove();
        client().lrem("bull:fresh:wait", 0, "5");
        wrote("wait");
        complete("5");
        client().hset("bull:fresh:1500", "data", "{\"edited\":1500}");
        wrote("1500");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        assertSameSource(reader().read(Q), refreshed);
        assertEquals(List.of(Bytes.utf8("4"), Bytes.utf8("6")), refreshed.jobs(V1State.WAIT).stream().skip(3).limit(2)
                .map(JobFacts::id).toList(), "the jobs after 5 kept with their own facts");
    }

    /**
     * The read met job 5 in {@code wait} and in {@code completed} (a v1 worker finished it as the read went); since, it
     * left {@code wait}: the walk of {@code completed} pairs it there, so it is listed now, and the refresh stands.
     */
    @Test
    void aJobReadInTwoPlacesAndNowInTheOneAWalkPairsIsListedNow() {
        client().zadd("bull:fresh:completed", 1, "5");
        client().hset("bull:fresh:5", Map.of("finishedOn", "1", "returnvalue", "null"));
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.LISTED_TWICE, 1L), before.anomalyCounts());
        client().lrem("bull:fresh:wait", 0, "5");
        wrote("wait");
        wrote("5");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
    }

    @Test
    void aReadThatMetAnIdInTwoPlacesWhoseJobTheFeedDidNotTellWrittenIsReadInFullAtOnce() {
        QueueSnapshot before = readMidMove();
        client().lrem("bull:fresh:wait", 0, "5");
        wrote("wait");
        client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        assertTrue(reader().refresh(before, written).isEmpty(), "an anomaly on a job unwritten since: damage, not a move");
        Map<String, Long> calls = commandCalls();
        assertEquals(0L, calls.getOrDefault("lrange", 0L) + calls.getOrDefault("hmget", 0L), "nothing read: " + calls);
    }

    @Test
    void anIdStillListedTwiceAfterAReadThatMetItSoIsReadInFull() {
        client().lpush("bull:fresh:wait", "5");
        QueueSnapshot before = reader().read(Q);
        assertEquals(1, before.anomalyCount(AnomalyKind.LISTED_TWICE));
        client().hset("bull:fresh:5", "data", "{\"edited\":5}");
        wrote("5");
        assertTrue(reader().refresh(before, written).isEmpty(), "listed twice still: an anomaly, which only a full read reports");
    }

    @Test
    void aReadThatMetAListedJobsHashGoneIsRefreshedOnceTheJobLeftItsListing() {
        client().del("bull:fresh:5");
        QueueSnapshot before = reader().read(Q);
        assertEquals(Map.of(AnomalyKind.MISSING_HASH, 1L), before.anomalyCounts());
        wrote("5");
        client().lrem("bull:fresh:wait", 0, "5");
        wrote("wait");
        QueueSnapshot refreshed = reader().refresh(before, written).orElseThrow();
        assertSameSource(reader().read(Q), refreshed);
        assertEquals(JOBS - 1, refreshed.jobCount());
    }

    /**
     * A v1 worker finishes job 5 and removes it after the read's key scan met its hash and before its facts were read:
     * the read counts the job hashes it read facts of, and the refresh from it stands once the feed told 5 written.
     */
    @Test
    void aJobRemovedBetweenTheScanAndItsFactsIsNotCountedAndTheReadIsRefreshed() {
        QueueSnapshot before = readScanning(() -> {
            client().lrem("bull:fresh:wait", 0, "5");
            client().del("bull:fresh:5");
        }, key -> { });
        assertEquals(Map.of(), before.anomalyCounts());
        assertEquals(JOBS - 1L, before.keyClasses().get("job-hash"), "the hash gone before its facts not counted");
        wrote("wait");
        wrote("5");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
    }

    /**
     * Every job removed between the scan and its facts (its listing and its hash): no job hash is counted, not a count
     * of none, so a refresh told the removals stands as for any job removed so.
     */
    @Test
    void everyJobRemovedBetweenTheScanAndItsFactsLeavesNoCountAndTheReadIsRefreshed() {
        QueueSnapshot before = readScanning(() -> {
            client().del("bull:fresh:wait");
            for (int n = 1; n <= JOBS; n++) {
                client().del("bull:fresh:" + n);
                wrote(Integer.toString(n));
            }
        }, key -> { });
        assertEquals(0, before.jobCount());
        assertFalse(before.keyClasses().containsKey("job-hash"), before.keyClasses().toString());
        wrote("wait");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
    }

    /**
     * An orphan hash (listed nowhere) the read resolved is removed before its facts are read (here: as the facts of job
     * {@code a:1}, read before the orphans', ask which queue owns its key): it is not counted as a job hash, as a listed
     * job's hash gone by then is not, so a refresh told it written stands.
     */
    @Test
    void anOrphanRemovedBeforeItsFactsIsNotCountedAndTheReadIsRefreshed() {
        V1QueueGenerator.addWaiting(client(), "fresh", JOBS + 1, JOBS + 1, 60);
        client().rename("bull:fresh:" + (JOBS + 1), "bull:fresh:a:1");
        client().lset("bull:fresh:wait", 0, "a:1");
        client().hset("bull:fresh:orphan-1", Map.of("name", "send", "data", "{}", "timestamp", "1"));
        QueueSnapshot before = readScanning(() -> { }, key -> {
            if (key.equals(Q.jobKey(Bytes.utf8("a:1")))) {
                client().del("bull:fresh:orphan-1");
            }
        });
        assertEquals(Map.of(), before.anomalyCounts());
        assertEquals(JOBS + 1L, before.keyClasses().get("job-hash"), "the orphan's hash gone before its facts not counted");
        wrote("orphan-1");
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
    }

    /**
     * A producer adds a job after the read and a v1 worker finishes and removes it before the refresh: the feed tells its
     * hash written, it is listed neither now nor before and is gone, so the refresh stands; a job added since and listed
     * nowhere while its hash stays is an orphan to the refresh as to a full read.
     */
    @Test
    void aJobAddedAndRemovedBetweenTwoReadsIsNoObstacleAndAnUnlistedNewHashAnOrphan() {
        QueueSnapshot before = reader().read(Q);
        String added = addJobToldThenUnlistIt();
        client().del("bull:fresh:" + added);
        assertSameSource(reader().read(Q), reader().refresh(before, written).orElseThrow());
        client().hset("bull:fresh:" + added, Map.of("name", "send", "data", "{}", "timestamp", "1"));
        refreshedAsAFullRead(before, Map.of(AnomalyKind.ORPHAN_HASH, 1L));
    }

    /**
     * A full read whose keys come from a scan as a reader's own do, running {@code afterScan} once the key scan ended and
     * {@code ownerAsked} with each key the read asks the owner of (a job whose id holds a colon, as its facts are read).
     */
    private static QueueSnapshot readScanning(Runnable afterScan, java.util.function.Consumer<Bytes> ownerAsked) {
        QueueBases bases = new QueueBases(Set.of(Q));
        KeySource<QueueRef> scan = new SharedScan<>(client(), bases::owner, q -> q.prefix().concat(":"), QueueRef::base, 0);
        KeySource<QueueRef> acting = new KeySource<>() {
            @Override
            public void keysOf(QueueRef queue, java.util.function.Consumer<List<Bytes>> batches) {
                scan.keysOf(queue, batches);
                afterScan.run();
            }

            @Override
            public java.util.Optional<QueueRef> owner(Bytes key) {
                ownerAsked.accept(key);
                return scan.owner(key);
            }
        };
        return new QueueSnapshotReader(client(), acting).withoutPayloadDigests().read(Q);
    }

    static void assertSameSource(QueueSnapshot full, QueueSnapshot refreshed) {
        assertEquals(full.structures(), refreshed.structures());
        assertEquals(full.meta(), refreshed.meta());
        assertEquals(full.listed(), refreshed.listed());
        assertEquals(full.keyClasses(), refreshed.keyClasses());
        assertEquals(full.subkeys(), refreshed.subkeys());
        assertEquals(full.anomalyCounts(), refreshed.anomalyCounts());
        assertEquals(full.anomalies(), refreshed.anomalies(), "each anomaly kept, in the order met");
        assertEquals(full.legacyMarkers(), refreshed.legacyMarkers());
        assertEquals(Set.copyOf(full.schedulers()), Set.copyOf(refreshed.schedulers()), "the job schedulers");
        assertEquals(dedupKeys(full), dedupKeys(refreshed), "the dedup keys, each with its job and whether it has a TTL");
        assertEquals(facts(full), facts(refreshed), "every job's facts, in rank order");
        assertEquals(full.flowLinks(), refreshed.flowLinks(), "each flow child's link, in rank order");
        assertEquals(full.flowParents().toString(), refreshed.flowParents().toString(), "the flow parents");
    }

    /** Each job's facts, a lock's TTL as whether there is one (it runs on between two reads). */
    private static List<String> facts(QueueSnapshot s) {
        return s.jobsInRankOrder().stream().map(j -> j.toString().replaceAll("lockTtlMs=[1-9][0-9]*", "lockTtlMs=held")).toList();
    }

    /** Each dedup key as its id, its job's id and its TTL (-1: none; 0 for any TTL, which runs on between two reads). */
    private static Set<String> dedupKeys(QueueSnapshot s) {
        return Set.copyOf(s.dedupKeys().stream().map(e -> e.dedupId().display() + " " + e.jobId().display() + " "
                + Math.min(0, e.pttlMs())).toList());
    }

    /** Calls per command since the last CONFIG RESETSTAT ({@code INFO commandstats}). */
    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new java.util.TreeMap<>();
        for (String line : client().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String rest = line.substring(line.indexOf("calls=") + "calls=".length());
                calls.put(name, Long.parseLong(rest.substring(0, rest.indexOf(','))));
            }
        }
        return calls;
    }
}
