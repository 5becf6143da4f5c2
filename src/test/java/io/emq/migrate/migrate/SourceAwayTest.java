package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.server.LocalCluster;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ClusterFailoverOption;

/**
 * A source server lost mid-copy. The master of a cluster source's queue slot killed (SIGKILL, as a crash) and its
 * replica promoted: the step's next try goes to the new master, and the run retires the queue, every job once, well
 * within the documented minute (before, each try went to the dead master again, the client's slot map never renewed,
 * until the row of ten ran out), the dead master no longer named as the server the run waits for. A source that stays away ends a run of several queues after one row of tries, each
 * queue told to re-run (before, each queue spent a row of its own: a minute a queue).
 */
class SourceAwayTest {
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String PREFIX = "{away}";
    static final int JOBS = 3_000;

    @BeforeEach
    void clean() {
        TARGET.client().flushAll();
    }

    @Test
    void theClusterSourceQueuesMasterKilledMidCopyAndItsReplicaPromotedIsRiddenOut() {
        String queue = "killed";
        try (LocalCluster cluster = LocalCluster.start(3, 1)) {
            int pair = cluster.givenSlot(Slots.slot(PREFIX));
            LocalServer master = cluster.nodes().get(pair);
            LocalServer replica = cluster.replicasOf(pair).get(0);
            boolean[] killed = {false};
            Migrator[] running = {null};
            List<Optional<String>> waitingFor = new ArrayList<>();
            MigrationResult r;
            try (UnifiedJedis source = Endpoint.parse("redis+cluster://" + cluster.nodes().get(0).hostAndPort()).open()) {
                V1QueueGenerator.addWaiting(source, PREFIX, queue, 1, JOBS, 20);
                Migrator migrator = new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), cluster.uri(),
                        MigrationOptions.defaults().withLease(Duration.ofMillis(300)), Checkpoints.observed((version, where) -> {
                            if (version == 30 && where.equals("expectations recorded") && !killed[0]) {
                                killed[0] = true;
                                killAndPromote(master, replica);
                            }
                            if (version == 120 && where.equals("caught up") && waitingFor.isEmpty()) {
                                Sleep.millis(ServerWatch.SILENT.toMillis() + 500); // the dead master silent long enough to be told
                                waitingFor.add(running[0].waitingFor());
                            }
                        }));
                running[0] = migrator;
                // a row of ten tries waits 64 s in all: a try that finds the new master ends the run far sooner
                r = assertTimeoutPreemptively(Duration.ofSeconds(45), () -> migrator.migrate(List.of(PREFIX), List.of(queue)).get(0));
            }
            assertTrue(killed[0], r.toString());
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
            assertEquals(List.of(Optional.empty()), waitingFor, "the dead master, replaced, is not waited on");
            assertEquals(JOBS, TARGET.client().zcard(Keys.queue(queue).pending()));
            assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), queue, JOBS), "every job once");
            try (UnifiedJedis anew = Endpoint.parse("redis+cluster://" + replica.hostAndPort()).open()) {
                assertEquals(SourceFence.TOMBSTONE, anew.hget(PREFIX + ":" + queue + ":meta", "version"));
            }
        }
    }

    @Test
    void aSourceThatStaysAwayEndsARunOfSeveralQueuesAfterOneRowOfTries() {
        List<String> queues = List.of("first", "second", "third");
        try (LocalServer server = LocalServer.start(); UnifiedJedis source = Endpoint.parse(server.uri()).open()) {
            queues.forEach(q -> V1QueueGenerator.addWaiting(source, q, 1, 3 * JobWriter.BATCH, 20));
            boolean[] killed = {false};
            List<MigrationResult> results = new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), server.uri(),
                    MigrationOptions.defaults(), Checkpoints.observed((version, where) -> {
                        if (version == 30 && where.equals("expectations recorded") && !killed[0]) {
                            killed[0] = true;
                            server.kill(); // and it stays away
                        }
                    })).reconnectWaits(ConnectionDropsTest.QUICK_RECONNECTS).migrate(List.of("bull"), queues);
            assertTrue(killed[0]);
            assertEquals(queues, results.stream().map(MigrationResult::v2Queue).toList());
            for (MigrationResult r : results) {
                assertEquals(MigrationResult.Outcome.FAILED, r.outcome(), r.message());
                assertEquals(Optional.of(MigrationRefused.Kind.CONNECTION), r.refusalKind(), r.message());
                assertTrue(r.message().contains("refused the connection (nothing listens at its address: it is down or restarting)")
                        && r.message().endsWith("; re-run migrate once the server is reachable (steps resume where they were)"), r.message());
            }
            // one queue's step spends the row (which queue's, and at which step, depends on how far the reads ran ahead)
            assertEquals(1, results.stream().filter(r -> r.message().contains(" lost its connection 10 times in a row over ")).count(),
                    results.toString());
            assertEquals(2, results.stream().filter(r -> r.message().contains(" lost its connection and was not tried again (another"
                    + " queue's step lost its connection 10 times in a row before it, and no queue progressed since): ")).count(),
                    results.toString());
        }
    }

    /** Kills {@code master} once {@code replica} holds all it wrote, then has the replica take its slots over at once. */
    private static void killAndPromote(LocalServer master, LocalServer replica) {
        try (Jedis m = connect(master); Jedis r = connect(replica)) {
            for (int n = 0; n < 400 && !offset(m).equals(offset(r)); n++) {
                Sleep.millis(25);
            }
            assertEquals(offset(m), offset(r), "the replica holds all its master wrote");
            master.kill();
            r.clusterFailover(ClusterFailoverOption.TAKEOVER);
            for (int n = 0; n < 400 && !r.info("replication").contains("role:master"); n++) {
                Sleep.millis(25);
            }
            assertTrue(r.info("replication").contains("role:master"), "the replica took over");
        }
    }

    private static String offset(Jedis node) {
        return node.info("replication").lines().filter(l -> l.startsWith("master_repl_offset:")).findFirst().orElseThrow();
    }

    private static Jedis connect(LocalServer node) {
        return new Jedis(node.hostAndPort(), DefaultJedisClientConfig.builder().resp2().build());
    }
}
