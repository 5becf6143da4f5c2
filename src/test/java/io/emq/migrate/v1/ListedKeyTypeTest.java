package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The queue's scan does not ask the type of listed job keys; a listed key that is not a hash is found
 * when its facts are read and still reported once, counted as an anomaly (not a job hash), and listed
 * where the scan met it among the anomalies the scan found.
 */
class ListedKeyTypeTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void clean() {
        SERVER.client().flushAll();
    }

    @Test
    void aListedKeyThatIsNotAHashIsReportedOnceWhereTheScanMetIt() {
        UnifiedJedis c = SERVER.client();
        c.hset("bull:q:ok", "data", "{}");
        c.rpush("bull:q:wait", "ok");
        for (int i = 0; i < 8; i++) {
            c.set("bull:q:str" + i, "not a job"); // listed, but a string: wrong-job-type
            c.rpush("bull:q:wait", "str" + i);
            c.set("bull:q:stray" + i, "x"); // unlisted string: unknown-key
        }
        QueueRef q = QueueRef.of("bull", "q");
        QueueSnapshot snap = new QueueSnapshotReader(c, new QueueBases(Set.of(q))).read(q);

        assertEquals(8, snap.anomalyCount(AnomalyKind.WRONG_JOB_TYPE));
        assertEquals(8, snap.anomalyCount(AnomalyKind.UNKNOWN_KEY));
        assertEquals(1L, snap.keyClasses().get("job-hash"), "only the hash is a job hash");
        assertEquals(16L, snap.keyClasses().get("anomaly"));
        assertEquals(scanOrder(c), snap.anomalies().stream().map(a -> a.key().display()).toList(),
                "anomalies are listed in the order the scan met their keys");
    }

    /** The anomalous keys in the order one SCAN of the queue's keys returns them (the server's order; the reader's batch is as large). */
    private static List<String> scanOrder(UnifiedJedis c) {
        List<String> out = new ArrayList<>();
        ScanParams params = new ScanParams().match("bull:q:*").count(KeyspaceScanner.BATCH);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = c.scan(cursor, params);
            for (String key : page.getResult()) {
                if (key.startsWith("bull:q:str")) { // str<i> and stray<i>: every anomalous key
                    out.add(key);
                }
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return out;
    }

    @Test
    void aMarkedPlaceOrdersALateAnomalyBeforeLaterOnes() {
        AnomalyLog log = new AnomalyLog();
        log.add(AnomalyKind.UNKNOWN_KEY, Bytes.utf8("bull:q:a"), "first");
        int place = log.mark();
        log.add(AnomalyKind.UNKNOWN_KEY, Bytes.utf8("bull:q:b"), "after the mark");
        log.add(AnomalyKind.MISSING_HASH, Bytes.utf8("bull:q:c"), "found before the late one");
        log.addAt(place, AnomalyKind.WRONG_JOB_TYPE, Bytes.utf8("bull:q:late"), "found last, met second");
        assertEquals(List.of("bull:q:a", "bull:q:late", "bull:q:b", "bull:q:c"),
                log.kept().stream().map(a -> new String(a.key().raw(), StandardCharsets.UTF_8)).toList());
    }
}
