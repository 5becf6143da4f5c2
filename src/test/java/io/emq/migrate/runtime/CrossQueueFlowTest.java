package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Cross-queue flows: a parent in queue {@code builds} awaits children in queue {@code kits}; the
 * children's consumer delivers their completions and deaths from the {@code kits} outbox. On the
 * cluster the two queues hash to different masters.
 */
class CrossQueueFlowTest {
    @RegisterExtension
    static final RealServerExtension STANDALONE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    private static final String PARENTS = "builds";
    private static final String CHILDREN = "kits";
    private static final Keys P = Keys.queue(PARENTS);
    private static final Keys C = Keys.queue(CHILDREN);

    private static RealServerExtension server(String name) {
        return name.equals("cluster") ? CLUSTER : STANDALONE;
    }

    /** One side of the flow over one server. */
    private record Setup(UnifiedJedis redis, Jobs parents, Jobs children) {
        static Setup on(String server) {
            Wire wire = Wire.open(server(server).client());
            return new Setup(wire.client(), Jobs.on(wire, PARENTS), Jobs.on(wire, CHILDREN));
        }

        String hold(int children) {
            String id = parents.mintId();
            redis.hset(P.job(BrandedId.of(id)), Map.of("state", "awaiting_children", "attempts", "0", "payload", "parent"));
            redis.set(P.job(BrandedId.of(id), JobSub.DEPENDENCIES), Integer.toString(children));
            return id;
        }

        String child(String payload, String parent, String policy) {
            String id = children.enqueue(payload.getBytes(StandardCharsets.UTF_8)).id();
            redis.hset(C.job(BrandedId.of(id)), Map.of("parent", parent, "parent_queue", PARENTS, "parent_policy", policy));
            return id;
        }

        String sub(String parent, JobSub sub) {
            return P.job(BrandedId.of(parent), sub);
        }

        /** Drains the children with a consumer failing the payloads starting "bad"; the outbox sweeps it reported. */
        List<OutboxSweep> drainChildren() throws InterruptedException {
            List<OutboxSweep> sweeps = Collections.synchronizedList(new ArrayList<>());
            Consumer.on(children, job -> {
                if (new String(job.payload(), StandardCharsets.UTF_8).startsWith("bad")) {
                    throw new IllegalStateException("broke");
                }
            }).maxAttempts(1).beat(Duration.ofMillis(20)).listener(new ConsumerListener() {
                @Override
                public void outboxDelivered(OutboxSweep sweep) {
                    sweeps.add(sweep);
                }
            }).build().runUntilEmpty();
            return sweeps;
        }

        long outcomes(List<OutboxSweep> sweeps, FlowDelivery outcome) {
            return sweeps.stream().mapToLong(s -> s.count(outcome)).sum();
        }
    }

    private static String completion(String parent, String child) {
        return PARENTS + "\0" + parent + "\0" + child + "\0";
    }

