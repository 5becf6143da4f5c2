package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target with a replica: a failover after v1 gave a job up must not promote a replica short of its row. Retirement
 * waits for the replica to acknowledge v2's writes before the pause, before the tombstone and before deleting jobs;
 * a replica that does not (a stalled process, SIGSTOP) refuses the queue ({@code replicas-behind}) with nothing of
 * v1 deleted and v1 serving, and a re-run once it is back retires every job once. (A stalled replica stays online
 * for its master until its link times out, 60 s.)
 */
class TargetReplicasTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();

    static final String QUEUE = "mirrored";
    static final int JOBS = 300;
    /** With a wait for locks: the live worker may hold a job as the pause lands, and the pass waits for it, as an operator running beside a worker asks. */
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300)).withWaitForLocks(Duration.ofSeconds(10));
    static final String META = "bull:" + QUEUE + ":meta";

    private LocalServer master;
    private LocalServer replica;
    private UnifiedJedis target;
    private UnifiedJedis copy;

    @BeforeEach
    void start() {
        SOURCE.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
        master = LocalServer.start();
        replica = LocalServer.startReplicaOf(master);
        target = Endpoint.parse(master.uri()).open();
        copy = Endpoint.parse(replica.uri()).open();
    }

    @AfterEach
    void stop() {
        replica.resume();
        copy.close();
        target.close();
        replica.close();
        master.close();
    }

    private MigrationResult migrate(Checkpoints checkpoints) {
        return migrate(target, checkpoints);
    }

    /** Migrates the queue into the target master through {@code into}, a client of it (as a user of its own). */
    private static MigrationResult migrate(UnifiedJedis into, Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(into), SOURCE.uri(), OPTIONS, checkpoints)
                .migrate(List.of("bull"), List.of(QUEUE)).get(0);
    }

    private Optional<Long> replicasAwaited() {
        return new Journal(Wire.open(target), QUEUE).header().get(JournalHeader.REPLICAS_AWAITED);
    }

    private void retiredOnce(MigrationResult finished) {
        assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
        assertEquals(JOBS, target.zcard(Keys.queue(QUEUE).pending()), "every job once");
        assertEquals(SourceFence.TOMBSTONE, SOURCE.client().hget(META, "version"));
        assertEquals(Optional.of(1L), replicasAwaited());
    }

    /** v1 holds every job, listed, and serves: neither paused nor tombstoned. */
    private static void v1Intact() {
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "every v1 job listed in wait");
        assertEquals(JOBS, SOURCE.client().keys("bull:" + QUEUE + ":[0-9]*").size(), "every v1 job hash kept");
        assertNull(SOURCE.client().hget(META, "paused"), "v1 serves");
        assertFalse(SourceFence.TOMBSTONE.equals(SOURCE.client().hget(META, "version")), "no tombstone");
    }

    @Test
    void aReplicaThatKeepsUpIsWaitedForAndHoldsEveryRowBeforeTheTombstone() {
        long[] onTheReplica = {-1};
        MigrationResult finished = migrate(Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("before retire")) {
                onTheReplica[0] = copy.zcard(Keys.queue(QUEUE).pending());
            }
        }));
        retiredOnce(finished);
        assertEquals(JOBS, onTheReplica[0], "the replica held every row when v1's structures were deleted");
    }

    @Test
    void aStalledReplicaRefusesTheQueueBeforeThePauseWithV1ServingAndARerunRetiresEveryJobOnce() {
        replica.stall();
        MigrationResult refused = migrate(Checkpoints.none());
        assertEquals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND), refused.refusalKind(), refused.message());
        assertTrue(refused.message().contains("has 1 replica online and 0 acknowledged v2's writes within 5 s")
                && refused.message().contains("nothing of v1 was deleted, and it serves on"), refused.message());
        v1Intact();
        assertEquals(Optional.empty(), new Journal(Wire.open(target), QUEUE).header().get(JournalHeader.V1_PAUSED_AT), "v1 was never paused");

        replica.resume();
        retiredOnce(migrate(Checkpoints.none()));
    }

    /** A target user without {@code WAIT} is waited for through the replicas' acknowledged offsets ({@code INFO replication}). */
    @Test
    void aTargetUserThatMayNotRunWaitIsWaitedForThroughTheReplicasOffsets() {
        try (Jedis admin = new Jedis(master.hostAndPort())) {
            admin.aclSetUser("migrator", (LeastPrivilegeTest.TARGET_ACL + " +info -wait").split(" "));
        }
        MigrationResult finished;
        try (UnifiedJedis migrator = Endpoint.parse("redis://migrator:s3cret@" + master.uri().substring("redis://".length())).open()) {
            MigrationResult refused = migrate(migrator, Stall.at(replica, 120, "v1 paused"));
            assertEquals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("has 1 replica online and 0 acknowledged v2's writes within 5 s (their offsets in INFO"
                    + " replication: the user may not run WAIT)") && refused.message().contains("its pause is given back"), refused.message());
            v1Intact();
            replica.resume();
            finished = migrate(migrator, Checkpoints.none());
        }
        retiredOnce(finished);
    }

    @Test
    void aReplicaThatStallsInsideThePauseWindowRefusesTheQueueBeforeTheTombstoneAndGivesV1Back() {
        MigrationResult refused = migrate(Stall.at(replica, 120, "v1 paused"));
        assertEquals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND), refused.refusalKind(), refused.message());
        assertTrue(refused.message().contains("its pause is given back"), refused.message());
        v1Intact();

        replica.resume();
        retiredOnce(migrate(Checkpoints.none()));
    }

    /**
     * A producer and a worker keep using v1 through a refusal and the re-run: a replica stalled at "v1 paused" refuses
     * the queue before the tombstone, v1 serves them again, and once the replica runs again a re-run retires the queue
     * while they go on. Every job v1 took is then once in v2, or finished by the worker, never both.
     */
    @Test
    void aLiveProducerAndWorkerBesideAReplicaStalledInThePauseWindowLoseAndDoubleNoJob() throws InterruptedException {
        Set<String> added = ConcurrentHashMap.newKeySet();
        Set<String> completed = ConcurrentHashMap.newKeySet();
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
        AtomicBoolean stop = new AtomicBoolean();
        Thread producer = new Thread(() -> {
            try (UnifiedJedis v1 = Endpoint.parse(SOURCE.uri()).open()) {
                while (!stop.get()) {
                    LiveV1.add(v1, QUEUE).ifPresent(added::add);
                    Sleep.millis(5);
                }
            }
        });
        Thread worker = new Thread(() -> {
            try (UnifiedJedis v1 = Endpoint.parse(SOURCE.uri()).open()) {
                while (!stop.get()) {
                    LiveV1.take(v1, QUEUE, false, 5_000).filter(id -> LiveV1.complete(v1, QUEUE, id)).ifPresent(completed::add);
                    Sleep.millis(5);
                }
            }
        });
        producer.start();
        worker.start();
        long servedAgain;
        MigrationResult refused;
        MigrationResult finished;
        try {
            refused = migrate(Stall.at(replica, 120, "v1 paused"));
            int before = completed.size();
            for (int i = 0; i < 200 && completed.size() == before; i++) {
                Sleep.millis(10);
            }
            servedAgain = completed.size() - before;
            replica.resume();
            finished = migrate(Checkpoints.none());
            Sleep.millis(100); // adds refused by the tombstone, takes finding nothing
        } finally {
            stop.set(true);
            producer.join();
            worker.join();
        }
        assertEquals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND), refused.refusalKind(), refused.message());
        assertTrue(servedAgain > 0, "the worker is served again once the pause is given back");
        assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.message());
        assertTrue(added.size() > JOBS && !completed.isEmpty(), added.size() + " added, " + completed.size() + " completed");
        assertEquals(List.of(), LiveV1.problems(SOURCE.client(), "bull", target, QUEUE, Set.copyOf(added), Set.copyOf(completed), true));
        assertEquals(added.size() - completed.size(), target.zcard(Keys.queue(QUEUE).pending()), "the rest pending in v2");
    }
}
