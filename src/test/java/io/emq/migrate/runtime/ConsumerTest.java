package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

class ConsumerTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static UnifiedJedis client;

    @BeforeAll
    static void open() {
        client = Clients.open(SERVER.endpoint(), 12);
    }

    @AfterAll
    static void close() {
        client.close();
    }

    private static Jobs jobs(String queue) {
        return Jobs.on(Wire.open(client), queue);
    }

    private static List<byte[]> payloads(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(("job-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void drainsAQueueWithManyWorkersCompletingEachJobOnce() throws Exception {
        Jobs jobs = jobs("many");
        List<Admission> admitted = jobs.enqueueAll(payloads(300));
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        ConsumerStats stats = Consumer.on(jobs, job -> seen.merge(job.id(), 1, Integer::sum))
                .workers(4).batchSize(8).build().runUntilEmpty();
        assertEquals(300, seen.size());
        assertTrue(seen.values().stream().allMatch(n -> n == 1));
        assertTrue(admitted.stream().allMatch(a -> seen.containsKey(a.id())));
        assertEquals(300, stats.completed());
        assertEquals(300, stats.claimed());
        assertEquals(0, stats.staleRefused());
        assertEquals(new Counts(0, 0, 0, 0, 300, 0), jobs.counts());
        assertTrue(stats.jobsPerSecond() > 0);
    }

    @Test
    void oneWorkerServesInMintOrderAndContinuesMigratedAttempts() throws Exception {
        Jobs jobs = jobs("order");
        List<String> ids = jobs.enqueueAll(payloads(20)).stream().map(Admission::id).toList();
        client.hset(("emq:{order}:job:" + ids.get(3)).getBytes(StandardCharsets.UTF_8),
                "attempts".getBytes(StandardCharsets.UTF_8), "2".getBytes(StandardCharsets.UTF_8));
        List<Delivery> deliveries = Collections.synchronizedList(new ArrayList<>());
        Consumer.on(jobs, deliveries::add).batchSize(3).build().runUntilEmpty();
        assertEquals(ids, deliveries.stream().map(Delivery::id).toList());
        for (int i = 0; i < deliveries.size(); i++) {
            Delivery d = deliveries.get(i);
            assertEquals(i + 1, d.claimSeq());
            assertEquals(0, d.worker());
            assertEquals(i == 3 ? 3 : 1, d.attempts());
            assertEquals("job-" + i, new String(d.payload(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aZombieIsRefusedStaleAndTheNewOwnerKeepsItsWork() throws Exception {
        Jobs jobs = jobs("zombie");
        String id = jobs.enqueue("z".getBytes(StandardCharsets.UTF_8)).id();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Delivery> staleSeen = Collections.synchronizedList(new ArrayList<>());
        List<String> lost = Collections.synchronizedList(new ArrayList<>());
        Consumer consumer = Consumer.on(jobs, job -> {
            inHandler.countDown();
            release.await();
        }).lease(Duration.ofMillis(400)).beat(Duration.ofMinutes(10)).listener(new ConsumerListener() {
            @Override
            public void staleRefused(Delivery job, EmqWireException.Stale refusal) {
                staleSeen.add(job);
            }

            @Override
            public void leaseLost(String lostId, long token) {
                lost.add(lostId);
            }
        }).build();
        consumer.start();
        assertTrue(inHandler.await(5, TimeUnit.SECONDS));
        byte[] active = "emq:{zombie}:active".getBytes(StandardCharsets.UTF_8);
        long reaped = 0;
        for (int i = 0; i < 20 && reaped == 0; i++) {
            client.zadd(active, 0, id.getBytes(StandardCharsets.UTF_8));
            reaped = jobs.reap();
        }
        assertEquals(1, reaped, "the zombie's lease could not be forced to lapse");
        Claim owner = jobs.claim(Duration.ofSeconds(30)).orElseThrow();
        assertEquals(2, owner.token());
        Thread.sleep(450);
        release.countDown();
        consumer.close();
        ConsumerStats stats = consumer.stats();
        assertEquals(1, stats.staleRefused());
        assertEquals(0, stats.completed());
        assertEquals(List.of(id), staleSeen.stream().map(Delivery::id).toList());
        assertEquals(List.of(id), lost);
        assertEquals(JobState.ACTIVE, jobs.state(id));
        assertEquals("2", new String(jobs.row(id).get("attempts"), StandardCharsets.UTF_8));
        assertEquals(Completion.COMPLETED, jobs.complete(id, owner.token()));
    }

    @Test
    void leasesAreExtendedWhileAHandlerRunsLongerThanTheLease() throws Exception {
        Jobs jobs = jobs("long");
        jobs.enqueue("slow".getBytes(StandardCharsets.UTF_8));
        // the handler outlives the lease 2.5 times over; the lease is extended every 400 ms
        ConsumerStats stats = Consumer.on(jobs, job -> Thread.sleep(2000))
                .lease(Duration.ofMillis(800)).beat(Duration.ofMillis(40)).build().runUntilEmpty();
        assertEquals(1, stats.claimed());
        assertEquals(1, stats.completed());
        assertEquals(0, stats.leaseLost());
        assertEquals(0, stats.staleRefused());
    }

    @Test
    void aJobSettledByRetryOrDeadLetterIsNoLongerExtendedNorCountedAsALostLease() throws Exception {
        Jobs jobs = jobs("settled");
        jobs.enqueue("fail".getBytes(StandardCharsets.UTF_8));
        jobs.enqueue("slow".getBytes(StandardCharsets.UTF_8));
        // one worker dead-letters "fail" at once; leases are extended every 200 ms while the other works on "slow"
        ConsumerStats stats = Consumer.on(jobs, job -> {
            if (new String(job.payload(), StandardCharsets.UTF_8).equals("fail")) {
                throw new IllegalStateException("fails on purpose");
            }
            Thread.sleep(1000);
        }).workers(2).maxAttempts(1).lease(Duration.ofMillis(400)).beat(Duration.ofMillis(20)).build().runUntilEmpty();
        assertEquals(2, stats.claimed());
        assertEquals(1, stats.dead());
        assertEquals(1, stats.completed());
        assertEquals(0, stats.leaseLost());
    }

    @Test
    void aPausedQueueIsNotServedUntilResumed() throws Exception {
        Jobs jobs = jobs("paused");
        jobs.pause();
        jobs.enqueueAll(payloads(5));
        AtomicInteger handled = new AtomicInteger();
        Consumer consumer = Consumer.on(jobs, job -> handled.incrementAndGet()).workers(2).build();
        consumer.start();
        Thread.sleep(200);
        assertEquals(0, handled.get());
        jobs.resume();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (handled.get() < 5 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        consumer.close();
        assertEquals(5, handled.get());
    }

    @Test
    void stopFinishesWhatIsHeldAndClaimsNothingNew() throws Exception {
        Jobs jobs = jobs("stop");
        jobs.enqueueAll(payloads(50));
        CountDownLatch started = new CountDownLatch(1);
        Consumer consumer = Consumer.on(jobs, job -> {
            started.countDown();
            Thread.sleep(20);
        }).workers(2).batchSize(4).build();
        consumer.start();
        assertTrue(started.await(5, TimeUnit.SECONDS));
        consumer.stop();
        assertTrue(consumer.awaitTermination(Duration.ofSeconds(5)));
        ConsumerStats stats = consumer.stats();
        assertTrue(stats.claimed() > 0 && stats.claimed() < 50, "claimed " + stats.claimed());
        assertEquals(stats.claimed(), stats.completed());
        Counts left = jobs.counts();
        assertEquals(0, left.active());
        assertEquals(50 - stats.claimed(), left.pending());
    }

    @Test
    void failingJobsAreRetriedWithBackoffThenDeadLettered() throws Exception {
        Jobs jobs = jobs("failing");
        jobs.enqueueAll(payloads(4));
        ConsumerStats stats = Consumer.on(jobs, job -> {
            if (new String(job.payload(), StandardCharsets.UTF_8).equals("job-1") || job.attempts() < 2) {
                throw new IllegalStateException("nope");
            }
        }).workers(2).maxAttempts(2).beat(Duration.ofMillis(10))
                .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(10))).build().runUntilEmpty();
        assertEquals(3, stats.completed());
        assertEquals(1, stats.dead());
        assertEquals(4, stats.retried());
        Counts counts = jobs.counts();
        assertEquals(1, counts.dead());
        assertEquals(3, counts.completed());
    }

    @Test
    void aBatchWhoseJobsBothCompleteAndFailSettlesEachJobByItsOwnOutcome() throws Exception {
        Jobs jobs = jobs("mixed");
        List<String> ids = jobs.enqueueAll(payloads(6)).stream().map(Admission::id).toList();
        List<String> completed = Collections.synchronizedList(new ArrayList<>());
        List<String> dead = Collections.synchronizedList(new ArrayList<>());
        ConsumerStats stats = Consumer.on(jobs, job -> {
            if (ids.indexOf(job.id()) % 2 == 1) {
                throw new IllegalStateException("odd");
            }
        }).batchSize(6).maxAttempts(1).listener(new ConsumerListener() {
            @Override
            public void completed(Delivery job) {
                completed.add(job.id());
            }

            @Override
            public void dead(Delivery job, Throwable cause) {
                dead.add(job.id());
            }
        }).build().runUntilEmpty();
        assertEquals(List.of(ids.get(0), ids.get(2), ids.get(4)), completed, "one complete_batch, in claim order");
        assertEquals(List.of(ids.get(1), ids.get(3), ids.get(5)), dead);
        assertEquals(3, stats.completed());
        assertEquals(3, stats.dead());
        Counts counts = jobs.counts();
        assertEquals(3, counts.completed());
        assertEquals(3, counts.failed());
        assertEquals(3, counts.dead());
    }
}