    @Test
    void theTwoQueuesLiveOnDifferentMasters() {
        assertNotEquals(Slots.slot(PARENTS) * 3 / Slots.COUNT, Slots.slot(CHILDREN) * 3 / Slots.COUNT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void drainingTheChildrenReleasesTheParentExactlyOnce(String server) throws InterruptedException {
        Setup s = Setup.on(server);
        String parent = s.hold(2);
        String k1 = s.child("k1", parent, "fp");
        String k2 = s.child("k2", parent, "fp");

        List<OutboxSweep> sweeps = s.drainChildren();

        assertEquals(1, s.outcomes(sweeps, FlowDelivery.RELEASED), "released once: " + sweeps);
        assertEquals(JobState.PENDING, s.parents().state(parent));
        assertEquals(Set.of(k1, k2), s.redis().hkeys(s.sub(parent, JobSub.PROCESSED)));
        assertEquals("0", s.redis().get(s.sub(parent, JobSub.DEPENDENCIES)));
        assertEquals(0, s.redis().llen(C.flowOutbox()));

        s.redis().rpush(C.flowOutbox(), completion(parent, k1));
        assertEquals(List.of(FlowDelivery.REPEATED), s.children().deliverOutbox(10).outcomes(),
                "an entry delivered but not trimmed (its deliverer died) is delivered again to no effect");
        assertEquals("0", s.redis().get(s.sub(parent, JobSub.DEPENDENCIES)));
        assertEquals(List.of(parent), s.parents().pendingInServeOrder(10));

        ConsumerStats parentRun = Consumer.on(s.parents(), job -> { }).build().runUntilEmpty();
        assertEquals(1, parentRun.completed());
        assertEquals(JobState.ABSENT, s.parents().state(parent));
    }

    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void aFailParentChildDeathDeadLettersTheParentOnce(String server) throws InterruptedException {
        Setup s = Setup.on(server);
        String parent = s.hold(2);
        String k1 = s.child("bad-1", parent, "fp");
        String k2 = s.child("bad-2", parent, "fp");

        List<OutboxSweep> sweeps = s.drainChildren();

        assertEquals(1, s.outcomes(sweeps, FlowDelivery.PARENT_DEAD), "dead-lettered once: " + sweeps);
        assertEquals(JobState.DEAD, s.parents().state(parent));
        assertEquals(Set.of(k1, k2), s.redis().hkeys(s.sub(parent, JobSub.FAILED)));
        assertTrue(s.redis().hget(P.job(BrandedId.of(parent)), "last_error").endsWith("failed: broke"));
        s.redis().rpush(C.flowOutbox(), "\0fail\0" + PARENTS + "\0" + parent + "\0" + k1 + "\0fp\0broke");
        assertEquals(List.of(FlowDelivery.REPEATED), s.children().deliverOutbox(10).outcomes());
        assertEquals(1, s.parents().counts().failed(), "the parent queue counts the parent failed once");
        assertEquals(List.of(parent), s.redis().zrange(P.dead(), 0, -1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void anIgnoreDependencyChildDeathDecrementsAndReleases(String server) throws InterruptedException {
        Setup s = Setup.on(server);
        String parent = s.hold(2);
        String ignored = s.child("bad-ignored", parent, "id");
        String fine = s.child("fine", parent, "fp");

        s.drainChildren();

        assertEquals(JobState.PENDING, s.parents().state(parent));
        assertEquals(Map.of(ignored, "broke"), s.redis().hgetAll(s.sub(parent, JobSub.UNSUCCESSFUL)));
        assertEquals(Set.of(fine), s.redis().hkeys(s.sub(parent, JobSub.PROCESSED)));
        assertEquals(0, s.parents().counts().failed());
    }

    @Test
    void malformedEntriesAndGoneParentsAreTakenOffAndReported() {
        Setup s = Setup.on("standalone");
        String parent = s.hold(1);
        String child = s.children().mintId();
        String gone = s.parents().mintId();
        List<String> entries = List.of(
                "no separators",
                completion(parent, child),
                "\0fail\0" + PARENTS + "\0" + parent + "\0" + child + "\0maybe\0x",
                "\0boom\0" + PARENTS + "\0" + parent + "\0" + child + "\0fp\0x",
                "bad queue!\0" + parent + "\0" + child + "\0",
                completion(gone, child));
        entries.forEach(e -> s.redis().rpush(C.flowOutbox(), e));

        OutboxSweep sweep = s.children().deliverOutbox(100);

        assertEquals(List.of(FlowDelivery.MALFORMED, FlowDelivery.RELEASED, FlowDelivery.MALFORMED,
                FlowDelivery.MALFORMED, FlowDelivery.MALFORMED, FlowDelivery.PARENT_GONE), sweep.outcomes());
        assertEquals(List.of(entries.get(0), entries.get(2), entries.get(3), entries.get(4)),
                sweep.malformed().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        assertEquals(0, s.redis().llen(C.flowOutbox()));
        assertFalse(s.redis().exists(s.sub(gone, JobSub.PROCESSED)), "nothing written for a gone parent");
        assertFalse(s.redis().exists(s.sub(gone, JobSub.DEPENDENCIES)), "nothing written for a gone parent");
    }

    @Test
    void aRefusedDeliveryStopsTheSweepAndStaysInTheOutbox() {
        Setup s = Setup.on("standalone");
        String first = s.hold(2);
        String broken = s.hold(1);
        s.redis().set(s.sub(broken, JobSub.PROCESSED), "not a hash");
        String a = s.children().mintId();
        String b = s.children().mintId();
        s.redis().rpush(C.flowOutbox(), completion(first, a), completion(broken, a), completion(first, b));

        assertThrows(JedisDataException.class, () -> s.children().deliverOutbox(100));

        assertEquals(List.of(completion(broken, a), completion(first, b)), s.redis().lrange(C.flowOutbox(), 0, -1));
        assertEquals(Set.of(a, b), s.redis().hkeys(s.sub(first, JobSub.PROCESSED)),
                "the calls travel in one pipeline, so the entry after the refused one was delivered too");
        s.redis().del(s.sub(broken, JobSub.PROCESSED));
        assertEquals(List.of(FlowDelivery.RELEASED, FlowDelivery.REPEATED), s.children().deliverOutbox(100).outcomes(),
                "next sweep: the refused entry, then the one after it again, to no effect");
        assertEquals(List.of(first, broken), s.parents().pendingInServeOrder(10));
    }

    @Test
    void concurrentDeliverersOfOneOutboxLoseNoEntry() throws Exception {
        Setup s = Setup.on("standalone");
        int children = 300;
        String parent = s.hold(children);
        AtomicBoolean pushed = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> deliverers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                deliverers.add(pool.submit(() -> {
                    while (!pushed.get() || s.redis().llen(C.flowOutbox()) > 0) {
                        s.children().deliverOutbox(7);
                    }
                    return null;
                }));
            }
            for (int i = 0; i < children; i++) {
                s.redis().rpush(C.flowOutbox(), completion(parent, s.children().mintId()));
            }
            pushed.set(true);
            for (Future<?> f : deliverers) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(children, s.redis().hlen(s.sub(parent, JobSub.PROCESSED)));
        assertEquals("0", s.redis().get(s.sub(parent, JobSub.DEPENDENCIES)));
        assertEquals(JobState.PENDING, s.parents().state(parent));
    }
}
