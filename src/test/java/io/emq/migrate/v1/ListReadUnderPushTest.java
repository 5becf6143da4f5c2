package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * A v1 producer pushes while the reader is between two chunks of a list (the way BullMQ adds:
 * {@code LPUSH} at the head): the jobs already listed are each read exactly once, in serve order. A v1
 * worker pops the tail between chunks (the way BullMQ takes a job): no job still listed is skipped.
 */
class ListReadUnderPushTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void anLpushBetweenChunksNeitherSkipsNorRepeatsAJob() {
        int waiting = 2500;
        V1QueueGenerator.addWaiting(SERVER.client(), "pushed", 1, waiting, 20);
        URI uri = URI.create(SERVER.uri());
        AtomicInteger chunks = new AtomicInteger();
        try (UnifiedJedis reader = new UnifiedJedis(new PooledConnectionProvider(new HostAndPort(uri.getHost(), uri.getPort()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP2).build()), RedisProtocol.RESP2) {
            @Override
            public List<byte[]> lrange(byte[] key, long start, long stop) {
                if (chunks.incrementAndGet() == 2) {
                    V1QueueGenerator.addWaiting(SERVER.client(), "pushed", waiting + 1, waiting + 700, 20);
                }
                return super.lrange(key, start, stop);
            }
        }) {
            QueueRef q = QueueRef.of("bull", "pushed");
            QueueSnapshot snap = new QueueSnapshotReader(reader, new QueueBases(Set.of(q))).read(q);
            List<Long> ids = snap.jobs(V1State.WAIT).stream().map(j -> Long.parseLong(j.id().utf8())).toList();
            assertEquals(LongStream.rangeClosed(1, waiting).boxed().toList(), ids.subList(0, waiting),
                    "every job listed before the push, once, in serve order");
            assertEquals(ids.size(), ids.stream().distinct().count(), "no job read twice");
            assertEquals(0, snap.anomalyCount(AnomalyKind.LISTED_TWICE));
        }
    }

    @Test
    void aWorkerPoppingTheTailBetweenChunksSkipsNoJobStillListed() {
        int waiting = 3500;
        V1QueueGenerator.addWaiting(SERVER.client(), "popped", 1, waiting, 20);
        URI uri = URI.create(SERVER.uri());
        AtomicInteger chunks = new AtomicInteger();
        int[] popped = {0};
        try (UnifiedJedis reader = new UnifiedJedis(new PooledConnectionProvider(new HostAndPort(uri.getHost(), uri.getPort()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP2).build()), RedisProtocol.RESP2) {
            @Override
            public List<byte[]> lrange(byte[] key, long start, long stop) {
                int pops = switch (chunks.incrementAndGet()) {
                    case 2 -> 40;
                    case 3 -> 600;
                    default -> 0;
                };
                for (int i = 0; i < pops; i++) {
                    SERVER.client().rpoplpush("bull:popped:wait", "bull:popped:active");
                }
                popped[0] += pops;
                return super.lrange(key, start, stop);
            }
        }) {
            QueueRef q = QueueRef.of("bull", "popped");
            QueueSnapshot snap = new QueueSnapshotReader(reader, new QueueBases(Set.of(q))).read(q);
            List<Long> ids = snap.jobs(V1State.WAIT).stream().map(j -> Long.parseLong(j.id().utf8())).toList();
            assertEquals(LongStream.rangeClosed(popped[0] + 1, waiting).boxed().toList(), ids.subList(ids.size() - (waiting - popped[0]), ids.size()),
                    "every job still listed, once, in serve order");
            assertEquals(ids.size(), ids.stream().distinct().count(), "no job read twice in wait");
        }
    }
}
