package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * A queue's read asks the type of each structure key once (the scan that meets them again takes the types
 * read), reads {@code meta}'s fields beside those types when it is a hash, and a {@code meta} of another type
 * is a wrong-type key that gives no settings; a key the scan met that is gone by the time it is read is no anomaly.
 */
class StructureKeysReadTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final QueueRef Q = QueueRef.of("bull", "q");

    @BeforeEach
    void clean() {
        SERVER.client().flushAll();
    }

    @Test
    void eachStructureKeyIsTypedOnceAndOnlyOtherKeysAgain() {
        UnifiedJedis c = SERVER.client();
        for (String id : List.of("1", "2")) {
            c.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", "1"));
        }
        c.rpush("bull:q:wait", "1");
        c.zadd("bull:q:delayed", 4096L * 1_000, "2");
        c.hset("bull:q:meta", Map.of("paused", "1", "concurrency", "3"));
        c.set("bull:q:id", "2");
        c.set("bull:q:stray", "x"); // not a structure: typed by the scan's reader
        c.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");

        QueueSnapshot snap = new QueueSnapshotReader(c, new QueueBases(Set.of(Q))).read(Q);

        assertEquals(Map.of(QueueStructure.WAIT, KeyType.LIST, QueueStructure.DELAYED, KeyType.ZSET, QueueStructure.META,
                KeyType.HASH, QueueStructure.ID, KeyType.STRING), snap.structures());
        assertEquals("1", snap.meta().get("paused"));
        assertEquals("3", snap.meta().get("concurrency"));
        assertEquals(2, snap.jobCount());
        assertEquals(1, snap.anomalyCount(AnomalyKind.UNKNOWN_KEY), "the stray string");
        // every structure key and the bare key, then the one key that is neither a structure nor a listed job
        assertEquals(QueueStructure.values().length + 1 + 1, CommandStats.calls(c, "type"));
        assertEquals(1, CommandStats.calls(c, "hgetall"), "meta's fields, read once");
    }

    @Test
    void aMetaOfAnotherTypeIsAWrongTypeKeyAndGivesNoSettings() {
        UnifiedJedis c = SERVER.client();
        c.hset("bull:q:1", Map.of("name", "n", "data", "{}", "timestamp", "1"));
        c.rpush("bull:q:wait", "1");
        c.rpush("bull:q:meta", "paused"); // a list where BullMQ keeps a hash

        QueueSnapshot snap = new QueueSnapshotReader(c, new QueueBases(Set.of(Q))).read(Q);

        assertTrue(snap.meta().isEmpty(), "no settings from a list: " + snap.meta());
        assertEquals(1, snap.anomalyCount(AnomalyKind.WRONG_TYPE));
        assertEquals(1, snap.jobCount(), "the queue is read all the same");
    }

    /**
     * A plan reads a queue from the keys discovery's scan held: a job a v1 worker finished and removed since (its hash
     * deleted, its id no longer listed) and a lock that lapsed since are keys that are gone, not unknown keys, and no
     * anomaly.
     */
    @Test
    void aKeyGoneSinceTheScanIsNoAnomaly() {
        UnifiedJedis c = SERVER.client();
        for (String id : List.of("1", "2")) {
            c.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", "1"));
            c.rpush("bull:q:wait", id);
        }
        c.set("bull:q:2:lock", "token");
        c.hset("bull:q:unknown", Map.of("colour", "red")); // a real unknown hash stays one
        Discovery.Discovered scanned = new Discovery(c).discoverHoldingKeys(List.of("bull"), n -> { });
        c.lrem("bull:q:wait", 0, "2"); // taken, finished and removed by a v1 worker after the scan
        c.del("bull:q:2", "bull:q:2:lock");

        QueueSnapshot snap = new QueueSnapshotReader(c, scanned.keys().orElseThrow()).read(Q);

        assertEquals(1, snap.jobCount());
        assertEquals(List.of("bull:q:unknown"), snap.anomalies().stream().map(a -> a.key().display()).toList());
        assertEquals(1L, snap.keyClasses().get("anomaly"), "the unknown hash, not the key that is gone");
    }
}
