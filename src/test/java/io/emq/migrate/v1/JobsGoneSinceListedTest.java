package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.plan.PlanOptions;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.QueuePlan;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * A job listed when the listings were read whose hash is gone when its facts are read is settled against its listing
 * then: one a v1 worker finished and removed meanwhile (or a count trimmed) is listed there no longer, and is neither
 * an anomaly nor counted as listed; one still listed without a hash is {@code missing-hash}, in the order met. An
 * orphan (a job hash listed nowhere) whose hash is gone by then is nothing either.
 */
class JobsGoneSinceListedTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final QueueRef Q = QueueRef.of("bull", "q");

    @BeforeEach
    void clean() {
        SERVER.client().flushAll();
    }

    @Test
    void aJobThatLeftItsListingIsNoAnomalyAndOneStillListedIs() {
        UnifiedJedis c = SERVER.client();
        for (String id : List.of("1", "2", "3", "c1", "c2")) {
            c.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", "1"));
        }
        c.lpush("bull:q:wait", "1", "2", "9", "3"); // 9 is listed with no hash: damage
        c.zadd("bull:q:completed", 1, "c1");
        c.zadd("bull:q:completed", 2, "c2");
        c.zadd("bull:q:failed", 1, "f1"); // listed with no hash: damage
        SharedScan<QueueRef> scan = SharedScan.v1(c, new QueueBases(Set.of(Q)));
        KeySource<QueueRef> afterTheListings = new KeySource<>() {
            @Override
            public void keysOf(QueueRef queue, Consumer<List<Bytes>> batches) {
                c.lrem("bull:q:wait", 0, "2"); // taken, finished and removed by a v1 worker (removeOnComplete)
                c.del("bull:q:2");
                c.zrem("bull:q:completed", "c2"); // trimmed by removeOnComplete's count
                c.del("bull:q:c2");
                scan.keysOf(queue, batches);
            }

            @Override
            public Optional<QueueRef> owner(Bytes key) {
                return scan.owner(key);
            }
        };

        QueueSnapshot snap = new QueueSnapshotReader(c, afterTheListings).withoutPayloadHashes().read(Q);

        assertEquals(List.of("missing-hash bull:q:9", "missing-hash bull:q:f1"),
                snap.anomalies().stream().map(a -> a.kind().wireName() + " " + a.key().display()).toList());
        assertEquals(3L, snap.listedCount(V1State.WAIT), "1, 9 and 3: 2 left");
        assertEquals(1L, snap.listedCount(V1State.COMPLETED), "c1: c2 left");
        assertEquals(1L, snap.listedCount(V1State.FAILED));
        assertEquals(List.of("1", "3"), snap.jobs(V1State.WAIT).stream().map(j -> j.id().display()).toList());
        QueuePlan plan = new Planner(PlanOptions.defaults()).plan(snap);
        assertEquals(snap.listed().values().stream().mapToLong(Long::longValue).sum(),
                plan.fates().values().stream().mapToLong(Long::longValue).sum(), "every job listed has one fate");
    }

    @Test
    void anOrphanWhoseHashIsGoneWhenTheFactsAreReadIsNoAnomaly() {
        UnifiedJedis c = SERVER.client();
        for (String id : List.of("1", "o1", "o2")) {
            c.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", "1"));
        }
        c.lpush("bull:q:wait", "1"); // o1 and o2 are listed nowhere: orphans
        URI uri = URI.create(SERVER.uri());
        AtomicBoolean removed = new AtomicBoolean();
        try (UnifiedJedis reader = new UnifiedJedis(new PooledConnectionProvider(new HostAndPort(uri.getHost(), uri.getPort()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP2).build()), RedisProtocol.RESP2) {
            @Override
            public AbstractPipeline pipelined() {
                // the orphans are resolved (their hashes there) before the facts are read: o1 goes in between
                if (!removed.get() && StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("readJobs")))) {
                    c.del("bull:q:o1");
                    removed.set(true);
                }
                return super.pipelined();
            }
        }) {
            QueueSnapshot snap = new QueueSnapshotReader(reader, new QueueBases(Set.of(Q))).read(Q);
            assertTrue(removed.get(), "o1 was removed while the facts were read");
            assertEquals(List.of("orphan-hash bull:q:o2"),
                    snap.anomalies().stream().map(a -> a.kind().wireName() + " " + a.key().display()).toList());
            assertEquals(1L, snap.anomalyCount(AnomalyKind.ORPHAN_HASH));
            assertEquals(List.of("o2"), snap.jobs(V1State.UNKNOWN).stream().map(j -> j.id().display()).toList());
            assertEquals(List.of("1"), snap.jobs(V1State.WAIT).stream().map(j -> j.id().display()).toList());
        }
    }
}
