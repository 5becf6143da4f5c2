package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LimitsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String A = new BrandedId("ACC", 1).toString();
    private static final String B = new BrandedId("ACC", 2).toString();
    private final Wire wire = Wire.open(SERVER.client());

    private static byte[] p(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Jobs filled(String queue, int n) {
        Jobs jobs = Jobs.on(wire, queue);
        for (int i = 0; i < n; i++) {
            jobs.enqueue(p("j" + i));
        }
        return jobs;
    }

    @Test
    void theConcurrencyGateAnswersEmptyAtTheCeilingAndReopensOnComplete() {
        Jobs jobs = filled("cc", 4);
        jobs.limitConcurrency(2);
        jobs.checkNotMaxed();
        assertEquals(2, jobs.claimBatch(LEASE, 5).size(), "a batch is clamped to the ceiling");
        EmqWireException.Rate r = assertThrows(EmqWireException.Rate.class, jobs::checkNotMaxed);
        assertEquals("at concurrency ceiling", r.detail());
        assertTrue(r.retryAfterMs().isEmpty());
        assertEquals(Optional.empty(), jobs.claim(LEASE));
        Claim held = SERVER.client().zrange("emq:{cc}:active", 0, 0).stream()
                .map(id -> new Claim(id, new byte[0], 1)).findFirst().orElseThrow();
        jobs.complete(held.id(), held.token());
        assertTrue(jobs.claim(LEASE).isPresent(), "one slot reopened");
        jobs.limitConcurrency(0);
        assertTrue(jobs.claim(LEASE).isPresent(), "limit lifted");
        assertThrows(IllegalArgumentException.class, () -> jobs.limitConcurrency(-1));
    }

    @Test
    void theRateLimitRefusesClaimsBeyondMaxWithTheRetryAfterUntilTheWindowEnds() throws Exception {
        Jobs jobs = filled("rate", 5);
        jobs.limitRate(2, Duration.ofMillis(400));
        assertEquals(Duration.ZERO, jobs.rateLimitTtl());
        assertEquals(2, jobs.claimBatch(LEASE, 5).size(), "a batch is clamped to what the window has left");
        EmqWireException.Rate r = assertThrows(EmqWireException.Rate.class, () -> jobs.claim(LEASE));
        long after = r.retryAfterMs().orElseThrow();
        assertTrue(after > 0 && after <= 400, r.getMessage());
        assertTrue(jobs.rateLimitTtl().toMillis() > 0);
        assertEquals(3L, SERVER.client().zcard("emq:{rate}:pending"), "a refused claim takes nothing");
        Thread.sleep(after + 20);
        assertTrue(jobs.claim(LEASE).isPresent(), "a new window");
        assertThrows(IllegalArgumentException.class, () -> jobs.limitRate(1, Duration.ZERO));
    }

    @Test
    void lanesObeyTheQueueLimitsWithoutLosingTheirPlaceOnTheRing() {
        Jobs jobs = Jobs.on(wire, "lr");
        Lanes lanes = Lanes.of(wire, jobs);
        lanes.enqueue(A, p("a1"));
        lanes.enqueue(A, p("a2"));
        lanes.enqueue(B, p("b1"));
        jobs.limitRate(1, Duration.ofSeconds(30));
        assertTrue(lanes.claim(LEASE).isPresent());
        assertThrows(EmqWireException.Rate.class, () -> lanes.claim(LEASE));
        assertThrows(EmqWireException.Rate.class, () -> lanes.claimBatch(LEASE));
        assertEquals(List.of(B, A), lanes.ring(), "a refused turn does not rotate the ring");
        jobs.limitRate(0, Duration.ofSeconds(1));
        jobs.limitConcurrency(2);
        assertEquals(1, lanes.claimBatch(LEASE).size(), "B's turn, one job");
        assertTrue(lanes.claim(LEASE).isEmpty(), "two active: at the ceiling");
        assertEquals(Map.of(A, 1L, B, 0L), lanes.depths(List.of(A, B)));
        assertThrows(IllegalArgumentException.class, () -> lanes.depths(List.of("nope")));
    }

    @Test
    void theConsumerWaitsOutTheRateLimitAndDrainsEverything() throws Exception {
        Jobs jobs = filled("rc", 6);
        jobs.limitRate(2, Duration.ofMillis(150));
        long t0 = System.nanoTime();
        ConsumerStats stats = Consumer.on(jobs, job -> { }).batchSize(4).build().runUntilEmpty();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(6, stats.completed());
        assertEquals(0, stats.errors(), "a rate refusal is not an error");
        assertTrue(ms >= 300, "three windows of two claims each take at least two full windows, took " + ms + " ms");
    }

    @Test
    void aDedupIdReadsBackTheJobItPointsAt() {
        Jobs jobs = Jobs.on(wire, "dd");
        SERVER.client().set("emq:{dd}:de:order-7", "JOB0000000000A");
        assertEquals(Optional.of("JOB0000000000A"), jobs.dedupJobId("order-7"));
        assertEquals(Optional.empty(), jobs.dedupJobId("order-8"));
        assertThrows(IllegalArgumentException.class, () -> jobs.dedupJobId("no spaces"));
    }
}
