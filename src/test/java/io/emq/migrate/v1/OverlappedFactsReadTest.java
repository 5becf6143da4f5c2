package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.resps.Slowlog;

/**
 * A reader that reads payloads sends a batch's first {@code HMGET} pipeline, and asks for the next batch's
 * payload lengths, before it adds the batch before (the server answers them while the reader works on that
 * one), and still adds facts and anomalies batch by
 * batch, in serve order, a payload larger than a pipeline's budget in a pipeline of its own. The server's
 * slow log, every command logged, is the order the server ran them in.
 */
class OverlappedFactsReadTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final QueueRef Q = QueueRef.of("bull", "ovl");
    private static final int JOBS = 2 * QueueSnapshotReader.JOB_BATCH + 500;
    private static final int LARGE = (int) QueueSnapshotReader.PAYLOAD_BATCH_BYTES + 1000;

    @AfterEach
    void quietSlowLog() {
        CommandLog.stop(SERVER.client());
    }

    @Test
    void theNextBatchIsAskedForBeforeTheOneBeforeIsAdded() {
        SERVER.client().flushAll();
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            for (int i = 1; i <= JOBS; i++) {
                String id = Integer.toString(i);
                p.lpush(Q.key(QueueStructure.WAIT).raw(), b(id));
                if (i != 5 && i != 1200) { // two listed jobs without a hash, one in each batch
                    String data = i == 10 ? "\"" + "x".repeat(LARGE) + "\"" : i == 20 ? "not json" : "{\"n\":" + i + "}";
                    p.hset(Q.jobKey(Bytes.utf8(id)).raw(), Map.of(b("name"), b("send"), b("timestamp"), b("1"), b("data"), b(data)));
                }
            }
            p.sync();
        }
        CommandLog.start(SERVER.client());

        QueueSnapshot snap = new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))).withoutPayloadHashes().read(Q);

        List<Slowlog> log = CommandLog.entries(SERVER.client());
        // each batch's last job: a pipeline left to be read later is sent whole, not only what filled Jedis's buffer
        long askedForTheNext = firstId(log, "HMGET", Q.jobKey(Bytes.utf8(Integer.toString(2 * QueueSnapshotReader.JOB_BATCH))));
        long typedInTheFirst = firstId(log, "TYPE", Q.jobKey(Bytes.utf8("5")));
        assertTrue(askedForTheNext < typedInTheFirst, "the second batch's HMGET (" + askedForTheNext
                + ") before the first batch's missing hash is typed as it is added (" + typedInTheFirst + ")");
        long measuredTheOneAfter = firstId(log, "HSTRLEN", Q.jobKey(Bytes.utf8(Integer.toString(JOBS))));
        assertTrue(measuredTheOneAfter < typedInTheFirst, "the third batch's payload lengths (" + measuredTheOneAfter
                + ") asked for before the first batch's missing hash is typed as it is added (" + typedInTheFirst + ")");

        assertEquals(List.of("missing-hash bull:ovl:5", "non-json-data bull:ovl:20", "missing-hash bull:ovl:1200"),
                snap.anomalies().stream().map(a -> a.kind().wireName() + " " + a.key().display()).toList(),
                "anomalies in serve order, batch by batch");
        List<JobFacts> jobs = snap.jobs(V1State.WAIT);
        assertEquals(JOBS - 2, jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            int id = i + 1 + (i >= 4 ? 1 : 0) + (i >= 1198 ? 1 : 0);
            assertEquals(Integer.toString(id), jobs.get(i).id().display());
        }
        JobFacts large = snap.job(Bytes.utf8("10")).orElseThrow();
        assertEquals(LARGE + 2, large.payloadBytes());
        assertTrue(large.payloadJson());
    }

    /** The id of the first logged command {@code name} on {@code key}. */
    private static long firstId(List<Slowlog> log, String name, Bytes key) {
        return log.stream().filter(e -> e.getArgs().size() > 1 && e.getArgs().get(0).equalsIgnoreCase(name)
                        && e.getArgs().get(1).equals(key.display()))
                .mapToLong(Slowlog::getId).findFirst().orElseThrow(() -> new AssertionError("no " + name + " " + key.display()));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
