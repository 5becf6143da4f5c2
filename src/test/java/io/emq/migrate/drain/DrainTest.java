package io.emq.migrate.drain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.ConsumerStats;
import io.emq.migrate.runtime.JobHandler;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DrainTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final Keys ORDERS = Keys.queue("orders");
    private static final JobHandler NOOP = job -> { };

    private static DrainReport drain(DrainOptions options, JobHandler work) throws InterruptedException {
        return new Drain(Wire.open(SERVER.client()), "orders").run(options, work, new ConsumerListener() { });
    }

    private static Check check(DrainReport r, String prefix) {
        return r.checks().stream().filter(c -> c.name().startsWith(prefix)).findFirst().orElseThrow();
    }

    private static List<String> pending() {
        return SERVER.client().zrange(ORDERS.pending(), 0, -1);
    }

    private static String failures(DrainReport r) {
        return r.checks().stream().filter(Check::failed).toList() + " " + r.problems();
    }

    @Test
    void validatePassesOnAMigratedFixture() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        DrainReport r = drain(DrainOptions.defaults(), NOOP);
        assertTrue(r.passed(), failures(r));
        assertEquals(new Check("migrated jobs claimed", "12", "12", Check.Outcome.PASS), check(r, "migrated jobs claimed"));
        assertEquals("3", check(r, "scheduled for later").found());
        assertEquals("2", check(r, "dead jobs").found());
        assertEquals(12L, r.before().get("pending"));
        assertEquals(0L, r.after().get("pending"));
        assertEquals(12, r.stats().orElseThrow().completed());
    }

    /** Moves the migrated pending jobs into two lanes, alternating, as a migration into lanes leaves them. */
    private static List<String> intoTwoLanes() {
        List<String> groups = List.of(new BrandedId("ACC", 1).toString(), new BrandedId("ACC", 2).toString());
        List<String> ids = pending();
        for (int i = 0; i < ids.size(); i++) {
            String g = groups.get(i % 2);
            SERVER.client().zrem(ORDERS.pending(), ids.get(i));
            SERVER.client().hset(ORDERS.job(BrandedId.of(ids.get(i))), "group", g);
            SERVER.client().zadd(ORDERS.base() + "g:" + g + ":pending", 0, ids.get(i));
        }
        SERVER.client().rpush(ORDERS.base() + "ring", groups.toArray(String[]::new));
        return groups;
    }

    @Test
    void aMigratedQueueInLanesDrainsThroughTheLanesWithTheVerdictPass() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        intoTwoLanes();
        DrainReport r = drain(DrainOptions.defaults().withLanes(true), NOOP);
        assertTrue(r.passed(), failures(r));
        assertEquals(new Check("migrated jobs claimed", "12", "12", Check.Outcome.PASS), check(r, "migrated jobs claimed"));
        assertEquals("claimed in migrated serve order, per lane", check(r, "claimed in").name());
        assertEquals(List.of(), SERVER.client().lrange(ORDERS.base() + "ring", 0, -1));
    }

    @Test
    void aLaneServedOutOfTurnFailsTheOrderCheck() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        String lane = ORDERS.base() + "g:" + intoTwoLanes().get(0) + ":pending";
        List<String> members = SERVER.client().zrange(lane, 0, -1);
        SERVER.client().zadd(lane, -1, members.get(members.size() - 1));
        DrainReport r = drain(DrainOptions.defaults().withLanes(true), NOOP);
        assertFalse(r.passed());
        assertEquals("1 out of order", check(r, "claimed in").found());
        assertTrue(r.problems().get(0).contains("from lane"), r.problems().get(0));
    }

    @Test
    void aTamperedPayloadFailsTheDigestCheck() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        String victim = pending().get(3);
        SERVER.client().hset(ORDERS.job(BrandedId.of(victim)), "payload", "{\"tampered\":true}");
        DrainReport r = drain(DrainOptions.defaults(), NOOP);
        assertFalse(r.passed());
        assertEquals("11", check(r, "payload carries").found());
        assertEquals(1, r.problemCount(), r.problems().toString());
        assertTrue(r.problems().get(0).startsWith(victim), r.problems().get(0));
    }

    @Test
    void aMissingJobFailsTheClaimCheck() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        String victim = pending().get(0);
        SERVER.client().zrem(ORDERS.pending(), victim);
        SERVER.client().del(ORDERS.job(BrandedId.of(victim)));
        DrainReport r = drain(DrainOptions.defaults(), NOOP);
        assertFalse(r.passed());
        assertEquals(new Check("migrated jobs claimed", "12", "11", Check.Outcome.FAIL), check(r, "migrated jobs claimed"));
        assertTrue(r.problems().get(0).contains(victim) && r.problems().get(0).contains("never claimed"), r.problems().toString());
    }

    @Test
    void aJobServedOutOfTurnFailsTheOrderCheckAndTheDryRunSeesItFirst() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        String last = pending().get(pending().size() - 1);
        SERVER.client().zadd(ORDERS.pending(), -1, last);
        DrainReport dry = new Drain(Wire.unfenced(SERVER.client()), "orders").dryRun();
        assertEquals("1 out of order", check(dry, "pending in migrated serve order").found());
        DrainReport r = drain(DrainOptions.defaults(), NOOP);
        assertFalse(r.passed());
        assertEquals("1 out of order", check(r, "claimed in migrated serve order").found());
        assertTrue(r.problems().get(0).contains("claimed after " + last), r.problems().toString());
    }

    @Test
    void aZombieCompletionIsRefusedStaleAndCounted() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        String victim = pending().get(0);
        Jobs jobs = Jobs.on(Wire.open(SERVER.client()), "orders");
        AtomicInteger deliveries = new AtomicInteger();
        CountDownLatch reclaimed = new CountDownLatch(1);
        DrainReport r = drain(DrainOptions.defaults().withWorkers(2), job -> {
            if (!job.id().equals(victim)) {
                return;
            }
            if (deliveries.incrementAndGet() == 1) {
                SERVER.client().zadd(ORDERS.active(), 0, victim); // the first owner's lease lapses, once
                jobs.reap(); // or the consumer's beat reaps it first: either way it is back in line once
                Double lease = SERVER.client().zscore(ORDERS.active(), victim);
                assertTrue(lease == null || lease > 0, "the first owner's lease could not be forced to lapse");
                assertTrue(reclaimed.await(5, TimeUnit.SECONDS), "the other worker re-claims the lapsed job");
            } else {
                reclaimed.countDown();
                Thread.sleep(300);
            }
        });
        ConsumerStats stats = r.stats().orElseThrow();
        assertEquals(1, stats.staleRefused());
        assertEquals(new Check("stale settlements refused", "1", "1", Check.Outcome.PASS), check(r, "stale settlements"));
        assertTrue(r.passed(), failures(r));
    }

    @Test
    void theDryRunClaimsNothingAndPassesOnAFreshMigration() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        Map<String, String> rowBefore = SERVER.client().hgetAll(ORDERS.job(BrandedId.of(pending().get(0))));
        List<String> pendingBefore = pending();
        DrainReport r = new Drain(Wire.unfenced(SERVER.client()), "orders").dryRun();
        assertTrue(r.passed(), failures(r));
        assertTrue(r.stats().isEmpty());
        assertEquals(new Check("payload carries the v1 data (sha256)", "15", "15", Check.Outcome.PASS),
                check(r, "payload carries"));
        assertEquals(pendingBefore, pending());
        assertEquals(rowBefore, SERVER.client().hgetAll(ORDERS.job(BrandedId.of(pending().get(0)))));
        assertEquals(0, SERVER.client().zcard(ORDERS.active()));
    }

    @Test
    void freshV2WorkIsCountedApartFromTheMigratedJobs() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        Jobs jobs = Jobs.on(Wire.open(SERVER.client()), "orders");
        jobs.enqueue("fresh".getBytes(StandardCharsets.UTF_8));
        DrainReport r = drain(DrainOptions.defaults(), NOOP);
        assertTrue(r.passed(), failures(r));
        assertEquals(new Check("fresh v2 jobs (not migrated) completed", "1", "1", Check.Outcome.INFO),
                check(r, "fresh v2 jobs"));
    }

    @Test
    void scheduledJobsDueLaterAreLeftUnlessAskedToWait() throws Exception {
        Wire wire = Wire.open(SERVER.client());
        Jobs jobs = Jobs.on(wire, "later");
        jobs.enqueueIn(jobs.mintId(), "soon".getBytes(StandardCharsets.UTF_8), java.time.Duration.ofMillis(1800));
        Drain drain = new Drain(wire, "later");
        DrainReport left = drain.run(DrainOptions.defaults(), NOOP, new ConsumerListener() { });
        assertEquals(0, left.stats().orElseThrow().claimed());
        assertEquals(1L, left.after().get("scheduled"));
        DrainReport waited = drain.run(DrainOptions.defaults().withUntilEmptySchedule(true), NOOP, new ConsumerListener() { });
        assertEquals(1, waited.stats().orElseThrow().completed());
        assertEquals(0L, waited.after().get("scheduled"));
    }
}
