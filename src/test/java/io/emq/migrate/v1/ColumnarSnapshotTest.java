package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;

/**
 * The columnar snapshot keeps the record semantics of one {@link JobFacts} per job: ids listed
 * twice (across states, three times, twice in one list) resolve as BullMQ's getState does, missing
 * hashes keep their serve position, orphans come last by id, sparse facts come back on the right
 * job, and every view agrees with the rank order and with {@link QueueSnapshot#job}.
 */
class ColumnarSnapshotTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    static final QueueRef Q = QueueRef.of("bull", "mix");

    @Test
    void viewsFollowServeOrderAndGetStateForIdsListedTwice() {
        load();
        QueueSnapshot snap = read(new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))));

        assertEquals(List.of("1", "2", "3"), ids(snap.jobs(V1State.WAIT)),
                "x is completed, t delayed, gone has no hash, and 2 is one job though pushed twice");
        assertEquals(List.of(0L, 1L, 3L), snap.jobs(V1State.WAIT).stream().map(JobFacts::position).toList(),
                "positions skip ids listed first elsewhere or earlier, not missing hashes");
        assertEquals(List.of(), ids(snap.jobs(V1State.PAUSED)));
        assertEquals(List.of("d", "t"), ids(snap.jobs(V1State.DELAYED)), "delayed by score; t is delayed for getState");
        assertEquals(List.of("c1", "x"), ids(snap.jobs(V1State.COMPLETED)));
        assertEquals(List.of("o1", "o2"), ids(snap.jobs(V1State.UNKNOWN)));
        assertEquals(List.of("a", "1", "2", "3", "d", "t", "c1", "x", "o1", "o2"), ids(snap.jobsInRankOrder()));
        assertEquals(7, snap.listedCount(V1State.WAIT));

        List<JobFacts> all = snap.jobsInRankOrder();
        List<JobFacts> byState = new ArrayList<>();
        for (V1State s : V1State.RANK_ORDER) {
            byState.addAll(snap.jobs(s));
        }
        assertEquals(all, byState, "the state views are slices of the rank order");
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i + 1, all.get(i).rank());
        }
        for (JobFacts j : all) {
            assertEquals(j, snap.job(j.id()).orElseThrow());
        }
        assertEquals(List.of(all.get(2), all.get(5), all.get(9)), snap.jobsWithIds(Set.of(Bytes.utf8("o2"), Bytes.utf8("2"),
                Bytes.utf8("t"), Bytes.utf8("gone"))), "the jobs of those ids, in rank order (gone has no hash)");
        Bytes likeTwo = Bytes.of(new byte[] {(byte) 0xE4, (byte) 0xF4});
        assertEquals(Bytes.utf8("2").hashCode(), likeTwo.hashCode());
        assertEquals(List.of(), snap.jobsWithIds(Set.of(likeTwo)), "an id whose hash is a job's is not that job");

        assertEquals(Map.of(AnomalyKind.LISTED_TWICE, 3L, AnomalyKind.MISSING_HASH, 1L, AnomalyKind.EXPIRED_LOCK, 1L,
                AnomalyKind.ORPHAN_HASH, 2L, AnomalyKind.NON_JSON_DATA, 1L), snap.anomalyCounts());
        assertEquals("listed in delayed and in wait; BullMQ's getState reports delayed",
                snap.anomalies(AnomalyKind.LISTED_TWICE).stream().filter(a -> a.key().equals(Q.jobKey(Bytes.utf8("t"))))
                        .findFirst().orElseThrow().reason());
        assertEquals("listed more than once in wait; migrated once, at its first place in serve order",
                snap.anomalies(AnomalyKind.LISTED_TWICE).stream().filter(a -> a.key().equals(Q.jobKey(Bytes.utf8("2"))))
                        .findFirst().orElseThrow().reason());

        JobFacts a = snap.job(Bytes.utf8("a")).orElseThrow();
        assertEquals(Bytes.utf8("bull:other:p"), a.parentKey());
        assertEquals(Bytes.utf8("every-minute"), a.repeatJobKey());
        assertEquals(3, a.attempts());
        assertEquals(-2, a.lockTtlMs());
        assertEquals("send", a.name());
        JobFacts three = snap.job(Bytes.utf8("3")).orElseThrow();
        assertTrue(three.lifo());
        assertNull(three.name());
        assertNull(three.parentKey());
        assertFalse(three.payloadJson());
        assertEquals(PayloadDigest.sha256(b("not json")), three.payloadSha256());
        JobFacts d = snap.job(Bytes.utf8("d")).orElseThrow();
        assertEquals(1_800_000_000_000L, d.dueAt());
        assertEquals(JobLayout.ELIXIR, d.layout());
        assertEquals(7, d.priority());
        assertEquals(1_800_000_000_001L, snap.job(Bytes.utf8("x")).orElseThrow().finishedOn());
    }

    @Test
    void withoutDigestsOnlyThePayloadContentIsUnknown() {
        load();
        QueueSnapshot digested = read(new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))));
        QueueSnapshot measured = read(new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))).withoutPayloadDigests());
        assertTrue(digested.payloadsDigested());
        assertFalse(measured.payloadsDigested());
        List<JobFacts> blind = digested.jobsInRankOrder().stream().map(j -> withoutDigest(j, false)).toList();
        assertEquals(blind, measured.jobsInRankOrder());
        assertEquals(0, measured.anomalyCount(AnomalyKind.NON_JSON_DATA));
        assertEquals(digested.anomalyCount(AnomalyKind.LISTED_TWICE), measured.anomalyCount(AnomalyKind.LISTED_TWICE));
    }

    @Test
    void withoutHashesOnlyTheDigestsAreUnknown() {
        load();
        QueueSnapshot digested = read(new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))));
        QueueSnapshot checked = read(new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))).withoutPayloadHashes());
        assertFalse(checked.payloadsDigested());
        assertEquals(PayloadRead.CHECKED, checked.payloadRead());
        List<JobFacts> unhashed = digested.jobsInRankOrder().stream().map(j -> withoutDigest(j, j.payloadJson())).toList();
        assertEquals(unhashed, checked.jobsInRankOrder());
        assertTrue(checked.jobsInRankOrder().stream().anyMatch(JobFacts::payloadJson), "JSON payloads are told apart");
        assertEquals(1, checked.anomalyCount(AnomalyKind.NON_JSON_DATA));
        assertEquals(digested.anomalies(), checked.anomalies());
    }

    /** The job without its payload digest and with this JSON-ness, all else as read. */
    private static JobFacts withoutDigest(JobFacts j, boolean json) {
        return new JobFacts(j.id(), j.state(), j.rank(), j.position(), j.score(), j.layout(), j.name(), j.createdAt(),
                j.priority(), j.delayMs(), j.dueAt(), j.lifo(), j.attempts(), j.attemptsMade(), j.payloadBytes(),
                null, json, j.lockTtlMs(), j.parentKey(), j.repeatJobKey(), j.finishedOn());
    }

    private static QueueSnapshot read(QueueSnapshotReader reader) {
        return reader.read(Q);
    }

    /** Serve order of wait: 1, x, 2, gone, 2, t, 3 (LPUSHed in that order, served from the tail). */
    private static void load() {
        SERVER.client().flushAll();
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            for (String id : List.of("1", "x", "2", "gone", "2", "t", "3")) {
                p.lpush(Q.key(QueueStructure.WAIT).raw(), b(id));
            }
            p.lpush(Q.key(QueueStructure.PAUSED).raw(), b("t"));
            p.zadd(Q.key(QueueStructure.DELAYED).raw(), 1_800_000_000_000L * 4096 + 1, b("d"));
            p.zadd(Q.key(QueueStructure.DELAYED).raw(), 1_800_000_000_000L * 4096 + 2, b("t"));
            p.zadd(Q.key(QueueStructure.COMPLETED).raw(), 1, b("c1"));
            p.zadd(Q.key(QueueStructure.COMPLETED).raw(), 5, b("x"));
            p.lpush(Q.key(QueueStructure.ACTIVE).raw(), b("a"));
            p.hset(Q.key(QueueStructure.META).raw(), Map.of(b("paused"), b("1")));
            for (String id : List.of("1", "2", "t", "c1", "o2", "o1")) {
                p.hset(Q.jobKey(Bytes.utf8(id)).raw(), job("send", "{}", "{\"n\":1}"));
            }
            Map<byte[], byte[]> x = job("send", "{}", "{}");
            x.put(b("finishedOn"), b("1800000000001"));
            p.hset(Q.jobKey(Bytes.utf8("x")).raw(), x);
            Map<byte[], byte[]> three = job(null, "{\"lifo\":true}", "not json");
            p.hset(Q.jobKey(Bytes.utf8("3")).raw(), three);
            p.hset(Q.jobKey(Bytes.utf8("d")).raw(), job("send", "{\"pri\":7,\"del\":5}", "{}"));
            Map<byte[], byte[]> a = job("send", "{}", "{}");
            a.put(b("parentKey"), b("bull:other:p"));
            a.put(b("rjk"), b("every-minute"));
            a.put(b("ats"), b("3"));
            p.hset(Q.jobKey(Bytes.utf8("a")).raw(), a);
            p.sync();
        }
    }

    private static Map<byte[], byte[]> job(String name, String opts, String data) {
        Map<byte[], byte[]> h = new LinkedHashMap<>();
        if (name != null) {
            h.put(b("name"), b(name));
        }
        h.put(b("data"), b(data));
        h.put(b("opts"), b(opts));
        h.put(b("timestamp"), b("1700000000000"));
        return h;
    }

    private static List<String> ids(List<JobFacts> jobs) {
        return jobs.stream().map(j -> j.id().display()).toList();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
