package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.runtime.Consumer;
import io.emq.migrate.runtime.JobState;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code migrate --parallel N}: queues migrated at once, each once, each under its own lease, flows across queues intact. */
class ParallelMigrationTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void empty() {
        SERVER.client().flushAll();
    }

    @Test
    void twoQueuesMigratedAtOnceAreEachMigratedExactlyOnceUnderTheirOwnLease() throws InterruptedException {
        V1QueueGenerator.addWaiting(SERVER.client(), "left", 1, 300, 50);
        V1QueueGenerator.addWaiting(SERVER.client(), "right", 1, 200, 50);
        CountDownLatch bothFencing = new CountDownLatch(2);
        Map<String, Boolean> intruderRefused = new ConcurrentHashMap<>();
        Migrator.Listener listener = new Migrator.Listener() {
            public void stepStarted(String queue, StepDefinition step) {
                if (step.version() == 10) {
                    bothFencing.countDown();
                    try {
                        bothFencing.await(10, TimeUnit.SECONDS); // only returns early if the other queue runs at once
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                Journal intruder = new Journal(Wire.open(SERVER.client()), queue);
                try {
                    intruder.lease().acquire("intruder", 1000);
                    intruderRefused.put(queue + " V" + step.version(), false);
                } catch (EmqWireException.Lock held) {
                    intruderRefused.putIfAbsent(queue + " V" + step.version(), true);
                }
            }

            public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
            }
        };
        List<MigrationResult> results = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()),
                SERVER.uri(), MigrationOptions.defaults(), Checkpoints.none()).parallel(2).listener(listener)
                .migrate(List.of("bull"), List.of());

        assertEquals(0, bothFencing.getCount(), "both queues reached their first step together");
        results.forEach(r -> assertTrue(r.ok(), r.toString()));
        assertEquals(Set.of(true), new HashSet<>(intruderRefused.values()), "every step of each queue ran under its"
                + " lease: " + intruderRefused);
        assertEquals(2 * 12, intruderRefused.size());
        assertEachOnce("left", 300);
        assertEachOnce("right", 200);
    }

    @Test
    void aFlowAcrossQueuesStillFindsItsPartnersWhenQueuesRunAtOnce() throws InterruptedException {
        Fixture fixture = FixtureDrainCheck.load("node-5.65.1", SERVER.client());
        List<MigrationResult> results = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()),
                SERVER.uri(), FixtureDrainCheck.OPTIONS.withRenames(Map.of()), Checkpoints.none()).parallel(4)
                .migrate(fixture.prefixes(), List.of());
        results.forEach(r -> assertTrue(r.ok(), r.toString()));
        Wire target = Wire.open(SERVER.client());
        Keys parents = Keys.queue("flows-parent");
        BrandedId parent = branded(target, "flows-parent", "e025be70-56b3-4064-a601-05baeecd74ff");
        BrandedId crossChild = branded(target, "flows-child", "71f54db9-86df-43b8-8a95-8ee54570e65d");
        assertEquals("2", SERVER.client().get(parents.job(parent, JobSub.DEPENDENCIES)));

        Jobs children = Jobs.on(target, "flows-child");
        children.resume();
        Consumer.on(children, job -> { }).beat(Duration.ofMillis(50)).build().runUntilEmpty();
        assertTrue(SERVER.client().hexists(parents.job(parent, JobSub.PROCESSED), crossChild.toString()),
                "the child in the other queue reached its parent");
        Jobs parentJobs = Jobs.on(target, "flows-parent");
        parentJobs.resume();
        Consumer.on(parentJobs, job -> { }).beat(Duration.ofMillis(50)).build().runUntilEmpty();
        assertEquals(JobState.ABSENT, parentJobs.state(parent.toString()), "the parent was released and completed");
    }

    @Test
    void twoQueuesAskingForTheSameIdBaseAtOnceGetTwo() {
        // CRC32 mod 2^17 of both names is 115161: each asks for the same base, at the same moment
        assertEquals(Rebrand.idBase("tenant-86"), Rebrand.idBase("tenant-7200"));
        V1QueueGenerator.addWaiting(SERVER.client(), "tenant-86", 1, 3, 20);
        V1QueueGenerator.addWaiting(SERVER.client(), "tenant-7200", 1, 3, 20);
        CountDownLatch bothFencing = new CountDownLatch(2);
        Migrator.Listener together = new Migrator.Listener() {
            public void stepStarted(String queue, StepDefinition step) {
                if (step.version() == 10) {
                    bothFencing.countDown();
                    try {
                        bothFencing.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
            }
        };
        new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), SERVER.uri(), MigrationOptions.defaults(),
                Checkpoints.none()).parallel(2).listener(together).migrate(List.of("bull"), List.of())
                .forEach(r -> assertTrue(r.ok(), r.toString()));
        assertEquals(0, bothFencing.getCount(), "both queues fenced at once");
        Set<String> bases = new HashSet<>();
        for (String q : List.of("tenant-86", "tenant-7200")) {
            bases.add(SERVER.client().hget(Keys.migrationJournal(q), "id_base"));
        }
        assertEquals(2, bases.size(), "one id base each: " + bases);
    }

    @Test
    void parallelBelowOneIsRefused() {
        Migrator m = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), SERVER.uri(),
                MigrationOptions.defaults(), Checkpoints.none());
        assertThrows(IllegalArgumentException.class, () -> m.parallel(0));
    }

    /** Every v1 job of the queue is one pending row: the journal maps each v1 id to a distinct branded id, listed once. */
    private static void assertEachOnce(String queue, int jobs) {
        Wire target = Wire.open(SERVER.client());
        List<byte[]> ids = new ArrayList<>();
        for (int n = 1; n <= jobs; n++) {
            ids.add(Integer.toString(n).getBytes(StandardCharsets.UTF_8));
        }
        Set<String> branded = new HashSet<>();
        new Journal(target, queue).ids().lookupV1(ids).forEach(id -> branded.add(id.orElseThrow().toString()));
        assertEquals(jobs, branded.size(), queue + ": one branded id per v1 job");
        Keys keys = Keys.queue(queue);
        assertEquals(jobs, SERVER.client().zcard(keys.pending()), queue + ": each job pending once");
        for (String id : branded) {
            assertTrue(SERVER.client().zscore(keys.pending(), id) != null, queue + ": " + id + " is pending");
        }
        assertEquals(0, SERVER.client().keys("bull:" + queue + ":*").stream().filter(k -> !k.endsWith(":meta")
                && !k.endsWith(":id")).count(), queue + ": its v1 source is retired");
    }

    private static BrandedId branded(Wire target, String queue, String v1Id) {
        return new Journal(target, queue).ids().lookupV1(List.of(v1Id.getBytes(StandardCharsets.UTF_8))).get(0).orElseThrow();
    }
}
