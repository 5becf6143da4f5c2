package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The v1 queue serves through the copy and is paused only for the last pass: a v1 producer, a v1
 * worker and a second migrator all act at once through a whole run, and every job ends exactly once
 * (a v2 row, or completed in v1 by the worker), waiting jobs in serve order, the window journaled and
 * reported; a crash inside the window leaves v1 paused until a re-run finishes or abandon resumes it.
 */
class PauseWindowTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "window";
    static final int JOBS = 2000;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2))
            .withWaitForLocks(Duration.ofSeconds(10));

    private final Set<String> added = Collections.synchronizedSet(new TreeSet<>());
    private final Set<String> completed = Collections.synchronizedSet(new TreeSet<>());

    @BeforeEach
    void generate() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), QUEUE, 1, JOBS, 100);
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
    }

    private UnifiedJedis client() {
        return SERVER.client();
    }

    private List<MigrationResult> migrate(MigrationOptions options, Checkpoints checkpoints) {
        return MigrationHarness.migrate(SERVER, SERVER, options, checkpoints, List.of("bull"));
    }

    /** The v1 ids of the pending set, in the order a v2 consumer is served. */
    private List<Long> servedOrder() {
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        return client().zrange(Keys.queue(QUEUE).pending(), 0, -1).stream()
                .map(id -> Long.parseLong(new String(journal.ids().lookupV2(BrandedId.of(id)).orElseThrow(), StandardCharsets.UTF_8)))
                .toList();
    }

    /**
     * Every third job, generated or added, carries a dedup key (BullMQ 5's, deleted by the worker that finishes it). With
     * {@code aFlowAStalledJobAndAnomalies}, the queue also holds a flow (parent p1 waiting for children c1 and c2, delayed an hour
     * from now), job 1 stalled in {@code active} (its lock run out: a worker that crashed), job 7's opts no JSON, an id
     * delayed without a hash, the logs list and lock of a job whose hash is gone, a scheduler record the {@code repeat}
     * zset no longer lists and two orphan hashes, migrated with {@code --accept-anomalies} (each one dead row, and no other
     * job dead; the live read meeting an add half-way, which this run meets only by chance, is pinned by
     * {@code LiveSourceTest}): the pass under the pause still refreshes the catch-up's read, the flow lands in v2 whole
     * with its due times, and job 1 is served first.
     */
    @ParameterizedTest(name = "a delayed flow, a stalled job and anomalies: {0}")
    @ValueSource(booleans = {false, true})
    void aProducerAWorkerAndASecondMigratorAtOnceThroughAWholeRunLeaveEveryJobExactlyOnceInServeOrder(boolean aFlowAStalledJobAndAnomalies)
            throws Exception {
        long due = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
        if (aFlowAStalledJobAndAnomalies) {
            addDelayedFlow(due);
            client().lrem("bull:window:wait", 0, "1");
            client().lpush("bull:window:active", "1");
            client().hset("bull:window:1", "processedOn", "1");
            client().hset("bull:window:7", "opts", "not json");
            client().zadd("bull:window:delayed", due * 4096 + 9, "evicted"); // listed without a hash
            client().rpush("bull:window:gone:logs", "a line"); // the keys of a job whose hash was evicted
            client().set("bull:window:gone:lock", "a worker's token");
            client().hset("bull:window:repeat:old", Map.of("every", "60000", "name", "tick")); // a stale scheduler record
            for (String orphan : ORPHANS) { // hashes listed nowhere, as v1's pause/resume wrappers leave: --accept-anomalies
                client().hset("bull:window:" + orphan, Map.of("name", "send", "data", "{}", "timestamp", "1"));
            }
        }
        MigrationOptions options = aFlowAStalledJobAndAnomalies ? OPTIONS.withAcceptAnomalies(true) : OPTIONS;
        Set<String> deduplicated = Collections.synchronizedSet(new TreeSet<>());
        for (int n = 3; n <= JOBS; n += 3) {
            client().hset("bull:window:" + n, "deid", "d" + n);
            client().set("bull:window:de:d" + n, Integer.toString(n));
            deduplicated.add(Integer.toString(n));
        }
        AtomicBoolean stop = new AtomicBoolean();
        long[] refusedAdds = {0};
        long[] adds = {0};
        Thread producer = LiveV1.beside(SERVER.endpoint(), stop, 1, c -> {
            boolean dedup = ++adds[0] % 3 == 0;
            (dedup ? LiveV1.addDeduplicated(c, QUEUE) : LiveV1.add(c, QUEUE)).ifPresentOrElse(id -> {
                added.add(id);
                if (dedup) {
                    deduplicated.add(id);
                }
            }, () -> refusedAdds[0]++);
        });
        Thread worker = LiveV1.beside(SERVER.endpoint(), stop, 1, c -> LiveV1.take(c, QUEUE, false, 5_000).ifPresent(id -> {
            if (LiveV1.complete(c, QUEUE, id)) {
                completed.add(id);
            }
        }));
        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<List<MigrationResult>> second = CompletableFuture.supplyAsync(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return migrate(options, Checkpoints.none());
        });
        go.countDown();
        List<MigrationResult> first = migrate(options, Checkpoints.none());
        List<MigrationResult> both = new ArrayList<>(first);
        both.addAll(second.get());
        stop.set(true);
        producer.join();
        worker.join();

        List<MigrationResult> retired = both.stream().filter(r -> r.outcome() == MigrationResult.Outcome.RETIRED).toList();
        assertFalse(retired.isEmpty(), "one migrator retired the queue: " + both);
        both.stream().filter(r -> !r.ok()).forEach(r -> assertEquals(java.util.Optional.of(MigrationRefused.Kind.LOCKED),
                r.refusalKind(), "the other one is turned away by the lease: " + r));
        assertTrue(added.size() > JOBS && !completed.isEmpty(), "the producer and the worker ran: " + added.size() + " added, "
                + completed.size() + " completed");
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, completed, true), "every job exactly once");
        assertEquals(List.of(), LiveV1.dedupProblems(client(), QUEUE, deduplicated, completed), "each dedup key v1 held, none stale");
        List<Long> served = servedOrder();
        assertEquals(served.stream().sorted().toList(), served, "waiting jobs keep v1's serve order");
        int scheduled = aFlowAStalledJobAndAnomalies ? 2 : 0; // the flow's children, delayed
        assertEquals(added.size() - completed.size() - scheduled, served.size());

        JournalHeader header = new Journal(Wire.open(client()), QUEUE).header();
        long window = header.get(JournalHeader.WINDOW_MS).orElseThrow();
        assertTrue(header.get(JournalHeader.V1_PAUSED_AT).isPresent(), "the pause is journaled");
        assertEquals(window, retired.get(0).pauseWindowMs().orElseThrow(), "the window is reported as journaled");
        assertTrue(retired.get(0).millis() >= window, "the window is part of the run: " + window + " of " + retired.get(0).millis());
        if (aFlowAStalledJobAndAnomalies) {
            assertEquals(1L, served.get(0), "the stalled job is served first, as v1 would after its stall check");
            Map<String, Long> retire = LiveV1.stepCounts(client(), QUEUE, 120);
            assertEquals(1L, retire.get("pass-refreshed-read"), "the flow, the stalled job and the anomalies carried by the refresh under the pause: "
                    + retire);
            assertFlowInV2(due);
            Map<String, Integer> rows = LiveV1.v2Rows(client(), QUEUE);
            assertEquals(ORPHANS.stream().map(o -> 1).toList(), ORPHANS.stream().map(o -> rows.getOrDefault(o, 0)).toList(), "each orphan one row");
            assertEquals(ORPHANS.size(), client().zcard(Keys.queue(QUEUE).dead()), "the orphans dead, no other job");
        }
    }

    /** The orphan hashes of the run with anomalies. */
    private static final List<String> ORPHANS = List.of("o1", "o2");

    /** Parent p1 waits for children c1 and c2, both delayed until {@code due}, as BullMQ's FlowProducer leaves them. */
    private void addDelayedFlow(long due) {
        String queue = "bull:" + QUEUE + ":";
        client().hset(queue + "p1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
        client().sadd(queue + "p1:dependencies", queue + "c1", queue + "c2");
        client().zadd(queue + "waiting-children", 1, "p1");
        int seq = 0;
        for (String child : List.of("c1", "c2")) {
            client().hset(queue + child, Map.of("name", "part", "data", "{}", "opts", "{\"delay\":3600000}", "timestamp", "1",
                    "delay", "3600000", "parentKey", queue + "p1", "parent", "{\"id\":\"p1\",\"queueKey\":\"bull:" + QUEUE + "\"}"));
            client().zadd(queue + "delayed", due * 4096 + ++seq, child);
            added.add(child);
        }
    }

    private void assertFlowInV2(long due) {
        List<BrandedId> ids = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("p1".getBytes(StandardCharsets.UTF_8),
                "c1".getBytes(StandardCharsets.UTF_8), "c2".getBytes(StandardCharsets.UTF_8))).stream()
                .map(java.util.Optional::orElseThrow).toList();
        assertEquals("awaiting_children", client().hget(Keys.queue(QUEUE).job(ids.get(0)), "state"));
        assertEquals("2", client().get(Keys.queue(QUEUE).job(ids.get(0), JobSub.DEPENDENCIES)), "two children pending");
        for (int child = 1; child <= 2; child++) {
            assertEquals(ids.get(0).toString(), client().hget(Keys.queue(QUEUE).job(ids.get(child)), "parent"));
            assertEquals(due, LiveV1.v2Due(client(), QUEUE, "c" + child), "child c" + child + " keeps its due time");
        }
    }

    @Test
    void aCrashInsideTheWindowLeavesV1PausedUntilAbandonResumesItAndGivesTheAddCounterBack() throws Exception {
        MigrationOptions options = OPTIONS.withLease(Duration.ofMillis(300));
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(options, Checkpoints.throwingAt("120:v1 paused#1")));
        assertEquals("1", client().hget("bull:window:meta", "paused"), "v1 is paused inside the window");
        assertTrue(LiveV1.add(client(), QUEUE).isEmpty(), "and its add counter frozen: an add fails loudly");

        abandonOnceTheLeaseLapses(options);
        assertEquals(null, client().hget("bull:window:meta", "paused"), "abandon resumed v1");
        assertEquals(Long.toString(JOBS), client().get("bull:window:id"), "with its add counter");
        assertTrue(LiveV1.add(client(), QUEUE).map(added::add).orElse(false), "a v1 producer adds again");
        assertEquals(JOBS + 1, client().llen("bull:window:wait"), "every job waits in v1");

        MigrationResult again = migrate(OPTIONS, Checkpoints.none()).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, completed, true));
        assertEquals(LongStream.rangeClosed(1, JOBS + 1).boxed().toList(), servedOrder());
    }

    /**
     * A v1 queue its operator paused before the migration: abandon after a crash inside the window gives the add
     * counter back but leaves v1 paused (adds wait in paused, as BullMQ's do), a second abandon finds nothing more to
     * undo, and a re-run retires it with the v2 queue left paused too: the operator's pause is kept on both sides.
     */
    @Test
    void anAbandonOfAQueuePausedBeforeTheMigrationKeepsItPausedAndASecondAbandonUndoesNothing() throws Exception {
        client().rename("bull:window:wait", "bull:window:paused"); // BullMQ's pause: wait becomes paused, meta.paused set
        client().hset("bull:window:meta", "paused", "1");
        MigrationOptions options = OPTIONS.withLease(Duration.ofMillis(300));
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(options, Checkpoints.throwingAt("120:v1 paused#1")));
        assertTrue(LiveV1.add(client(), QUEUE).isEmpty(), "inside the window the add counter is frozen");

        Map<String, Long> undone = abandonOnceTheLeaseLapses(options);
        assertEquals(0L, undone.get("v1-resumed"), "v1 was paused before: it is not resumed");
        assertEquals((long) JOBS, undone.get("rows"));
        assertEquals("1", client().hget("bull:window:meta", "paused"), "v1 is still paused, as its operator left it");
        assertTrue(LiveV1.add(client(), QUEUE).map(added::add).orElse(false), "but its add counter is back: adds are taken");
        assertEquals(JOBS + 1, client().llen("bull:window:paused"), "every job waits in paused, the add last");
        assertFalse(client().exists(Keys.queue(QUEUE).pending()), "v2 keeps no row");
        assertEquals(Map.of("rows", 0L), Abandon.run(Wire.unfenced(client()), Wire.open(client()), QUEUE, options.lease()),
                "a second abandon has nothing to undo");

        MigrationResult again = migrate(OPTIONS, Checkpoints.none()).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, completed, true));
        assertEquals(LongStream.rangeClosed(1, JOBS + 1).boxed().toList(), servedOrder());
        assertTrue(io.emq.migrate.runtime.Jobs.on(Wire.open(client()), QUEUE).isPaused(), "v2 is left paused: v1 was");
    }

    private Map<String, Long> abandonOnceTheLeaseLapses(MigrationOptions options) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return Abandon.run(Wire.unfenced(client()), Wire.open(client()), QUEUE, options.lease());
            } catch (io.emq.migrate.wire.EmqWireException.Lock locked) {
                assertTrue(System.nanoTime() < deadline, "the crashed run's lease never lapsed");
                Thread.sleep(100);
            }
        }
    }

    @Test
    void aCrashInsideTheWindowThenARerunFinishesTheWindowAndCountsItFromThePause() {
        assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS.withLease(Duration.ofMillis(300)),
                Checkpoints.throwingAt("120:before retire#1")));
        long pausedAt = new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.V1_PAUSED_AT).orElseThrow();
        MigrationResult again = awaitRerun();
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        JournalHeader header = new Journal(Wire.open(client()), QUEUE).header();
        assertEquals(pausedAt, header.get(JournalHeader.V1_PAUSED_AT).orElseThrow(), "the window runs from the first pause");
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, completed, true));
        assertEquals(LongStream.rangeClosed(1, JOBS).boxed().toList(), servedOrder());
    }

    /** Re-runs until the crashed run's lease lapsed (the re-run is turned away {@code locked} until then). */
    private MigrationResult awaitRerun() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            MigrationResult r = migrate(OPTIONS, Checkpoints.none()).get(0);
            if (r.refusalKind().filter(k -> k == MigrationRefused.Kind.LOCKED).isEmpty() || System.nanoTime() > deadline) {
                return r;
            }
            Sleep.millis(100);
        }
    }
}
