package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * A v1 queue on a three-master cluster (its keys share a slot through the hash-tagged prefix, as BullMQ on a cluster
 * requires) migrates as one on a single server does: every job once into v2, the v1 queue retired, the change feed
 * watching it on the master of its slot until that master no longer holds it as it did. A run stopped
 * midway resumes through any node of that cluster, also one the address it began from does not name (the journal
 * records the replication id of the master that serves the queue's slot), and a server that merely holds a queue of
 * the same name is refused with nothing written.
 */
class ClusterSourceTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.cluster();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String PREFIX = "{v1}";
    static final String QUEUE = "orders";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    @BeforeEach
    void clean() {
        clean(SOURCE, TARGET);
    }

    /** Empties a cluster source, its queue's slot served stable again (as a test that moved it left it), and the target. */
    static void clean(RealServerExtension source, RealServerExtension target) {
        source.nodes().forEach(node -> {
            try (var n = source.node(node)) {
                n.clusterSetSlotStable(Slots.slot(PREFIX));
                n.flushAll();
            }
        });
        target.client().flushAll();
    }

    /** The address of the cluster as {@code --source} would name it through these seeds alone. */
    private static String through(List<HostAndPort> seeds) {
        StringBuilder uri = new StringBuilder("redis+cluster://");
        for (int i = 0; i < seeds.size(); i++) {
            uri.append(i == 0 ? "" : ",").append(seeds.get(i).getHost()).append(':').append(seeds.get(i).getPort());
        }
        return Endpoint.parse(uri.toString()).describe();
    }

    private static List<MigrationResult> migrate(UnifiedJedis source, String sourceName, Checkpoints checkpoints) {
        return new Migrator(Wire.unfenced(source), Wire.open(TARGET.client()), sourceName, OPTIONS, checkpoints)
                .migrate(List.of(PREFIX), List.of(QUEUE));
    }

    private static Journal journal() {
        return new Journal(Wire.open(TARGET.client()), QUEUE);
    }

    private static void assertRetired(MigrationResult r) {
        assertRetired(r, JOBS);
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
    }

    private static void assertRetired(MigrationResult r, int pending) {
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertEquals(pending, TARGET.client().zcard(Keys.queue(QUEUE).pending()));
        assertEquals(SourceFence.TOMBSTONE, SOURCE.client().hget(PREFIX + ":" + QUEUE + ":meta", "version"));
        assertFalse(SOURCE.client().exists(PREFIX + ":" + QUEUE + ":1"), "the v1 job hashes retired");
    }

    @Test
    void aQueueOnAClusterMigratesEveryJobOnceAndIsRetired() {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        assertRetired(migrate(SOURCE.client(), through(SOURCE.nodes()), Checkpoints.none()).get(0));
    }

    /**
     * BullMQ on a cluster may keep the hash tag in the queue's name instead of the prefix ({@code bull:{orders}:…}): the
     * keys under the prefix {@code bull} then spread over every master, and discovery walks each master's keyspace (a
     * cluster client scans one slot's master only, and refuses a pattern without a hash tag). Besides it, a queue whose
     * keys have no hash tag at all is found too (and refused by migrate for its name, as any invalid one).
     */
    @Test
    void aQueueWhoseNameHoldsTheHashTagIsDiscoveredUnderAPlainPrefixAndMigrated() {
        V1QueueGenerator.addWaiting(SOURCE.client(), "bull", "{orders}", 1, JOBS, 20);
        V1QueueGenerator.addWaiting(SOURCE.client(), "bull", "{invoices}", 1, 5, 20);
        MigrationResult r = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(TARGET.client()), through(SOURCE.nodes()),
                OPTIONS.withRenames(java.util.Map.of("{orders}", QUEUE)), Checkpoints.none()).migrate(List.of("bull"), List.of("{orders}")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertEquals(JOBS, TARGET.client().zcard(Keys.queue(QUEUE).pending()));
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, JOBS), "every job once");
        assertEquals(SourceFence.TOMBSTONE, SOURCE.client().hget("bull:{orders}:meta", "version"));
        assertEquals(5, SOURCE.client().llen("bull:{invoices}:wait"), "the other queue under the prefix untouched");
    }

    /**
     * A v1 producer adds and a v1 worker takes and completes jobs while v1 serves (the copy, V110); an add inside the
     * pause window fails. The change feed tracks the queue on the master of its slot: each re-sync pass reads only
     * what v1 wrote since the pass before, the one under the pause too.
     */
    @Test
    void jobsAddedAndCompletedWhileV1ServesOnAClusterEndExactlyOnce() {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        Set<String> waiting = new TreeSet<>();
        LongStream.rangeClosed(1, JOBS).forEach(n -> waiting.add(Long.toString(n)));
        List<Boolean> addsInTheWindow = new ArrayList<>();
        Set<String> acted = new HashSet<>();
        MigrationResult r = migrate(SOURCE.client(), through(SOURCE.nodes()), Checkpoints.observed((version, where) -> {
            String at = version + ":" + where;
            if (List.of("10:v2 paused", "30:rows written", "110:verified, not yet recorded").contains(at) && acted.add(at)) {
                for (int i = 0; i < 20; i++) {
                    waiting.add(LiveV1.add(SOURCE.client(), PREFIX, QUEUE, false).orElseThrow());
                }
                for (int i = 0; i < 5; i++) {
                    waiting.remove(takeAndComplete(SOURCE.client()));
                }
            } else if (at.equals("120:v1 paused") && acted.add(at)) {
                addsInTheWindow.add(LiveV1.add(SOURCE.client(), PREFIX, QUEUE, false).isPresent());
            }
        })).get(0);
        assertEquals(4, acted.size(), "the producer and the worker acted at every checkpoint named");
        assertRetired(r, waiting.size());
        assertEquals(List.of(false), addsInTheWindow, "the add counter is frozen from the pause: the add fails");
        Journal journal = journal();
        List<String> pending = TARGET.client().zrange(Keys.queue(QUEUE).pending(), 0, -1).stream()
                .map(id -> new String(journal.ids().lookupV2(BrandedId.of(id)).orElseThrow(), StandardCharsets.UTF_8)).toList();
        assertEquals(waiting, new TreeSet<>(pending), "every job v1 held waiting at the cutover, none it completed");
        assertEquals(waiting.size(), pending.size(), "each once");
        assertEquals(Optional.empty(), r.withoutFeed(), r.message());
        Map<String, Long> catchUp = LiveV1.stepCounts(TARGET.client(), QUEUE, 100);
        Map<String, Long> retire = LiveV1.stepCounts(TARGET.client(), QUEUE, 120);
        assertTrue(catchUp.containsKey("delta-keys") && !catchUp.containsKey("full-pass"), "the catch-up's passes deltas: " + catchUp);
        assertTrue(retire.containsKey("pass-delta-keys") && !retire.containsKey("pass-full-pass"), "the pass under the pause a delta: " + retire);
        assertTrue(retire.get("unlinked") > 0, "the jobs the feed told unwritten unlinked on its word: " + retire);
    }

    /** The master that holds the queue's slot, then the others. */
    private static List<HostAndPort> ownerFirst() {
        return ownerFirst(SOURCE, PREFIX);
    }

    /** The master of {@code cluster} that holds the slot of a queue under {@code prefix}, then the others. */
    static List<HostAndPort> ownerFirst(RealServerExtension cluster, String prefix) {
        List<HostAndPort> masters = new ArrayList<>(cluster.nodes());
        for (HostAndPort node : cluster.nodes()) {
            try (Jedis n = cluster.node(node)) {
                if (SourceFeed.Placement.read(n.getConnection(), Slots.slot(prefix)).isPresent()) {
                    masters.remove(node);
                    masters.add(0, node);
                }
            }
        }
        return masters;
    }

    /**
     * A master that gave the queue's slot away and took it back between two drains bumped its config epoch (as
     * {@code CLUSTER BUMPEPOCH} on another master, then on it, does): the feed of that master could not tell what the
     * other wrote meanwhile, so it breaks, and the passes after it read the whole queue; every job once.
     */
    @Test
    void aSlotGivenAwayAndTakenBackBetweenTwoDrainsBreaksTheFeedAndTheRunEndsExactlyOnce() {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        List<HostAndPort> masters = ownerFirst();
        boolean[] bumped = {false};
        MigrationResult r;
        try (Jedis owner = SOURCE.node(masters.get(0)); Jedis other = SOURCE.node(masters.get(1))) {
            r = migrate(SOURCE.client(), through(SOURCE.nodes()), Checkpoints.observed((version, where) -> {
                if (version == 30 && where.equals("rows built") && !bumped[0]) { // the watch began at the fence; the catch-up drains it
                    other.sendCommand(Protocol.Command.CLUSTER, "BUMPEPOCH");
                    bumped[0] = new String((byte[]) owner.sendCommand(Protocol.Command.CLUSTER, "BUMPEPOCH"),
                            StandardCharsets.UTF_8).startsWith("BUMPED");
                }
            })).get(0);
        }
        assertTrue(bumped[0], "the owner's epoch bumped");
        assertRetired(r);
        assertTrue(r.withoutFeed().orElse("").contains("slot " + Slots.slot(PREFIX) + " moved"), r.withoutFeed().toString());
        assertEquals(1L, LiveV1.stepCounts(TARGET.client(), QUEUE, 100).get("full-pass"), "the catch-up read the whole queue");
        assertEquals(1L, LiveV1.stepCounts(TARGET.client(), QUEUE, 120).get("pass-full-pass"), "so did the pass under the pause");
    }

    /**
     * A slot its master is migrating to another when the feed is drained: keys moved may be written on the other, so
     * the drain tells nothing and the feed is broken. (A run's full pass then reads through the pipelines of one node,
     * which do not follow the slot: its step fails with nothing deleted, to be run again once the slot settled.)
     */
    @Test
    void aSlotMigratingWhenTheFeedIsDrainedBreaksIt() {
        int slot = Slots.slot(PREFIX);
        List<HostAndPort> masters = ownerFirst();
        try (SourceFeed feed = new SourceFeed(Wire.unfenced(SOURCE.client()));
             Jedis owner = SOURCE.node(masters.get(0)); Jedis other = SOURCE.node(masters.get(1))) {
            SourceFeed.Watch watch = feed.watch(QueueRef.of(PREFIX, QUEUE)).orElseThrow();
            String job = PREFIX + ":" + QUEUE + ":1";
            SOURCE.client().hset(job, "data", "{}");
            assertEquals(Optional.of(Set.of(Bytes.of(job.getBytes(StandardCharsets.UTF_8)))), watch.drainKeys(), "told while the slot stays");
            beginReshard(owner, other);
            assertEquals(Optional.empty(), watch.drainKeys());
            assertTrue(watch.whyNot().contains("slot " + slot + " moved"), watch.whyNot());
        }
    }

    /**
     * A reshard of the queue's slot begun while v1 serves: the pass after it reads the whole queue (the feed broke)
     * through pipelines of the old master, which sends a read of a key it lacks elsewhere ({@code ASK}). The step stops
     * with nothing deleted and says so, and once the reshard ended (every key on the new master) a re-run resumes the
     * step without a repair, reads the queue where it is now, and ends exactly once.
     */
    @Test
    void aReshardOfTheQueuesSlotStopsTheStepAndARerunAfterItResumesWithoutARepair() {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        int slot = Slots.slot(PREFIX);
        List<HostAndPort> masters = ownerFirst();
        try (Jedis owner = SOURCE.node(masters.get(0)); Jedis other = SOURCE.node(masters.get(1))) {
            MigrationResult r = migrateBeginningAReshardAt("30:rows built", owner, other);
            assertSlotMoving(r, "step V100 (catch up) of " + QUEUE + " stopped: the cluster's master sent a command on the queue's"
                    + " keys elsewhere, as their slot is being resharded (ASK " + slot + " ", "; nothing was deleted; ");
            assertEquals(JOBS, owner.llen(PREFIX + ":" + QUEUE + ":wait"), "v1 as it was, on the master it was on");
            try {
                for (String key : owner.clusterGetKeysInSlot(slot, 10 * JOBS)) {
                    owner.migrate(masters.get(1).getHost(), masters.get(1).getPort(), key, 0, 5_000);
                }
                other.clusterBumpEpoch(); // its claim made with the greatest config epoch, so every node's gossip settles on it
                for (HostAndPort node : List.of(masters.get(1), masters.get(0), masters.get(2))) {
                    try (Jedis n = SOURCE.node(node)) {
                        n.clusterSetSlotNode(slot, other.clusterMyId());
                    }
                }
                awaitEveryNodeSees(slot, masters.get(1));
                sleepPastTheLease();
                try (UnifiedJedis anew = Endpoint.parse("redis+cluster://" + SOURCE.nodes().get(0)).open()) { // a new run's client: the slot where it is now
                    assertRetired(migrate(anew, through(SOURCE.nodes()), Checkpoints.none()).get(0));
                }
                assertEquals(List.of(), owner.clusterGetKeysInSlot(slot, 1), "nothing of the queue left on the old master");
            } finally { // the slot back to its first master, empty, whoever each node's gossip names now (the body may have
                // stopped before the slot moved, or a loaded machine's gossip may not have settled): its claim made with the
                // greatest config epoch, so every node's gossip settles on it
                SOURCE.nodes().forEach(node -> {
                    try (Jedis n = SOURCE.node(node)) {
                        n.flushAll();
                        n.clusterSetSlotStable(slot);
                    }
                });
                owner.clusterBumpEpoch();
                for (HostAndPort node : List.of(masters.get(0), masters.get(1), masters.get(2))) {
                    try (Jedis n = SOURCE.node(node)) {
                        n.clusterSetSlotNode(slot, owner.clusterMyId());
                    }
                }
                awaitEveryNodeSees(slot, masters.get(0)); // a loaded machine's gossip may take a moment to settle the epochs
                SOURCE.client().exists(PREFIX + ":" + QUEUE + ":meta"); // the shared client, told MOVED, follows the slot back
            }
        }
    }

    /**
     * A reshard begun inside the pause window (v1 paused, before the tombstone): the pass under the pause stops
     * ({@code TRYAGAIN} or {@code ASK}; the message says what it left of v1), and once the reshard was called off a
     * re-run resumes the retirement without a repair and ends exactly once.
     */
    @Test
    void aReshardBegunInsideThePauseWindowStopsTheRetirementAndARerunFinishesIt() {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        int slot = Slots.slot(PREFIX);
        List<HostAndPort> masters = ownerFirst();
        try (Jedis owner = SOURCE.node(masters.get(0)); Jedis other = SOURCE.node(masters.get(1))) {
            MigrationResult r = migrateBeginningAReshardAt("120:v1 paused", owner, other);
            assertSlotMoving(r, "step V120 (retire source) of " + QUEUE + " stopped: the cluster's master ", "as their slot is being resharded (");
            other.clusterSetSlotStable(slot);
            owner.clusterSetSlotStable(slot);
            sleepPastTheLease();
            assertRetired(migrate(SOURCE.client(), through(SOURCE.nodes()), Checkpoints.none()).get(0));
        }
    }

    /** Migrates the queue, beginning at checkpoint {@code at} (its first hit) a reshard of its slot from {@code owner} to {@code other}. */
    private static MigrationResult migrateBeginningAReshardAt(String at, Jedis owner, Jedis other) {
        boolean[] begun = {false};
        return migrate(SOURCE.client(), through(SOURCE.nodes()), Checkpoints.observed((version, where) -> {
            if ((version + ":" + where).equals(at) && !begun[0]) {
                beginReshard(owner, other);
                begun[0] = true;
            }
        })).get(0);
    }

    /**
     * Waits, 30 s at most (the gossip is slow on a loaded machine), until every master's {@code CLUSTER SLOTS} names
     * {@code owner} as the master of {@code slot}. A node that still names another after a second is told again: a
     * gossip message sent before the move, met before the owner's new epoch, can turn a node back to the old master.
     */
    private static void awaitEveryNodeSees(int slot, HostAndPort owner) {
        for (HostAndPort node : SOURCE.nodes()) {
            try (Jedis n = SOURCE.node(node)) {
                for (int i = 1; !servedBy(n, slot).equals(owner.toString()); i++) {
                    assertTrue(i < 1200, node + " still names " + servedBy(n, slot) + " as the master of slot " + slot);
                    if (i % 40 == 0) {
                        try (Jedis o = SOURCE.node(owner)) {
                            o.clusterBumpEpoch();
                            n.clusterSetSlotNode(slot, o.clusterMyId());
                        }
                    }
                    Sleep.millis(25);
                }
            }
        }
    }

    /** The master of {@code slot} as {@code CLUSTER SLOTS} on {@code n} names it ({@code host:port}). */
    private static String servedBy(Jedis n, int slot) {
        for (Object entry : n.clusterSlots()) {
            List<?> range = (List<?>) entry;
            if ((Long) range.get(0) <= slot && slot <= (Long) range.get(1)) {
                List<?> master = (List<?>) range.get(2);
                return new String((byte[]) master.get(0), StandardCharsets.UTF_8) + ":" + master.get(1);
            }
        }
        return "no master";
    }

    /** Begins moving the queue's slot from {@code owner} to {@code other}, as a reshard does: importing there, migrating here. */
    private static void beginReshard(Jedis owner, Jedis other) {
        other.clusterSetSlotImporting(Slots.slot(PREFIX), owner.clusterMyId());
        owner.clusterSetSlotMigrating(Slots.slot(PREFIX), other.clusterMyId());
    }

    private static void assertSlotMoving(MigrationResult r, String begins, String holds) {
        assertEquals(MigrationResult.Outcome.FAILED, r.outcome(), r.message());
        assertEquals(Optional.of(MigrationRefused.Kind.SLOT_MOVING), r.refusalKind(), r.message());
        assertTrue(r.message().startsWith(begins) && r.message().contains(holds), r.message());
        assertTrue(r.message().endsWith("don't reshard a queue's slot during its migration, then run migrate again: the step"
                + " resumes, nothing to repair"), r.message());
    }

    /** Waits until the stopped run's lease (300 ms) lapsed, in case the server refused its release. */
    private static void sleepPastTheLease() {
        try {
            Thread.sleep(400);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Two migrations of the queue into two targets, a v1 producer adding all along: the second runs to the end while the
     * first waits (in its copy, its feed watching the queue on the slot's master; or verifying, its passes done), and
     * retires the queue; the first, going on, is refused before it acts on the queue it reads (a pass would find it
     * empty and drop every row; the retirement took the tombstone for its own), its copy as it was, paused, never
     * served; the second's target holds every job v1 held, once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"30:rows built", "110:verified, not yet recorded"})
    void aSecondMigrationThatRetiresTheQueueMeanwhileLeavesTheFirstRefusedAndEveryJobOnceInTheSecond(String meanwhile) {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        int[] added = {0};
        Runnable producer = () -> {
            for (int i = 0; i < 10; i++) {
                LiveV1.add(SOURCE.client(), PREFIX, QUEUE, false).ifPresent(id -> added[0]++);
            }
        };
        MigrationResult[] second = new MigrationResult[1];
        try (LocalServer otherServer = LocalServer.start(); UnifiedJedis other = Endpoint.parse(otherServer.uri()).open()) {
            MigrationResult first = migrate(SOURCE.client(), through(SOURCE.nodes()), Checkpoints.observed((version, where) -> {
                if ((version + ":" + where).equals(meanwhile) && second[0] == null) {
                    producer.run();
                    second[0] = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(other), through(SOURCE.nodes()), OPTIONS,
                            Checkpoints.observed((v, w) -> {
                                if (List.of("30:rows built", "100:pass recorded").contains(v + ":" + w)) {
                                    producer.run();
                                }
                            })).migrate(List.of(PREFIX), List.of(QUEUE)).get(0);
                    producer.run(); // refused now: the tombstone
                }
            })).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, second[0].outcome(), second[0].message());
            assertEquals(Optional.empty(), second[0].withoutFeed(), "the second watched the queue too: " + second[0].message());
            assertTrue(added[0] >= 10, "the producer added while both ran: " + added[0]);
            assertEquals(List.of(), LiveV1.exactlyOnce(other, QUEUE, JOBS + added[0]), "every job v1 held, once, in the second target");
            assertEquals(Optional.of(MigrationRefused.Kind.RETIRED), first.refusalKind(), first.message());
            assertEquals(JOBS, TARGET.client().zcard(Keys.queue(QUEUE).pending()), "the first's copy as it was: no row dropped");
            assertEquals("1", TARGET.client().hget(Keys.queue(QUEUE).meta(), "paused"), "the first target's copy is not served");
            assertEquals(SourceFence.TOMBSTONE, SOURCE.client().hget(PREFIX + ":" + QUEUE + ":meta", "version"));
        }
    }

    /** A worker takes the job at the tail of wait under a lock and completes it, as BullMQ does; its id. */
    private static String takeAndComplete(UnifiedJedis v1) {
        String base = PREFIX + ":" + QUEUE + ":";
        String id = v1.rpoplpush(base + "wait", base + "active");
        v1.set(base + id + ":lock", "worker", SetParams.setParams().px(60_000));
        long now = System.currentTimeMillis();
        v1.lrem(base + "active", -1, id);
        v1.del(base + id + ":lock");
        v1.hset(base + id, Map.of("finishedOn", Long.toString(now), "returnvalue", "null"));
        v1.hincrBy(base + id, "atm", 1);
        v1.zadd(base + "completed", now, id);
        return id;
    }

    /** Why a run's feed would not watch {@code queue}, the first it watches; empty when it would. */
    private static Optional<String> refusal(Wire source, QueueRef queue) {
        try (SourceFeed feed = new SourceFeed(source)) {
            return feed.watch(queue).isPresent() ? Optional.empty() : Optional.of(feed.whyUnwatched(queue));
        }
    }

    /**
     * What the plan's estimate of the window rests on ({@link PauseWindow}): with the feed on a cluster source; without it for a queue
     * whose keys are not of one slot, and for a source user that may not read {@code CLUSTER NODES} (the feed could not
     * tell that the slot stayed).
     */
    @Test
    void aClusterSourceIsWatchedWhereItsMasterTellsItHoldsTheSlot() {
        assertEquals(Optional.empty(), refusal(Wire.unfenced(SOURCE.client()), QueueRef.of(PREFIX, QUEUE)));
        assertEquals(Optional.of("the queue's keys are spread over the cluster's slots (its prefix has no hash tag)"),
                refusal(Wire.unfenced(SOURCE.client()), QueueRef.of("bull", QUEUE)));
        SOURCE.nodes().forEach(node -> {
            try (Jedis n = SOURCE.node(node)) {
                n.aclSetUser("nonodes", "on", ">s3cret", "~*", "&*", "+@all", "-cluster", "+cluster|slots"); // Redis 6.2 takes no "-cluster|nodes"
            }
        });
        try (UnifiedJedis restricted = Endpoint.parse("redis+cluster://nonodes:s3cret@" + SOURCE.nodes().get(0)).open()) {
            assertEquals(Optional.of("the master of the queue's slot " + Slots.slot(PREFIX) + " cannot tell that it holds it"
                    + " (the slot is moving, or the source refuses CLUSTER NODES)"),
                    refusal(Wire.unfenced(restricted), QueueRef.of(PREFIX, QUEUE)));
        } finally {
            SOURCE.nodes().forEach(node -> {
                try (Jedis n = SOURCE.node(node)) {
                    n.aclDelUser("nonodes");
                }
            });
        }
    }

    /** Seeds the queue and migrates it through the cluster's first node alone, stopped at V110; the run's lease lapses. The nodes. */
    private static List<HostAndPort> stoppedAtV110ThroughTheFirstNode() {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, QUEUE, 1, JOBS, 20);
        List<HostAndPort> nodes = SOURCE.nodes();
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(SOURCE.client(), through(nodes.subList(0, 1)),
                Checkpoints.throwingAt("110:verified, not yet recorded#1")));
        TARGET.client().hdel(journal().key(), "lock_owner");
        return nodes;
    }

    @Test
    void aRunStoppedMidwayResumesThroughAnotherNodeOfTheClusterAndTheJournalRecordsItsAddress() {
        List<HostAndPort> nodes = stoppedAtV110ThroughTheFirstNode();
        assertFalse(journal().header().get(JournalHeader.SOURCE_REPLID).orElse("").isEmpty(),
                "the replication id of the master serving the queue's slot is recorded");

        String anotherNode = through(nodes.subList(1, 2));
        MigrationResult resumed = migrate(SOURCE.client(), anotherNode, Checkpoints.none()).get(0);
        assertRetired(resumed);
        assertEquals(Optional.of(anotherNode), journal().header().get(JournalHeader.SOURCE));
    }

    @Test
    void aServerHoldingAQueueOfTheSameNameIsRefusedWithNothingWritten() {
        List<HostAndPort> nodes = stoppedAtV110ThroughTheFirstNode();
        try (LocalServer other = LocalServer.start(); UnifiedJedis elsewhere = Endpoint.parse(other.uri()).open()) {
            V1QueueGenerator.addWaiting(elsewhere, PREFIX, QUEUE, 1, JOBS - 10, 20);
            String before = new KeyspaceDump(elsewhere).digest();
            MigrationResult refused = migrate(elsewhere, Endpoint.parse(other.uri()).describe(), Checkpoints.none()).get(0);
            assertEquals(Optional.of(MigrationRefused.Kind.OTHER_SOURCE), refused.refusalKind(), refused.message());
            assertTrue(refused.message().contains("re-run with --source " + through(nodes.subList(0, 1))), refused.message());
            assertEquals(before, new KeyspaceDump(elsewhere).digest(), "the other server's queue untouched");
        }
        assertRetired(migrate(SOURCE.client(), through(nodes), Checkpoints.none()).get(0));
    }
}
