package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A read of payloads on a cluster: the lengths asked ahead go to the master that holds the queue's slot (its keys
 * share a hash tag), and every job is read with its facts and payload checked, as on one server.
 */
class ClusterPayloadReadTest {
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();
    private static final QueueRef Q = QueueRef.of("{bull}", "cq");
    private static final int JOBS = QueueSnapshotReader.JOB_BATCH + 200;

    @Test
    void everyJobIsReadWithItsPayloadFromTheQueuesMaster() {
        UnifiedJedis client = CLUSTER.client();
        List<Bytes> keys = new ArrayList<>();
        for (int i = 1; i <= JOBS; i++) {
            String id = Integer.toString(i);
            client.lpush(Q.key(QueueStructure.WAIT).display(), id);
            Bytes key = Q.jobKey(Bytes.utf8(id));
            client.hset(key.display(), Map.of("name", "send", "timestamp", "1", "data", i == 7 ? "not json" : "{\"n\":" + i + "}"));
            keys.add(key);
        }
        keys.add(Q.key(QueueStructure.WAIT));
        KeySource<QueueRef> held = (queue, batches) -> batches.accept(keys);

        QueueSnapshot snap = new QueueSnapshotReader(client, held).withoutPayloadHashes().read(Q);

        List<JobFacts> jobs = snap.jobs(V1State.WAIT);
        assertEquals(JOBS, jobs.size());
        assertEquals("1", jobs.get(0).id().display());
        assertEquals(List.of("non-json-data {bull}:cq:7"),
                snap.anomalies().stream().map(a -> a.kind().wireName() + " " + a.key().display()).toList());
        JobFacts last = snap.job(Bytes.utf8(Integer.toString(JOBS))).orElseThrow();
        assertEquals(("{\"n\":" + JOBS + "}").length(), last.payloadBytes());
        assertTrue(last.payloadJson());
    }
}
