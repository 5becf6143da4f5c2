package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;

/**
 * A queue larger than every read batch (ids are read 1000 at a time, facts 256 at a time,
 * payloads by byte budget): ranks stay contiguous, positions follow serve order, and nothing is
 * skipped or read twice across batch boundaries.
 */
class LargeQueueTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    static final int WAITING = 2600;
    static final int DELAYED = 1100;

    @Test
    void readsAcrossBatchBoundariesInServeOrder() {
        QueueRef q = QueueRef.of("bull", "big");
        long t0 = 1_800_000_000_000L;
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            p.hset(q.key(QueueStructure.META).raw(), Map.of("opts.maxLenEvents".getBytes(StandardCharsets.UTF_8), "10000".getBytes(StandardCharsets.UTF_8)));
            for (int i = 1; i <= WAITING + DELAYED; i++) {
                String id = Integer.toString(i);
                p.hset(q.jobKey(Bytes.utf8(id)).raw(), job(id, t0 + i));
                if (i <= WAITING) {
                    p.lpush(q.key(QueueStructure.WAIT).raw(), id.getBytes(StandardCharsets.UTF_8));
                } else {
                    long due = t0 + 60_000 + (i % 7); // many jobs share a due ms: sequences order them
                    p.zadd(q.key(QueueStructure.DELAYED).raw(), due * 4096 + i % 4096, id.getBytes(StandardCharsets.UTF_8));
                }
            }
            p.sync();
        }
        QueueSnapshot snap = new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(q))).read(q);

        assertEquals(WAITING + DELAYED, snap.jobCount());
        assertTrue(snap.anomalies().isEmpty(), snap.anomalies().toString());
        List<JobFacts> all = snap.jobsInRankOrder();
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i + 1, all.get(i).rank());
        }
        List<JobFacts> waiting = snap.jobs(V1State.WAIT);
        for (int i = 0; i < WAITING; i++) {
            assertEquals(Integer.toString(i + 1), waiting.get(i).id().display(), "FIFO: the first added is served first");
            assertEquals(i, waiting.get(i).position());
        }
        List<JobFacts> delayed = snap.jobs(V1State.DELAYED);
        List<Double> scores = new ArrayList<>();
        delayed.forEach(j -> scores.add(j.score()));
        List<Double> sorted = new ArrayList<>(scores);
        sorted.sort(null);
        assertEquals(sorted, scores, "delayed by due time, then sequence");
        JobFacts some = delayed.get(0);
        assertEquals(PayloadDigest.sha256(data(some.id().display())), some.payloadSha256());
        assertEquals(ScoreCodec.dueAt(some.score()), some.dueAt());
    }

    private static Map<byte[], byte[]> job(String id, long timestamp) {
        return Map.of(b("name"), b("n"), b("data"), data(id), b("opts"), b("{}"), b("timestamp"), b(Long.toString(timestamp)),
                b("delay"), b("0"), b("priority"), b("0"));
    }

    private static byte[] data(String id) {
        return b("{\"id\":\"" + id + "\",\"pad\":\"" + "p".repeat(200) + "\"}");
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
