package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.testing.RealServerExtension;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.resps.Tuple;

/**
 * A v1 producer adds prioritized jobs ahead of the reader while it is between two chunks of the {@code prioritized}
 * zset (a higher priority: a lower score): the jobs already listed are each read exactly once, in serve order. A v1
 * worker takes jobs from the front between chunks (BullMQ's {@code ZPOPMIN}): no job still listed is skipped.
 */
class ZsetReadUnderAddTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    static final long PRIORITY = 1L << 32;

    /** Jobs {@code from} to {@code to} of {@code queue}, prioritized at {@code priority}, in that order. */
    private static void addPrioritized(String queue, long from, long to, int priority) {
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            for (long n = from; n <= to; n++) {
                p.hset("bull:" + queue + ":" + n, Map.of("name", "send", "data", "{}", "opts", "{}",
                        "timestamp", Long.toString(1_700_000_000_000L + n), "priority", Integer.toString(priority), "delay", "0"));
                p.zadd("bull:" + queue + ":prioritized", priority * PRIORITY + n, Long.toString(n));
            }
            p.sync();
        }
    }

    @Test
    void aZsetWhoseJobsShareOneScoreIsReadOnceEachInMemberOrder() {
        int listed = 2500;
        addPrioritized("tied", 1, listed, 5);
        for (long n = 1; n <= listed; n++) {
            SERVER.client().zadd("bull:tied:prioritized", 5 * PRIORITY, Long.toString(n));
        }
        try (UnifiedJedis reader = readerRunning(chunk -> { })) {
            List<Long> ids = prioritized(reader, "tied");
            assertEquals(LongStream.rangeClosed(1, listed).mapToObj(Long::toString).sorted().map(Long::parseLong).toList(), ids,
                    "each once, ties in member order");
        }
    }

    /** A reader's client that runs {@code between} before each chunk of a zset read after the first. */
    private static UnifiedJedis readerRunning(java.util.function.IntConsumer between) {
        URI uri = URI.create(SERVER.uri());
        AtomicInteger chunks = new AtomicInteger(1);
        return new UnifiedJedis(new PooledConnectionProvider(new HostAndPort(uri.getHost(), uri.getPort()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP2).build()), RedisProtocol.RESP2) {
            @Override
            public List<Tuple> zrangeWithScores(byte[] key, long start, long stop) {
                between.accept(chunks.incrementAndGet());
                return super.zrangeWithScores(key, start, stop);
            }

            @Override
            public List<Tuple> zrangeByScoreWithScores(byte[] key, double min, double max, int offset, int count) {
                between.accept(chunks.incrementAndGet());
                return super.zrangeByScoreWithScores(key, min, max, offset, count);
            }
        };
    }

    private static List<Long> prioritized(UnifiedJedis reader, String queue) {
        QueueRef q = QueueRef.of("bull", queue);
        QueueSnapshot snap = new QueueSnapshotReader(reader, new QueueBases(Set.of(q))).read(q);
        assertEquals(0, snap.anomalyCount(AnomalyKind.LISTED_TWICE), snap.anomalies().toString());
        return snap.jobs(V1State.PRIORITIZED).stream().map(j -> Long.parseLong(j.id().utf8())).toList();
    }

    @Test
    void jobsAddedAheadBetweenChunksNeitherSkipNorRepeatAJob() {
        int listed = 2500;
        addPrioritized("ahead", 1, listed, 5);
        try (UnifiedJedis reader = readerRunning(chunk -> {
            if (chunk == 2) {
                addPrioritized("ahead", listed + 1, listed + 700, 1);
            }
        })) {
            List<Long> ids = prioritized(reader, "ahead");
            assertEquals(LongStream.rangeClosed(1, listed).boxed().toList(), ids.stream().filter(id -> id <= listed).toList(),
                    "every job listed before the adds, once, in serve order");
        }
    }

    @Test
    void aWorkerTakingTheFrontBetweenChunksSkipsNoJobStillListed() {
        int listed = 3500;
        addPrioritized("taken", 1, listed, 5);
        int[] taken = {0};
        try (UnifiedJedis reader = readerRunning(chunk -> {
            int pops = chunk == 2 ? 40 : chunk == 3 ? 600 : 0;
            SERVER.client().zpopmin("bull:taken:prioritized", pops);
            taken[0] += pops;
        })) {
            List<Long> ids = prioritized(reader, "taken");
            assertEquals(LongStream.rangeClosed(taken[0] + 1, listed).boxed().toList(), ids.subList(ids.size() - (listed - taken[0]), ids.size()),
                    "every job still listed, once, in serve order");
        }
    }
}
