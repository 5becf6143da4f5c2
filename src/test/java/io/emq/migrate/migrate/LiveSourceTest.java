package io.emq.migrate.migrate;

import java.util.Optional;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The source is live: a v1 producer adding in the BullMQ 5.65.1 shape, and a v1 worker taking jobs,
 * act at named checkpoints of the migration (deterministic interleavings). Every run ends with each job
 * exactly once where it belongs, or with a refusal and v1 intact; never exit 0 with a loss or a double.
 */
class LiveSourceTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "live";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    private final Set<String> added = java.util.Collections.synchronizedSet(new TreeSet<>());
    private final Set<String> completed = java.util.Collections.synchronizedSet(new TreeSet<>());

    @BeforeEach
    void generate() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), QUEUE, 1, JOBS, 100);
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
    }

    private UnifiedJedis client() {
        return SERVER.client();
    }

    private void produce(int n) {
        for (int i = 0; i < n; i++) {
            LiveV1.add(client(), QUEUE).ifPresent(added::add);
        }
    }

    private List<MigrationResult> migrate(MigrationOptions options, Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SERVER, SERVER, options, Checkpoints.observed(observer), List.of("bull"));
    }

    private void assertExactlyOnce(MigrationResult r) {
        boolean retired = r.outcome() == MigrationResult.Outcome.RETIRED;
        assertTrue(retired || !r.ok(), "exit 0 only when retired: " + r);
        List<String> problems = LiveV1.problems(client(), QUEUE, added, completed, retired);
        assertEquals(List.of(), problems, r.toString());
    }

    /** The v1 ids of the pending set, in the order a v2 consumer is served. */
    private List<Long> servedOrder() {
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        return client().zrange(Keys.queue(QUEUE).pending(), 0, -1).stream()
                .map(id -> Long.parseLong(new String(journal.ids().lookupV2(io.emq.migrate.keyspace.BrandedId.of(id)).orElseThrow())))
                .toList();
    }

    @Test
    void jobsAddedWhileV1ServesAreMigratedInServeOrderAndAddsInThePauseWindowFailLoudly() {
        List<Boolean> addsInTheWindow = new java.util.ArrayList<>();
        Checkpoints.Observer copying = atFirst(10, "v2 paused", () -> {
            assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 serves through the copy");
            produce(40);
        });
        List<MigrationResult> r = migrate(OPTIONS, (version, where) -> {
            copying.at(version, where);
            if (version == 120 && where.equals("v1 paused")) {
                addsInTheWindow.add(LiveV1.add(client(), QUEUE).isPresent());
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(List.of(false), addsInTheWindow, "the add counter is frozen from the pause: the add fails, the producer knows");
        assertExactlyOnce(r.get(0));
        assertEquals(LongStream.rangeClosed(1, JOBS + 40).boxed().toList(), servedOrder(), "v1 serve order, the adds last");
        JournalHeader header = new Journal(Wire.open(client()), QUEUE).header();
        assertTrue(header.get(JournalHeader.V1_PAUSED_AT).isPresent() && header.get(JournalHeader.WINDOW_MS).orElse(-1L) >= 0,
                "the window is journaled");
        assertEquals(header.get(JournalHeader.WINDOW_MS).orElseThrow(), r.get(0).pauseWindowMs().orElseThrow(), "and reported");
        assertEquals(Optional.of(""), header.get(JournalHeader.ORDER_DRIFT), "the order was checked at the cutover, and holds");
        assertEquals(Optional.empty(), r.get(0).orderDrift());
    }

    /** A worker's failure as BullMQ records it: the job leaves active for failed, scored by its finishing instant. */
    private void fail(String id, long finishedOn) {
        client().lrem("bull:live:active", -1, id);
        client().del("bull:live:" + id + ":lock");
        client().hset("bull:live:" + id, Map.of("finishedOn", Long.toString(finishedOn), "failedReason", "boom"));
        client().hincrBy("bull:live:" + id, "atm", 1);
        client().zadd("bull:live:failed", finishedOn, id);
    }

    @Test
    void jobsV1PutsAheadOfOthersWhileItServesAreRefusedWithV1IntactUnlessTheDriftIsAccepted() {
        long now = System.currentTimeMillis();
        for (int i = 1; i <= 2; i++) {
            fail(LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(), now - 10_000 + i);
        }
        List<MigrationResult> r = migrate(OPTIONS, atFirst(30, "rows written", () -> {
            fail(LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(), System.currentTimeMillis()); // job 3: failed last
            String lifo = Long.toString(client().incr("bull:live:id"));
            client().hset("bull:live:" + lifo, Map.of("name", "send", "data", "{}", "opts", "{\"lifo\":true}",
                    "timestamp", Long.toString(now), "delay", "0", "priority", "0"));
            client().rpush("bull:live:wait", lifo); // served next, ahead of every job waiting
            added.add(lifo);
        }));
        String drift = "pending breaks v1's order once (v1 job 4 comes after v1 job 301 in v1, before it in v2);"
                + " dead breaks v1's order once (v1 job 3 comes after v1 job 2 in v1, before it in v2)";
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_ORDER), r.get(0).refusalKind(), r.get(0).toString());
        assertTrue(r.get(0).message().contains(drift) && r.get(0).message().contains("--accept-order-drift"), r.get(0).message());
        assertEquals(null, client().hget("bull:live:meta", "paused"), "refused before the pause: v1 serves on");
        assertEquals(Long.valueOf(301), Long.valueOf(client().get("bull:live:id")), "its add counter untouched");
        assertEquals(Long.valueOf(298), client().llen("bull:live:wait"), "every v1 job where it was");
        assertExactlyOnce(r.get(0));

        r = migrate(OPTIONS.withAcceptOrderDrift(true), (version, where) -> { });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertExactlyOnce(r.get(0));
        assertEquals(Optional.of(drift), r.get(0).orderDrift(), "reported");
        assertEquals(Optional.of(drift), new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.ORDER_DRIFT), "journaled");
        List<Long> served = servedOrder();
        assertEquals(List.of(4L, 301L), List.of(served.get(0), served.get(served.size() - 1)),
                "the LIFO job keeps the id its pass minted after every other: v2 serves it last");
    }

    @Test
    void aJobMovedAheadUnderThePauseIsRefusedAndV1GivenBack() {
        long now = System.currentTimeMillis();
        fail(LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(), now - 10_000); // job 1 failed before the migration
        // a stray worker that ignores the pause fails job 2 now: after job 1, before it in v2
        List<MigrationResult> r = migrate(OPTIONS, atFirst(120, "v1 paused", () -> {
            fail(LiveV1.take(client(), QUEUE, true, 60_000).orElseThrow(), System.currentTimeMillis());
        }));
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_ORDER), r.get(0).refusalKind(), r.get(0).toString());
        assertTrue(r.get(0).message().contains("dead breaks v1's order once (v1 job 2 comes after v1 job 1 in v1, before it in v2)"),
                r.get(0).message());
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 given back: resumed");
        assertEquals(Long.valueOf(300), Long.valueOf(client().get("bull:live:id")), "and its add counter thawed");
        assertFalse(new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.V1_PAUSED_AT).isPresent(), "the pause forgotten");
        assertExactlyOnce(r.get(0));
    }

    /** BullMQ's pause of the v1 queue, as an operator gives it. */
    private void pauseV1() {
        client().hset("bull:live:meta", "paused", "1");
        client().rename("bull:live:wait", "bull:live:paused");
    }

    @Test
    void anOperatorsPauseSinceTheFenceOutlivesARefusalAndTheCutover() {
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(OPTIONS.withRetire(false), (version, where) -> { }).get(0).outcome());
        String held = LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(); // a worker holds a job
        pauseV1(); // then the operator pauses v1 (an incident), after the fence recorded it serving

        MigrationResult refused = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.LIVE_LOCK), refused.refusalKind(), refused.toString());
        assertEquals("1", client().hget("bull:live:meta", "paused"), "the give-back keeps the operator's pause");
        assertEquals(Long.valueOf(JOBS - 1), client().llen("bull:live:paused"), "its jobs where the pause put them");
        assertEquals(Long.valueOf(JOBS), Long.valueOf(client().get("bull:live:id")), "the add counter thawed");

        assertTrue(LiveV1.complete(client(), QUEUE, held));
        completed.add(held);
        MigrationResult retired = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, retired.outcome(), retired.toString());
        assertExactlyOnce(retired);
        assertEquals("1", client().hget(Keys.queue(QUEUE).meta(), "paused"), "v1 was paused at the cutover: the v2 queue starts paused");
    }

    /** Lets a re-run take the journal's lease now, as if the stopped run's lease had lapsed. */
    private void leaseLapses() {
        client().hdel(new Journal(Wire.open(client()), QUEUE).key(), "lock_owner");
    }

    /** A run that stops right after it paused v1, before it journaled what the pause found. */
    private void stopRightAfterThePause() {
        stopAt("120:v1 paused#1");
    }

    /** A run that stops at this checkpoint ({@link Checkpoints#throwingAt}); its lease then lapses. */
    private void stopAt(String checkpoint) {
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> MigrationHarness.migrate(SERVER, SERVER,
                OPTIONS, Checkpoints.throwingAt(checkpoint), List.of("bull")));
        leaseLapses();
    }

    /** A v1 worker takes the job at the tail of wait and finishes it with removeOnComplete; its id. */
    private String finishNextRemoving(boolean ignorePause) {
        String id = LiveV1.take(client(), QUEUE, ignorePause, 60_000).orElseThrow();
        assertTrue(LiveV1.completeAndRemove(client(), QUEUE, id));
        completed.add(id);
        return id;
    }

    /** Gives the job a v1 worker takes next a dedup key {@code did} (set with {@code params}), as BullMQ's add does; its id. */
    private String deduplicateNext(String did, redis.clients.jedis.params.SetParams params) {
        String next = client().lindex("bull:live:wait", -1);
        client().set("bull:live:de:" + did, next, params);
        client().hset("bull:live:" + next, "deid", did);
        return next;
    }

    @Test
    void anOperatorsPauseFoundByARunThatStoppedBeforeJournalingItOutlivesTheCutover() {
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(OPTIONS.withRetire(false), (version, where) -> { }).get(0).outcome());
        pauseV1();
        stopRightAfterThePause();

        MigrationResult retired = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, retired.outcome(), retired.toString());
        assertExactlyOnce(retired);
        assertEquals("1", client().hget(Keys.queue(QUEUE).meta(), "paused"), "v1 was paused at the cutover: the v2 queue starts paused");
        assertEquals(null, client().hget("bull:live:meta", "migrating-was-paused"), "the tombstone keeps no window's record");
    }

    @Test
    void anAbandonAfterARunStoppedBeforeJournalingAnOperatorsPauseKeepsIt() {
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(OPTIONS.withRetire(false), (version, where) -> { }).get(0).outcome());
        pauseV1();
        stopRightAfterThePause();

        Map<String, Long> undone = Abandon.run(Wire.unfenced(client()), Wire.open(client()), QUEUE, OPTIONS.lease());
        assertEquals(0L, undone.get("v1-resumed"), undone.toString());
        assertEquals("1", client().hget("bull:live:meta", "paused"), "the operator's pause kept");
        assertEquals(Long.valueOf(JOBS), client().llen("bull:live:paused"), "its jobs where the pause put them");
        assertEquals(Long.toString(JOBS), client().get("bull:live:id"), "the add counter thawed");
        assertEquals(List.of(), client().hmget("bull:live:meta", "migrating-id", "migrating-was-paused").stream()
                .filter(java.util.Objects::nonNull).toList(), "the window's record gone with it");
    }

    @Test
    void aJobMovedAheadUnderThePauseByARunThatStoppedBeforeCheckingItIsRefusedOnTheReRun() {
        long now = System.currentTimeMillis();
        fail(LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(), now - 10_000); // job 1 failed before the migration
        boolean[] failed = {false};
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, (version, where) -> {
            if (version == 120 && where.equals("v1 paused") && !failed[0]) {
                failed[0] = true; // a stray worker that ignores the pause fails job 2 now: after job 1, before it in v2
                fail(LiveV1.take(client(), QUEUE, true, 60_000).orElseThrow(), System.currentTimeMillis());
            } else if (version == 120 && where.equals("pass recorded") && failed[0]) {
                throw new Checkpoints.InjectedCrash("120:pass recorded"); // the pass wrote job 2's row as dead, unchecked
            }
        }));
        leaseLapses();

        MigrationResult r = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_ORDER), r.refusalKind(), r.toString());
        assertTrue(r.message().contains("dead breaks v1's order once (v1 job 2 comes after v1 job 1 in v1, before it in v2)"),
                r.message());
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 given back: resumed");
        assertExactlyOnce(r);
    }

    /** An operator resumes v1 inside the migration's pause window and a worker finishes a job: the pass brings v2 in line. */
    @Test
    void anOperatorsResumeInsideThePauseWindowIsCaughtByThePassUnderIt() {
        MigrationResult r = migrate(OPTIONS, atFirst(120, "v1 paused", () -> {
            LiveV1.resume(client(), QUEUE); // BullMQ's queue.resume(): the add counter stays frozen
            String id = LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(); // a worker that honours the pause
            assertTrue(LiveV1.complete(client(), QUEUE, id));
            completed.add(id);
            assertTrue(LiveV1.add(client(), QUEUE).isEmpty(), "a producer's add still fails");
        })).get(0);
        assertEquals(1, completed.size(), "the worker finished a job in the window");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(null, client().hget(Keys.queue(QUEUE).meta(), "paused"), "v1 was not paused when the window opened");
    }

    @Test
    void aJobPutAtTheServedEndUnderThePauseIsRefusedByTheJobItPassed() {
        client().zadd("bull:live:delayed", (System.currentTimeMillis() + 3_600_000L) * 4096, "301");
        client().hset("bull:live:301", Map.of("name", "later", "data", "{}", "opts", "{}", "timestamp", "1", "delay", "3600000",
                "priority", "0"));
        client().set("bull:live:id", "301");
        added.add("301");
        // a stray client promotes it to be served next (LIFO), under the pause: into paused
        List<MigrationResult> r = migrate(OPTIONS, atFirst(120, "v1 paused", () -> {
            client().zrem("bull:live:delayed", "301");
            client().hset("bull:live:301", "delay", "0");
            client().rpush("bull:live:paused", "301");
        }));
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_ORDER), r.get(0).refusalKind(), r.get(0).toString());
        assertTrue(r.get(0).message().contains("pending breaks v1's order once (v1 job 1 comes after v1 job 301 in v1, before it in v2)"),
                r.get(0).message());
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 given back: resumed");
        assertEquals("301", client().lindex("bull:live:wait", -1), "and serves the promoted job next");
        assertExactlyOnce(r.get(0));
    }

    /**
     * With --accept-anomalies the fence's read, as v1 serves, meets a job a producer adds as it reads (its hash met by the
     * key scan, its listing read before the add): an orphan to that read. Another job added just before it, which the read
     * missed whole, is served first by v1. Minted by that read, among the orphans after every listed job, the first would
     * come ahead of the second in v2 once the next read lists both: refused out of order. The feed told its hash written
     * as the read ran, so the read leaves it to the next, which mints both in v1's serve order; an orphan of the source whose
     * hash held still is migrated dead from the fence's read, once.
     */
    @Test
    void aJobAddedAsTheFenceReadsIsNotMintedAheadOfAJobV1ServesBeforeIt() {
        Map<String, String> hash = Map.of("name", "send", "data", "{}", "opts", "{}", "timestamp", "1");
        client().hset("bull:live:o1", hash);
        String[] met = new String[1];
        List<MigrationResult> r = migrate(OPTIONS.withAcceptAnomalies(true), (version, where) -> {
            if (version == 10 && where.equals("v2 paused")) { // the add the read meets half-way: its hash there, its listing not yet
                met[0] = Long.toString(client().incr("bull:live:id"));
                client().hset("bull:live:" + met[0], hash);
            } else if (version == 10 && where.equals("source read")) { // the add v1 serves first, then the first one's listing
                produce(1);
                client().lpush("bull:live:wait", met[0]);
            }
        });
        added.addAll(List.of(met[0], "o1"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertExactlyOnce(r.get(0));
        assertEquals(LongStream.concat(LongStream.rangeClosed(1, JOBS), LongStream.of(JOBS + 2, JOBS + 1)).boxed().toList(), servedOrder(),
                "v1 serve order: the job added second is served first");
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        List<BrandedId> ids = journal.ids().lookupV1(List.of("o1".getBytes(), Long.toString(JOBS + 2).getBytes())).stream()
                .map(Optional::orElseThrow).toList();
        assertEquals("dead", client().hget(Keys.queue(QUEUE).job(ids.get(0)), "state"));
        assertTrue(ids.get(0).compareTo(ids.get(1)) < 0, "the orphan whose hash held still was minted from the fence's read: " + ids);
    }

    /**
     * With --accept-anomalies an operator resumes the paused v1 queue as the fence reads it: BullMQ's resume renames
     * {@code paused} to {@code wait}, writing no job, so a read that took {@code wait} before it and {@code paused} after
     * meets every job in neither, its hash untouched: orphans to that read. The feed told meta written meanwhile (the
     * resume clears its flag), so the read leaves them all to the next, which mints them in v1's serve order; minted as
     * orphans they would stand in v2 in the order of their ids ("10" before "2"), refused out of order.
     */
    @Test
    void jobsAResumeMovesAsTheFenceReadsAreNotMintedAsOrphans() {
        pauseV1();
        List<MigrationResult> r = migrate(OPTIONS.withAcceptAnomalies(true), (version, where) -> {
            if (version == 10 && where.equals("v2 paused")) { // the resume as the read meets it: the jobs left paused, not yet in wait
                client().hdel("bull:live:meta", "paused");
                client().rename("bull:live:paused", "bull:live:resuming");
            } else if (version == 10 && where.equals("source read")) {
                client().rename("bull:live:resuming", "bull:live:wait");
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertExactlyOnce(r.get(0));
        assertEquals(LongStream.rangeClosed(1, JOBS).boxed().toList(), servedOrder(), "v1 serve order");
        assertEquals(0L, client().zcard(Keys.queue(QUEUE).dead()), "no job taken for an orphan");
    }

    @Test
    void jobsAddedAtEveryStepAreCaughtUpInServeOrderBeforeRetirement() {
        Set<String> seen = new HashSet<>();
        List<MigrationResult> r = migrate(OPTIONS, (version, where) -> {
            if (seen.add(version + ":" + where)) {
                produce(3);
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertExactlyOnce(r.get(0));
        assertTrue(added.size() > JOBS + 30, "the producer added at many points: " + added.size());
        assertEquals(LongStream.rangeClosed(1, added.size()).boxed().toList(), servedOrder());
        assertEquals(Optional.empty(), r.get(0).orderDrift(), "adds at the far end break no order");
    }

    /**
     * More jobs added during the copy than a catch-up pass leaves for the pause (1,100 against 1,000): V100 passes again
     * until the delta is small, and every job lands once, in serve order.
     */
    @Test
    void aLargeDeltaDuringTheCopyTakesTheCatchUpASecondPass() {
        MigrationResult r = migrate(OPTIONS, atFirst(30, "rows written", () -> {
            produce(1100);
        })).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(LongStream.rangeClosed(1, JOBS + 1100).boxed().toList(), servedOrder());
        Map<String, Long> v100 = new Journal(Wire.open(client()), QUEUE).history().rows().stream()
                .filter(h -> h.version() == 100).findFirst().orElseThrow().counts();
        assertEquals(2L, v100.get("passes"), v100.toString());
        assertEquals(1100L, v100.get("added"), v100.toString());
    }

    @Test
    void jobsWithCustomIdsAddedWhileV1ServesGetTheirReceipts() {
        List<String> custom = List.of("order-after-copy", "order-before-retire");
        List<MigrationResult> r = migrate(OPTIONS, (version, where) -> {
            if (version == 30 && !added.contains(custom.get(0))) {
                addCustom(custom.get(0));
            }
            if (version == 110 && !added.contains(custom.get(1))) {
                addCustom(custom.get(1));
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertExactlyOnce(r.get(0));
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        for (String id : custom) {
            String branded = journal.ids().lookupV1(List.of(id.getBytes())).get(0).orElseThrow().toString();
            assertEquals(branded, client().get(Keys.queue(QUEUE).dedup(id)), "the receipt of " + id);
        }
    }

    /**
     * The receipts of custom-id jobs follow their jobs: one v1 finished with removeOnComplete after V70 wrote its receipt,
     * and one that left between V10's read and the copy (it never got a row, only a receipt from that read), have their
     * receipts dropped from v2; a job still there keeps its own.
     */
    @Test
    void theReceiptsOfCustomIdJobsV1RemovesAreDroppedFromV2() {
        List.of("order-7", "order-8", "order-9").forEach(this::addCustom);
        Checkpoints.Observer beforeTheCopy = atFirst(20, null, () -> removeCustom("order-7"));
        Checkpoints.Observer afterThePass = atFirst(110, null, () -> removeCustom("order-9"));
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            beforeTheCopy.at(version, where);
            afterThePass.at(version, where);
        }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        Keys keys = Keys.queue(QUEUE);
        String branded = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("order-8".getBytes())).get(0).orElseThrow().toString();
        assertEquals(Set.of(keys.dedup("order-8")), client().keys(keys.base() + "de:*"), "only the receipt of the job v1 still held");
        assertEquals(branded, client().get(keys.dedup("order-8")));
    }

    /**
     * Once V70 carried every dedup key and receipt, a pass writes only those whose v1 side the change feed tells may have
     * changed: a million of them cost a pass (and the pause window) nothing while v1 leaves them be.
     */
    @Test
    void aPassWritesOnlyTheDedupKeysAndReceiptsWhoseV1SideTheFeedTellsWritten() {
        List.of("order-1", "order-2").forEach(this::addCustom);
        client().set("bull:live:de:a-1", "1");
        client().set("bull:live:de:a-2", "2");
        Map<String, Long> set = new java.util.HashMap<>();
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            if (version == 70 && where.equals("schedulers written")) { // V70 carried them all; the passes follow
                assertEquals(4, client().keys(Keys.queue(QUEUE).base() + "de:*").size(), "V70 wrote the four");
                set.put("before", CommandStats.calls(client(), "set"));
                client().set("bull:live:de:a-2", "2"); // written again, as it was
                client().hset("bull:live:order-2", "progress", "5");
            }
            if (version == 110 && !set.containsKey("after")) {
                set.put("after", CommandStats.calls(client(), "set"));
            }
        }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(1 + 2, set.get("after") - set.get("before"), "the v1 write, then v2's dedup key a-2 and receipt order-2 once");
        Keys keys = Keys.queue(QUEUE);
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        for (String[] key : List.of(new String[] {"a-1", "1"}, new String[] {"a-2", "2"}, new String[] {"order-1", "order-1"},
                new String[] {"order-2", "order-2"})) {
            assertEquals(journal.ids().lookupV1(List.of(key[1].getBytes())).get(0).orElseThrow().toString(), client().get(keys.dedup(key[0])));
        }
    }

    /**
     * A custom-id job a v1 worker took after V20 minted, held by its lock through the first passes, gets its id once the
     * lock ran out and its receipt in the same pass (the pass counts the jobs it gives a row among those that may have
     * changed: a lock that runs out as the pass reads it is told by the feed only after the pass drained it).
     */
    @Test
    void aJobWhoseLockRanOutGetsItsReceiptInThePassThatGivesItARow() {
        MigrationResult r = migrateWithAJobWhoseLockRunsOut("order-6", Map.of("name", "send", "data", "{}", "opts",
                "{\"jobId\":\"order-6\"}", "timestamp", "1700000000000", "delay", "0", "priority", "0"));
        assertReceipt(r, "order-6");
    }

    /**
     * As above for a dedup key: the job a worker held when the passes before met its key (no id then, so no v2 key) gets
     * its id once the lock ran out, and its dedup key in that pass, though v1 never wrote the key again: a pass takes
     * the dedup keys of the jobs it gives a row among those that may have changed.
     */
    @Test
    void aJobWhoseLockRanOutGetsItsDedupKeyInThePassThatGivesItARow() {
        client().set("bull:live:de:x-301", "301");
        MigrationResult r = migrateWithAJobWhoseLockRunsOut("301", Map.of("name", "send", "data", "{}", "opts", "{}",
                "timestamp", "1700000000000", "delay", "0", "priority", "0", "deid", "x-301"));
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        String branded = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("301".getBytes())).get(0).orElseThrow().toString();
        assertEquals(branded, client().get(Keys.queue(QUEUE).dedup("x-301")), "the job's dedup key, holding its branded id");
    }

    /**
     * A flow parent v1 released (its child completed) that a worker held through the copy gets its row in the pass after
     * its lock ran out, and with it its child's result, keyed by the child's branded id.
     */
    @Test
    void aReleasedFlowParentWhoseLockRanOutGetsItsChildsResultWithItsRow() {
        MigrationResult r = migrateWithAJobWhoseLockRunsOut("P", Map.of("name", "parent", "data", "{}", "opts", "{}",
                "timestamp", "1700000000000", "delay", "0", "priority", "0"), () -> {
            client().hset("bull:live:c", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1700000000000",
                    "parentKey", "bull:live:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:live\"}", "finishedOn", "2",
                    "returnvalue", "42"));
            client().zadd("bull:live:completed", 2, "c");
            client().hset("bull:live:P:processed", "bull:live:c", "42");
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        io.emq.migrate.keyspace.BrandedId parent = journal.ids().lookupV1(List.of("P".getBytes())).get(0).orElseThrow();
        Map<String, String> processed = client().hgetAll(Keys.queue(QUEUE).job(parent, io.emq.migrate.keyspace.JobSub.PROCESSED));
        assertEquals(List.of("42"), List.copyOf(processed.values()), "the child's result");
        assertEquals(journal.ids().lookupV1(List.of("c".getBytes())).get(0).map(Object::toString), processed.keySet().stream().findFirst(),
                "keyed by the child's branded id");
    }

    /**
     * A flow parent v1 released that a v1 worker finishes and removes between the copy and the flows step is no
     * refusal: the flows step passes it by and the re-sync takes its row away, as for any job v1 removed.
     */
    @Test
    void aReleasedFlowParentAWorkerRemovesDuringTheCopyIsPassedByAndRemoved() {
        client().hset("bull:live:P", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1700000000000",
                "delay", "0", "priority", "0"));
        client().hset("bull:live:P:processed", "bull:live:c", "42");
        client().hset("bull:live:c", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1700000000000",
                "parentKey", "bull:live:P", "parent", "{\"id\":\"P\",\"queueKey\":\"bull:live\"}", "finishedOn", "2",
                "returnvalue", "42"));
        client().zadd("bull:live:completed", 2, "c");
        client().lpush("bull:live:wait", "P");
        MigrationResult r = migrate(OPTIONS, atFirst(30, "rows written", () -> {
            client().lrem("bull:live:wait", 0, "P"); // taken, finished, removed on completion
            client().del("bull:live:P", "bull:live:P:processed");
            completed.add("P");
        })).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
    }

    /**
     * What v1 writes during the migration that the plan refuses at the fence is refused by the pass that meets it, v1
     * given back, until its option lifts it: a scheduler given a limit, a job given a deferred failure.
     */
    @Test
    void aSchedulerBoundedAndAJobGivenADeferredFailureWhileV1ServesAreRefusedUntilLifted() {
        assertTrue(LiveV1.schedule(client(), QUEUE, "s1", 1));
        MigrationResult bounded = migrate(OPTIONS, atFirst(70, "schedulers written",
                () -> client().hset("bull:live:repeat:s1", "limit", "3"))).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.BOUNDED_SCHEDULER), bounded.refusalKind(), bounded.toString());
        assertTrue(bounded.message().contains("v1 wrote it during the migration; nothing was deleted"), bounded.message());
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 serves");
        assertExactlyOnce(bounded);

        client().hset("bull:live:5", "defa", "job stalled more than allowable limit");
        MigrationResult deferred = migrate(OPTIONS.withDropBoundedSchedulers(true), (v, w) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.ANOMALIES), deferred.refusalKind(), deferred.toString());
        assertTrue(deferred.message().contains("deferred-failure"), deferred.message());

        MigrationResult lifted = migrate(OPTIONS.withDropBoundedSchedulers(true).withAcceptAnomalies(true), (v, w) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, lifted.outcome(), lifted.toString());
        assertExactlyOnce(lifted);
        assertEquals(List.of(), client().zrange(Keys.queue(QUEUE).base() + "repeat", 0, -1), "the bounded scheduler is not registered");
    }

    /**
     * Migrates while a job of this id and hash, added once V70 wrote and served next, is taken by a v1 worker under a
     * 300 ms lock that runs out unwritten by V110: the passes before meet it held, the catch-up before the pause free.
     */
    private MigrationResult migrateWithAJobWhoseLockRunsOut(String id, Map<String, String> hash) {
        return migrateWithAJobWhoseLockRunsOut(id, hash, () -> { });
    }

    /** As {@link #migrateWithAJobWhoseLockRunsOut(String, Map)}, {@code alsoWrite} writing beside the job as it is added. */
    private MigrationResult migrateWithAJobWhoseLockRunsOut(String id, Map<String, String> hash, Runnable alsoWrite) {
        long[] taken = {0};
        return migrate(OPTIONS.withAcceptOrderDrift(true), (version, where) -> { // a stalled job is served first
            if (version == 70 && where.equals("schedulers written") && taken[0] == 0) {
                alsoWrite.run();
                client().hset("bull:live:" + id, hash);
                client().rpush("bull:live:wait", id); // served next
                added.add(id);
                assertEquals(Optional.of(id), LiveV1.take(client(), QUEUE, false, 300));
                taken[0] = System.nanoTime();
            }
            if (version == 110 && taken[0] > 0) {
                Sleep.millis(Math.max(0, 400 - (System.nanoTime() - taken[0]) / 1_000_000)); // its lock has run out
                taken[0] = -1;
            }
        }).get(0);
    }

    /**
     * A run that stops as a pass removes the row of a job a v1 worker took (after the row went and before its
     * expectation was forgotten, or after both) is finished by the re-run once the worker's lock ran out: the job is a row again.
     */
    @Test
    void aRunStoppedAsAPassRemovedTheRowOfATakenJobIsFinishedByTheReRunOnceTheJobIsBack() {
        for (String stop : List.of("rows removed", "removed rows forgotten")) {
            generate();
            Checkpoints.Observer taken = atFirst(70, "schedulers written",
                    () -> assertEquals(Optional.of("1"), LiveV1.take(client(), QUEUE, false, 60_000)));
            org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, (version, where) -> {
                taken.at(version, where);
                if (version == 100 && where.equals(stop)) {
                    throw new Checkpoints.InjectedCrash("100:" + stop);
                }
            }), stop);
            leaseLapses();
            client().del("bull:live:1:lock"); // the worker's lock runs out: job 1 is v1's to serve again
            MigrationResult r = migrate(OPTIONS, (version, where) -> { }).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), stop + ": " + r);
            assertExactlyOnce(r);
        }
    }

    /**
     * A custom-id job whose name a dedup key of another job held gets its receipt in v2 once v1 drops that key, however
     * late: here in the pass under the pause, the last one, of a run that follows the feed and of one that cannot.
     */
    @Test
    void aReceiptKeptOutByADedupKeyOfItsNameIsWrittenInThePassThatDropsTheKey() {
        addCustom("order-5");
        client().set("bull:live:de:order-5", "3");
        Runnable dropped = () -> client().del("bull:live:de:order-5");
        MigrationResult r = migrate(OPTIONS, atFirst(120, "v1 paused", dropped)).get(0);
        assertReceipt(r, "order-5");

        generate();
        addCustom("order-5");
        client().set("bull:live:de:order-5", "3");
        stopAt("70:schedulers written#1");
        r = migrate(OPTIONS, atFirst(120, "v1 paused", dropped)).get(0); // a re-run: no feed since its fence, every pass whole
        assertReceipt(r, "order-5");
    }

    /**
     * A dedup key with a TTL (BullMQ's throttle mode) outlives its job: a v1 worker that finishes the job with
     * removeOnComplete leaves the key to run out, and v1 refuses the dedup id until then. So does v2 after the cutover:
     * its dedup key keeps the finished job's branded id, with what is left of the TTL, whether a pass told by the feed
     * (the job's keys written, the dedup key not) or a re-run's whole pass (no feed) settles it.
     */
    @Test
    void aThrottlingDedupKeyOutlivesItsJobInV2AsInV1() {
        for (boolean rerun : new boolean[] {false, true}) {
            generate();
            completed.clear();
            String next = deduplicateNext("t-1", redis.clients.jedis.params.SetParams.setParams().px(600_000));
            if (rerun) {
                stopAt("70:schedulers written#1");
            }
            boolean[] finished = {false};
            Runnable finish = () -> {
                assertEquals(next, finishNextRemoving(false));
                assertTrue(client().pttl("bull:live:de:t-1") > 0, "the dedup key outlives its job");
                finished[0] = true;
            };
            MigrationResult r = migrate(OPTIONS, rerun ? atFirst(110, null, finish) : atFirst(70, "schedulers written", finish)).get(0);
            assertTrue(finished[0]);
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
            assertExactlyOnce(r);
            String branded = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(next.getBytes())).get(0).orElseThrow().toString();
            String key = Keys.queue(QUEUE).dedup("t-1");
            assertEquals(branded, client().get(key), (rerun ? "re-run: " : "") + "v2's dedup key holds the finished job's id");
            long ttl = client().pttl(key);
            assertTrue(ttl > 0 && ttl <= 600_000, (rerun ? "re-run: " : "") + "with what is left of its TTL: " + ttl);
        }
    }

    /**
     * A worker that ignores the pause finishes a deduplicated job (its dedup key deleted with it) right after the pass
     * under the pause read the source: the guard refuses the retirement, and the next pass, told by the feed that the
     * dedup key was written, drops v2's.
     */
    @Test
    void aDedupKeyWhoseJobAWorkerFinishesRightAfterThePassUnderThePauseReadIsDropped() {
        String next = deduplicateNext("d" + client().lindex("bull:live:wait", -1), new redis.clients.jedis.params.SetParams());
        MigrationResult r = migrateActingUnderThePauseAt("source read", () -> assertEquals(next, finishNextRemoving(true)));
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(null, client().get(Keys.queue(QUEUE).dedup("d" + next)), "no v2 dedup key of the finished job");
    }

    /**
     * As above, in a queue no refresh stands for (a job holds a logs list), so every pass under the pause reads the
     * whole source: the worker finishes the job as the first read ends (and a custom-id job goes too), that read is taken
     * again, and the keys v1 wrote since the pass drained the feed are the pass's changes too: v2's dedup key and receipt
     * of those jobs are dropped.
     */
    @Test
    void aDedupKeyAndAReceiptWhoseJobsV1FinishesAsAWholeReadUnderThePauseEndsAreDropped() {
        client().rpush("bull:live:7:logs", "a line");
        addCustom("order-3");
        String next = deduplicateNext("d" + client().lindex("bull:live:wait", -1), new redis.clients.jedis.params.SetParams());
        MigrationResult r = migrateActingUnderThePauseAt("source read", () -> {
            assertEquals(next, finishNextRemoving(true));
            removeCustom("order-3");
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(null, client().get(Keys.queue(QUEUE).dedup("d" + next)), "no v2 dedup key of the finished job");
        assertEquals(null, client().get(Keys.queue(QUEUE).dedup("order-3")), "no v2 receipt of the removed job");
    }

    /**
     * A client removes a job (BullMQ's remove: its listing and its hash; the pause stops workers, not removals) right
     * after the pass under the pause read the source, before that pass copies the job again (it was edited as the pause
     * began): the pass leaves it out and proves nothing, the next pass reads it gone and removes the row v2 held of it,
     * and the run retires: in one run (the feed's refresh), in a queue no refresh stands for (it holds a BullMQ 4.x
     * marker: each pass reads the whole source), and in a re-run (no change feed).
     */
    @Test
    void aJobRemovedRightAfterThePassUnderThePauseReadItIsLeftOutAndTheNextPassRetires() {
        for (String runs : List.of("one run", "re-run", "read whole")) {
            generate();
            if (runs.equals("read whole")) {
                client().lpush("bull:live:wait", "0:1000"); // a BullMQ 4.x marker, which no refresh carries
            }
            if (runs.equals("re-run")) {
                stopAt("70:schedulers written#1");
            }
            List<String> seen = new java.util.ArrayList<>();
            MigrationResult r = migrateActingUnderThePauseAt("source read", () -> removeCustom("7"), false, (version, where) -> {
                if (version == 120 && where.equals("pause recorded")) {
                    client().hset("bull:live:7", "data", "{\"edited\":true}");
                }
                if (version == 120) {
                    seen.add(where);
                }
            });
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), runs + ": " + r);
            assertTrue(seen.contains("source moved at retire"), runs + ": the pass that met the job gone proved nothing: " + seen);
            assertEquals(!runs.equals("read whole"), seen.contains("source refreshed"), runs + ": refreshed under the pause: " + seen);
            assertExactlyOnce(r);
        }
    }

    /** Migrates, running {@code act} once at the first hit of {@code checkpoint} after v1 was paused (asserted to have run). */
    private MigrationResult migrateActingUnderThePauseAt(String checkpoint, Runnable act) {
        return migrateActingUnderThePauseAt(checkpoint, act, false, (version, where) -> { });
    }

    /**
     * As above, right before the retirement, run as {@code runs} says ({@link #RUNS}): in one run; after a run that
     * stopped at V70 (the re-run has no change feed); or in a run that stops right after it stamped the tombstone, a
     * re-run finishing. {@code before} also sees every checkpoint of the acting run (v1 acting while it serves).
     */
    private MigrationResult migrateActingRightBeforeTheRetirement(String runs, Runnable act, Checkpoints.Observer before) {
        if (runs.equals("re-run")) {
            stopAt("70:schedulers written#1");
        }
        return migrateActingUnderThePauseAt("before retire", act, runs.equals("stopped after the tombstone"), before);
    }

    /** The run of both above: {@code stopAfterTheTombstone}, it stops right after the tombstone and a re-run finishes. */
    private MigrationResult migrateActingUnderThePauseAt(String checkpoint, Runnable act, boolean stopAfterTheTombstone,
                                                        Checkpoints.Observer before) {
        boolean[] paused = {false};
        boolean[] done = {false};
        Checkpoints.Observer acting = (version, where) -> {
            before.at(version, where);
            paused[0] |= version == 120 && where.equals("v1 paused");
            if (paused[0] && where.equals(checkpoint) && !done[0]) {
                done[0] = true;
                act.run();
            }
            if (stopAfterTheTombstone && version == 120 && where.equals("structures deleted")) {
                throw new Checkpoints.InjectedCrash("120:structures deleted");
            }
        };
        if (!stopAfterTheTombstone) {
            MigrationResult r = migrate(OPTIONS, acting).get(0);
            assertTrue(done[0], "v1 was paused and " + checkpoint + " hit");
            return r;
        }
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, acting));
        assertTrue(done[0], "v1 was paused and " + checkpoint + " hit");
        leaseLapses();
        return migrate(OPTIONS, (version, where) -> { }).get(0);
    }

    /** How the tests of what v1 writes right before the retirement run: in one run, in a re-run (no change feed), or stopped right after the tombstone. */
    private static final List<String> RUNS = List.of("one run", "re-run", "stopped after the tombstone");

    /**
     * A dedup key v1 deletes alone (BullMQ's removeDeduplicationKey: no structure moves, so the guard holds) right after
     * a whole read under the pause read it: that pass, told of it, keeps v2's as it read it; the retirement is refused
     * (a worker finishes another job), and the next pass, told of it again, drops v2's.
     */
    @Test
    void aDedupKeyV1DeletesAsAWholeReadUnderThePauseEndsIsToldAgainToTheNextPass() {
        client().rpush("bull:live:7:logs", "a line");
        client().set("bull:live:de:k5", "5");
        client().hset("bull:live:5", "deid", "k5");
        boolean[] paused = {false};
        int[] step = {0};
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            paused[0] |= version == 120 && where.equals("v1 paused");
            if (paused[0] && where.equals("source read") && step[0] == 0) {
                step[0] = 1;
                client().del("bull:live:de:k5");
            } else if (step[0] == 1 && where.equals("before retire")) {
                step[0] = 2;
                finishNextRemoving(true);
            }
        }).get(0);
        assertEquals(2, step[0]);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(null, client().get(Keys.queue(QUEUE).dedup("k5")), "no v2 dedup key v1 deleted before the cutover");
    }

    /**
     * A dedup key v1 deletes alone right before the retirement (BullMQ's removeDeduplicationKey: no structure moves, the
     * guard holds and the queue retires at once) is dropped from v2 once the tombstone is stamped, told by the feed or,
     * in a re-run that has none, found gone among the dedup keys the last pass read, or, when the run stopped right after
     * the tombstone, by the re-run among every dedup key the journal records; the receipt a dropped key of its name kept
     * out is written then. One written again as it was stays.
     */
    @Test
    void aDedupKeyV1DeletesAloneRightBeforeTheRetirementIsDroppedFromV2() {
        for (String runs : RUNS) {
            generate();
            for (String n : List.of("5", "6")) {
                client().set("bull:live:de:k" + n, n);
                client().hset("bull:live:" + n, "deid", "k" + n);
            }
            addCustom("order-5");
            client().set("bull:live:de:order-5", "3");
            MigrationResult r = migrateActingRightBeforeTheRetirement(runs, () -> {
                client().del("bull:live:de:k5", "bull:live:de:order-5");
                client().set("bull:live:de:k6", "6");
            }, (version, where) -> { });
            assertReceipt(r, "order-5");
            Journal journal = new Journal(Wire.open(client()), QUEUE);
            String run = runs + ": ";
            assertEquals(null, client().get(Keys.queue(QUEUE).dedup("k5")), run + "no v2 dedup key v1 deleted before the cutover");
            assertEquals(Optional.empty(), journal.text("dedup:k5"), run + "its record forgotten");
            String six = journal.ids().lookupV1(List.of("6".getBytes())).get(0).orElseThrow().toString();
            assertEquals(six, client().get(Keys.queue(QUEUE).dedup("k6")), run + "the dedup key v1 still held");
        }
    }

    /**
     * A flow parent edited right before the retirement (after the pass under the pause read it; a writer that ignores
     * v1's pause): a flow cannot be copied again piecemeal once the tombstone is stamped, so the edit is found before it
     * (with the change feed, among the flow jobs it tells written; without it, in every one) and the queue refused with
     * v1 intact, serving again; abandon and a re-run carry the edit. Not found, the retirement would meet it after the
     * tombstone and refuse the queue with v1 deleted but that parent.
     */
    @Test
    void aFlowParentEditedRightBeforeTheRetirementIsRefusedBeforeTheTombstoneAndCarriedAfterAbandon() {
        for (String runs : List.of("one run", "re-run")) {
            generate();
            addFlow();
            added.add("c1");
            MigrationResult refused = migrateActingRightBeforeTheRetirement(runs, () -> client().hset("bull:live:p1", "data",
                    "{\"edited\":true}"), (version, where) -> { });
            String run = runs + ": ";
            assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_LINE), refused.refusalKind(), run + refused);
            assertTrue(refused.message().contains("(p1)") && refused.message().contains("emq-migrate abandon"), run + refused.message());
            assertFalse("echomq:2.0.0-migrated".equals(client().hget("bull:live:meta", "version")), run + "no tombstone");
            assertEquals(null, client().hget("bull:live:meta", "paused"), run + "v1 serves again");
            assertExactlyOnce(refused);

            Abandon.run(Wire.unfenced(client()), Wire.open(client()), QUEUE, OPTIONS.lease());
            MigrationResult again = migrate(OPTIONS, (version, where) -> { }).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), run + again);
            assertExactlyOnce(again);
            io.emq.migrate.keyspace.BrandedId p1 = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("p1".getBytes()))
                    .get(0).orElseThrow();
            byte[] payload = client().hget(Keys.queue(QUEUE).job(p1).getBytes(), "payload".getBytes());
            assertEquals("{\"edited\":true}", new String(io.emq.migrate.payload.PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()),
                    run + "the parent's v2 row holds the edit");
        }
    }

    /** A flow as BullMQ's FlowProducer adds it: parent p1 waiting for its child c1, which waits. */
    private void addFlow() {
        client().hset("bull:live:p1", Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1", "delay", "0",
                "priority", "0"));
        client().sadd("bull:live:p1:dependencies", "bull:live:c1");
        client().zadd("bull:live:waiting-children", 0, "p1");
        client().hset("bull:live:c1", Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1", "delay", "0",
                "priority", "0", "parentKey", "bull:live:p1", "parent", "{\"id\":\"p1\",\"queueKey\":\"bull:live\"}"));
        client().lpush("bull:live:wait", "c1");
    }

    private void assertReceipt(MigrationResult r, String id) {
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        String branded = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(id.getBytes())).get(0).orElseThrow().toString();
        assertEquals(branded, client().get(Keys.queue(QUEUE).dedup(id)), "the job's receipt: its name, holding its branded id");
    }

    /** A v1 worker finishes a custom-id job with removeOnComplete: it is in no list and its hash is gone. */
    private void removeCustom(String id) {
        client().lrem("bull:" + QUEUE + ":wait", 0, id);
        client().del("bull:" + QUEUE + ":" + id);
        completed.add(id);
    }

    /** A producer adds a job under an id of its own choosing, as BullMQ's add with a jobId does. */
    private void addCustom(String id) {
        client().hset("bull:" + QUEUE + ":" + id, java.util.Map.of("name", "send", "data", "{}", "opts", "{\"jobId\":\"" + id
                + "\"}", "timestamp", "1700000000000", "delay", "0", "priority", "0"));
        client().lpush("bull:" + QUEUE + ":wait", id);
        added.add(id);
    }

    @Test
    void aProducerThatNeverStopsHasItsAddsRefusedFromThePauseAndTheRunRetires() {
        int[] tried = {0};
        List<MigrationResult> r = migrate(OPTIONS, (version, where) -> {
            if (where.equals("before retire")) {
                tried[0] += 2;
                produce(2);
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertTrue(tried[0] > 0 && added.size() == JOBS, "every add in the window failed loudly: " + added.size());
        assertExactlyOnce(r.get(0));
        assertEquals(LongStream.rangeClosed(1, JOBS).boxed().toList(), servedOrder());
    }

    /** A writer that bypasses BullMQ's add (no add counter) keeps moving the paused source: refused, and v1 serves again. */
    @Test
    void aWriterBypassingTheAddCounterAtRetirementIsRefusedAndV1ServesAgainIntact() {
        int[] n = {0};
        List<MigrationResult> r = migrate(OPTIONS, (version, where) -> {
            if (where.equals("before retire")) {
                String id = "rogue-" + (++n[0]);
                client().hset("bull:live:" + id, java.util.Map.of("name", "rogue", "data", "{}", "opts", "{}", "timestamp", "1"));
                client().lpush("bull:live:paused", id);
                added.add(id);
            }
        });
        MigrationResult result = r.get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), result.refusalKind(), result.toString());
        assertTrue(result.message().contains("stop them"), result.message());
        assertFalse("echomq:2.0.0-migrated".equals(client().hget("bull:live:meta", "version")), "nothing retired");
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 is resumed");
        assertEquals(Long.toString(JOBS), client().get("bull:live:id"), "its add counter given back");
        assertEquals(JOBS + n[0], client().llen("bull:live:wait"), "every job waits again");
        assertTrue(new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.V1_PAUSED_AT).isEmpty(), "the pause is forgotten");
        assertExactlyOnce(result);

        List<MigrationResult> quiet = migrate(OPTIONS, (version, where) -> { });
        assertEquals(MigrationResult.Outcome.RETIRED, quiet.get(0).outcome(), quiet.get(0).toString());
        assertExactlyOnce(quiet.get(0));
    }

    @Test
    void anEditOfACopiedJobInTheLastInstantBeforeDeletionIsCaughtByRetirementAndCopiedAgain() {
        List<String> seen = new java.util.ArrayList<>();
        Checkpoints.Observer edit = atFirst(120, "before retire", () -> {
            client().hset("bull:live:5", "data", "{\"edited\":true}");
            client().rpush("bull:live:5:logs", "edited at the last moment");
        });
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            if (version == 120) {
                seen.add(where);
            }
            edit.at(version, where);
        }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertTrue(seen.contains("source moved at retire"), "the atomic step saw the edit: " + seen);
        Keys keys = Keys.queue(QUEUE);
        io.emq.migrate.keyspace.BrandedId five = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("5".getBytes())).get(0).orElseThrow();
        byte[] payload = client().hget(keys.job(five).getBytes(), "payload".getBytes());
        assertEquals("{\"edited\":true}", new String(io.emq.migrate.payload.PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()));
        assertEquals(List.of("edited at the last moment"), client().lrange(keys.job(five, io.emq.migrate.keyspace.JobSub.LOGS), 0, -1));
    }

    /**
     * Every job edited after the tombstone, before retirement deletes any: the change feed names them all, so no job is
     * unlinked unread (every share of the first round has nothing left to watch); each goes to the digest check, is
     * copied again with its edit, then retired.
     */
    @Test
    void jobsAllEditedAfterTheTombstoneAreCopiedAgainWithTheirEditsBeforeRetiring() {
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            if (version == 120 && where.equals("structures deleted")) {
                for (int n = 1; n <= JOBS; n++) {
                    client().hset("bull:live:" + n, "data", "{\"after\":" + n + "}");
                }
            }
        }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        for (int n = 1; n <= JOBS; n++) {
            io.emq.migrate.keyspace.BrandedId id = journal.ids().lookupV1(List.of(Integer.toString(n).getBytes())).get(0).orElseThrow();
            byte[] payload = client().hget(Keys.queue(QUEUE).job(id).getBytes(), "payload".getBytes());
            assertEquals("{\"after\":" + n + "}", new String(io.emq.migrate.payload.PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()));
        }
    }

    /**
     * A job edited after the tombstone and removed from v1 before retirement copies it again: the copy leaves it out and
     * the retirement finds it retired already, as one removed before retirement read it; its v2 row holds what was
     * copied before the tombstone, and the run retires.
     */
    @Test
    void aJobEditedAfterTheTombstoneThenRemovedBeforeItsCopyAgainIsRetiredAsRemoved() {
        int[] step = {0};
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            if (version == 120 && where.equals("structures deleted") && step[0] == 0) {
                step[0] = 1;
                client().hset("bull:live:5", "data", "{\"edited\":true}");
            } else if (version == 120 && where.equals("source moved at retire") && step[0] == 1) {
                step[0] = 2;
                client().del("bull:live:5");
            }
        }).get(0);
        assertEquals(2, step[0], "edited after the tombstone, then removed");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        io.emq.migrate.keyspace.BrandedId five = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("5".getBytes())).get(0).orElseThrow();
        byte[] payload = client().hget(Keys.queue(QUEUE).job(five).getBytes(), "payload".getBytes());
        assertFalse(new String(io.emq.migrate.payload.PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()).contains("edited"),
                "v2 holds the job as copied before the tombstone");
    }

    /**
     * A job edited after the tombstone, again after each time retirement copies it again: refused once it kept changing
     * over five attempts, its v1 hash kept and its v2 row the last copy; a re-run, which has no read of the source from
     * before the tombstone to copy it from, refuses it too. Every other job is retired, each one v2 row.
     */
    @Test
    void aJobThatKeepsChangingAfterTheTombstoneIsRefusedWithItsHashKept() {
        int[] edits = {0};
        boolean[] tombstoned = {false};
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            if (version == 120 && where.equals("structures deleted")) {
                tombstoned[0] = true;
            }
            if (tombstoned[0] && (where.equals("structures deleted") || where.equals("expectations recorded"))) {
                client().hset("bull:live:5", "data", "{\"edit\":" + ++edits[0] + "}");
            }
        }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), r.refusalKind(), r.toString());
        assertTrue(r.message().contains("bull:live:5") && r.message().contains("kept changing over 5 attempts"), r.message());
        assertFalse(r.message().contains("stays paused"), "the retirement resumed v2: " + r.message());
        assertTrue(r.message().contains("then delete it from v1 (DEL bull:live:5) and run migrate again"), r.message());
        assertEquals(5, edits[0], "edited after the tombstone, then after each of the four copies made again (the fifth attempt refuses)");
        assertEquals(Set.of("bull:live:5", "bull:live:meta", "bull:live:id"), client().keys("bull:live:*"), "its hash is kept, the rest retired");
        Map<String, Integer> rows = LiveV1.v2Rows(client(), QUEUE);
        assertEquals(JOBS, rows.size());
        assertTrue(rows.values().stream().allMatch(n -> n == 1), "one v2 row a job: " + rows);
        io.emq.migrate.keyspace.BrandedId five = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("5".getBytes())).get(0).orElseThrow();
        byte[] payload = client().hget(Keys.queue(QUEUE).job(five).getBytes(), "payload".getBytes());
        assertEquals("{\"edit\":4}", new String(io.emq.migrate.payload.PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()),
                "v2 holds the last copy");

        client().hset("bull:live:5", "data", "{\"edit\":7}");
        MigrationResult again = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), again.refusalKind(), again.toString());
        assertTrue(again.message().contains("1 v1 job(s) of bull:live changed after an earlier run's retirement stamped the"
                + " tombstone, and this run cannot copy them again (v1 lists them no more): bull:live:5;"), again.message());
        assertTrue(client().exists("bull:live:5"), "still kept");

        client().del("bull:live:5"); // as the refusal says, the edit being v1's alone
        MigrationResult finished = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.toString());
        assertEquals(Set.of("bull:live:meta", "bull:live:id"), client().keys("bull:live:*"), "retired");
        assertEquals(JOBS, LiveV1.v2Rows(client(), QUEUE).size(), "one v2 row a job, job 5's as copied last");
    }

    /**
     * A run stopped just after the tombstone (v2 resumed, v1's jobs not yet retired) while a client edits v1 jobs: the run
     * resumed has no read of v1 to copy an edit from, so it keeps every edited job's hash, retires every other job, and
     * refuses once, naming all the edited jobs and the one command that deletes them, not one job a run.
     */
    @Test
    void aRunResumedPastTheTombstoneNamesEveryJobEditedSinceInOneRefusal() {
        stopAt("120:v1 followed");
        client().hset("bull:live:5", "data", "{\"edit\":1}");
        client().hset("bull:live:9", "data", "{\"edit\":1}");
        MigrationResult again = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), again.refusalKind(), again.toString());
        assertTrue(again.message().contains("2 v1 job(s) of bull:live changed after an earlier run's retirement stamped the"
                + " tombstone") && (again.message().contains("then delete them from v1 (DEL bull:live:5 bull:live:9)")
                || again.message().contains("(DEL bull:live:9 bull:live:5)")), again.message());
        assertEquals(Set.of("bull:live:5", "bull:live:9", "bull:live:meta", "bull:live:id"), client().keys("bull:live:*"),
                "the edited hashes kept, every other job retired");
        client().del("bull:live:5", "bull:live:9");
        MigrationResult finished = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, finished.outcome(), finished.toString());
        assertEquals(Set.of("bull:live:meta", "bull:live:id"), client().keys("bull:live:*"), "retired");
        Map<String, Integer> rows = LiveV1.v2Rows(client(), QUEUE);
        assertEquals(JOBS, rows.size());
        assertTrue(rows.values().stream().allMatch(n -> n == 1), "one v2 row a job: " + rows);
    }

    /** A step that fails before retirement says so: v1 is whole; repair and a re-run finish the migration. */
    @Test
    void aStepFailingBeforeRetirementSaysNothingWasDeleted() {
        MigrationResult failed = migrate(OPTIONS, failOnce(30, "rows written")).get(0);
        assertEquals(MigrationResult.Outcome.FAILED, failed.outcome(), failed.toString());
        assertTrue(failed.message().contains("the disk is full") && failed.message().contains("nothing was deleted"), failed.message());
        assertEquals(JOBS, client().llen("bull:live:wait"), "v1 is whole");
        finishAfterRepair();
    }

    /**
     * A failure after the tombstone does not claim nothing was deleted: the source may be partly retired (here its
     * structures are gone and v1 refuses adds); repair and a re-run finish the retirement, each job once.
     */
    @Test
    void aFailureAfterTheTombstoneSaysV1MayBePartlyRetiredAndARerunFinishesIt() {
        MigrationResult failed = migrate(OPTIONS, failOnce(120, "v2 resumed")).get(0);
        assertEquals(MigrationResult.Outcome.FAILED, failed.outcome(), failed.toString());
        assertTrue(failed.message().contains("the disk is full") && failed.message().contains("partly or wholly retired already")
                && !failed.message().contains("nothing was deleted"), failed.message());
        assertTrue(LiveV1.add(client(), QUEUE).isEmpty(), "the tombstone is stamped: v1 refuses adds");
        assertFalse(client().exists("bull:live:wait"), "the structures are deleted");
        finishAfterRepair();
    }

    private static Checkpoints.Observer failOnce(int version, String where) {
        return atFirst(version, where, () -> {
            throw new IllegalStateException("the disk is full");
        });
    }

    /** Acts once: at the first time step {@code version} passes checkpoint {@code where} (any of its checkpoints when null). */
    private static Checkpoints.Observer atFirst(int version, String where, Runnable act) {
        boolean[] done = {false};
        return (v, w) -> {
            if (v == version && (where == null || w.equals(where)) && !done[0]) {
                done[0] = true;
                act.run();
            }
        };
    }

    private void finishAfterRepair() {
        assertEquals(1, Journals.repair(Wire.open(client()), QUEUE, OPTIONS.lease()).size(), "the failed step is cleared");
        MigrationResult again = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertExactlyOnce(again);
    }

    @Test
    void aProducerAfterRetirementIsRefusedByV1InsteadOfLosingItsJob() {
        List<MigrationResult> r = migrate(OPTIONS, (version, where) -> { });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome());
        assertTrue(LiveV1.add(client(), QUEUE).isEmpty(), "the add counter holds the tombstone: the add fails loudly");
        assertEquals(Set.of("bull:live:meta", "bull:live:id"), client().keys("bull:live:*"));
    }

    /** v1 serves while the bulk is copied: a worker takes and completes jobs the copy already wrote; the passes apply it. */
    @Test
    void aV1WorkerDuringTheLiveCopyIsAppliedAndItsJobsCountedOnce() {
        MigrationResult result = migrateWithFiveFinishedDuringTheCopy(false);
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.toString());
        assertExactlyOnce(result);
        assertEquals(5L, Long.parseLong(client().hget(Keys.queue(QUEUE).metricsCompleted(), "count")), "counted once");
    }

    /** The same with jobs added as {@code removeOnComplete}: the finished jobs vanish from v1 altogether, and from v2. */
    @Test
    void aV1WorkerRemovingFinishedJobsDuringTheLiveCopyLeavesNoV2RowOfThem() {
        MigrationResult result = migrateWithFiveFinishedDuringTheCopy(true);
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.toString());
        assertEquals(5, completed.size());
        assertExactlyOnce(result);
        assertEquals(JOBS - 5, client().zcard(Keys.queue(QUEUE).pending()), "the removed jobs are not served again");
    }

    /**
     * v1 serves while the bulk is copied: its worker fails three jobs the copy already wrote as pending (their last
     * attempt). The passes make each one dead row, and {@code metrics:failed} counts each once: the jobs v1 lists failed,
     * not v1's own {@code metrics:failed} count (7, then 10: it counts failures of jobs v1 holds no more too).
     */
    @Test
    void aV1WorkerFailingJobsDuringTheLiveCopyCountsEachIntoMetricsFailedOnce() {
        client().hset("bull:live:metrics:failed", Map.of("count", "7", "prevTS", "0", "prevCount", "0"));
        Set<String> failed = new TreeSet<>();
        MigrationResult result = migrate(OPTIONS, atFirst(30, "rows written", () -> failed.addAll(failTaken(3)))).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, result.outcome(), result.toString());
        assertExactlyOnce(result);
        assertEquals(Set.of("1", "2", "3"), failed);
        assertEquals(failed, deadV1Ids(), "each failed job one dead row");
        assertEquals(Map.of("completed", 0L, "failed", 0L), LiveV1.stepCounts(client(), QUEUE, 80), "V80 counted the snapshot's");
        assertEquals("3", client().hget(Keys.queue(QUEUE).metricsFailed(), "count"), "counted once, by the passes");
        io.emq.migrate.runtime.Counts counts = io.emq.migrate.runtime.Jobs.on(Wire.open(client()), QUEUE).counts();
        assertEquals(List.of(3L, 3L), List.of(counts.dead(), counts.failed()), counts.toString());
    }

    /**
     * A run that crashes right after a catch-up pass folded two failed jobs into {@code metrics:failed} (the step not yet
     * recorded) is run again after a v1 worker failed a third: the re-run folds again and adds the third alone.
     */
    @Test
    void aReRunAfterACrashPastTheFailedCountAddsOnlyTheJobsV1FailedSince() {
        Set<String> failed = new TreeSet<>();
        Checkpoints.Observer failing = atFirst(30, "rows written", () -> failed.addAll(failTaken(2)));
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, (version, where) -> {
            failing.at(version, where);
            if (version == 100 && where.equals("pass recorded")) {
                throw new Checkpoints.InjectedCrash("100:pass recorded");
            }
        }));
        String metric = Keys.queue(QUEUE).metricsFailed();
        assertEquals("2", client().hget(metric, "count"), "the crashed run's pass counted the two");
        leaseLapses();
        failed.addAll(failTaken(1));
        MigrationResult r = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(failed, deadV1Ids());
        assertEquals("3", client().hget(metric, "count"), "each failed job counted once across the two runs");
    }

    /** A v1 worker takes {@code n} jobs and fails each for good; their ids. */
    private List<String> failTaken(int n) {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = LiveV1.take(client(), QUEUE, false, 30_000).orElseThrow();
            assertTrue(LiveV1.fail(client(), QUEUE, id));
            ids.add(id);
        }
        return ids;
    }

    /** The v1 ids of the v2 dead rows. */
    private Set<String> deadV1Ids() {
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        Set<String> out = new TreeSet<>();
        for (String member : client().zrange(Keys.queue(QUEUE).dead(), 0, -1)) {
            out.add(new String(journal.ids().lookupV2(BrandedId.of(member)).orElseThrow(), java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    /** Migrates while, once the copy has written its first rows, a v1 worker takes five jobs and completes (or removes) each. */
    private MigrationResult migrateWithFiveFinishedDuringTheCopy(boolean removes) {
        return migrate(OPTIONS, atFirst(30, "rows written", () -> {
            for (int i = 0; i < 5; i++) {
                String id = LiveV1.take(client(), QUEUE, false, 30_000).orElseThrow();
                assertTrue(removes ? LiveV1.completeAndRemove(client(), QUEUE, id) : LiveV1.complete(client(), QUEUE, id));
                completed.add(id);
            }
        })).get(0);
    }

    @Test
    void aJobAWorkerHoldsIsNeverPendingInV2AndWaitForLocksWaitsForTheWorker() {
        String[] held = {null};
        MigrationResult refused = migrate(OPTIONS, (version, where) -> {
            if (version == 100 && held[0] == null) {
                held[0] = LiveV1.take(client(), QUEUE, true, 30_000).orElseThrow();
            }
        }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.LIVE_LOCK), refused.refusalKind(), refused.toString());
        assertTrue(refused.message().contains(held[0] + " (locked)") && refused.message().contains("pass --wait-for-locks DURATION"),
                refused.message());
        assertFalse(LiveV1.v2Rows(client(), QUEUE).containsKey(held[0]), "a held job is not a v2 row");
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 is resumed after the refusal");
        assertExactlyOnce(refused);
        MigrationResult outlasted = migrate(OPTIONS.withWaitForLocks(Duration.ofMillis(500)), (version, where) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.LIVE_LOCK), outlasted.refusalKind(), outlasted.toString());
        assertTrue(outlasted.message().contains("they outlasted --wait-for-locks 500ms: a longer one waits longer"), outlasted.message());

        Thread worker = new Thread(() -> {
            try {
                Thread.sleep(600);
            } catch (InterruptedException e) {
                return;
            }
            LiveV1.complete(SERVER.client(), QUEUE, held[0]);
        });
        completed.add(held[0]);
        worker.start();
        MigrationResult waited = migrate(OPTIONS.withWaitForLocks(Duration.ofSeconds(20)), (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, waited.outcome(), waited.toString());
        assertExactlyOnce(waited);
    }

    /**
     * A run stops between a batch's rows and their expectations (a crash; a lease lost is the same), and a v1 worker
     * finishes one of those jobs meanwhile: the row the journal does not know of is found by the re-run and removed.
     */
    @Test
    void aRowWrittenByARunThatStoppedBeforeJournalingItIsRemovedWhenV1FinishesItsJob() {
        String[] done = {null};
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, (version, where) -> {
            if (version == 30 && where.equals("rows written")) {
                throw new Checkpoints.InjectedCrash("30:rows written"); // the batch's rows are in v2, not yet journaled
            }
        }));
        leaseLapses();
        String id = LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(); // a v1 worker finishes a job of that batch
        assertTrue(LiveV1.complete(client(), QUEUE, id));
        completed.add(id);

        MigrationResult r = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
    }

    /**
     * As above, but v1 fails the job instead (its attempts move, it becomes a dead row): the re-run finds the row the
     * journal does not know of with the attempts it was first written with, and rewrites it (the guard: those attempts,
     * as read) instead of taking it for a row the v2 runtime claimed: retired, exactly once, the job dead in v2.
     */
    @Test
    void aRowWrittenByARunThatStoppedBeforeJournalingItIsRewrittenWhenV1RetriesItsJob() {
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, (version, where) -> {
            if (version == 30 && where.equals("rows written")) {
                throw new Checkpoints.InjectedCrash("30:rows written"); // the batch's rows are in v2, not yet journaled
            }
        }));
        leaseLapses();
        String id = LiveV1.take(client(), QUEUE, false, 60_000).orElseThrow(); // a job of that batch, failed by a v1 worker
        fail(id, System.currentTimeMillis());

        MigrationResult r = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        BrandedId branded = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(id.getBytes())).get(0).orElseThrow();
        assertEquals(List.of(branded.toString()), client().zrange(Keys.queue(QUEUE).dead(), 0, -1), "the failed job is dead in v2");
    }

    /** As above, in one run: the connection drops at the same point, the step is tried again, and the job is gone by then. */
    @Test
    void aRowWrittenByATryOfAStepThatLostItsConnectionIsRemovedWhenV1RemovesItsJob() {
        boolean[] dropped = {false};
        MigrationResult r = migrate(OPTIONS, (version, where) -> {
            if (version == 30 && where.equals("rows written") && !dropped[0]) {
                dropped[0] = true; // a v1 worker finishes a job of the batch (removeOnComplete), then the connection drops
                finishNextRemoving(false);
                throw new redis.clients.jedis.exceptions.JedisConnectionException("dropped between the rows and their expectations");
            }
        }).get(0);
        assertTrue(dropped[0]);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
    }

    @Test
    void theJobsReSyncPassesAddAreCountedAsMovedByTheRunThatAddedThem() {
        MigrationResult copied = migrate(OPTIONS.withRetire(false), (version, where) -> { }).get(0);
        assertEquals(JOBS, copied.jobs(), copied.toString());
        produce(5);
        client().zadd("bull:live:failed", 1, "9"); // moved, not added: counted by neither run again
        client().lrem("bull:live:paused", 0, "9");
        client().hset("bull:live:9", "failedReason", "boom");

        MigrationResult retired = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, retired.outcome(), retired.toString());
        assertEquals(5, retired.moved(io.emq.migrate.keyspace.V2State.PENDING), retired.toString());
        assertEquals(5, retired.jobs(), "the jobs v1 took in since the copy, which this run moved: " + retired);
        assertExactlyOnce(retired);
    }

    /**
     * The run that retires after {@code --no-retire} watches the change feed from its catch-up on: a producer's adds and
     * a worker's finishes between the runs, during that run's whole first pass, and after its catch-up end in v2 exactly
     * once, an edit between the runs reaches v2, and the pass under the pause reads only what the feed told since.
     */
    @Test
    void aRunThatRetiresAfterNoRetireWhileAProducerAndAWorkerActEndsExactlyOnce() {
        assertEquals(MigrationResult.Outcome.VERIFIED, migrate(OPTIONS.withRetire(false), (version, where) -> { }).get(0).outcome());
        produce(3);
        finishNextRemoving(false);
        client().hset("bull:live:20", "data", "{\"between\":true}");
        int[] acted = {0};
        MigrationResult retired = migrate(OPTIONS, (version, where) -> {
            boolean firstRead = where.equals("source read") && acted[0] == 0;
            if (version == 120 && (firstRead || where.equals("caught up"))) {
                acted[0]++;
                produce(2);
                finishNextRemoving(false);
            }
        }).get(0);
        assertEquals(2, acted[0], "acted in the first pass and after the catch-up");
        assertEquals(MigrationResult.Outcome.RETIRED, retired.outcome(), retired.toString());
        assertExactlyOnce(retired);
        Map<String, Long> window = LiveV1.stepCounts(client(), QUEUE, 120);
        assertEquals(1L, window.get("live-full-pass"), window.toString());
        assertTrue(window.containsKey("pass-delta-keys"), "the pass under the pause is a delta: " + window);
        assertEquals("{\"between\":true}", LiveV1.v2Data(client(), QUEUE, "20"), "the edit between the runs");
    }

    @Test
    void aReSyncAfterNoRetireAppliesRemovalsPromotionsAndFailuresAndNeverResurrects() {
        client().zadd("bull:live:delayed", (System.currentTimeMillis() + 3_600_000L) * 4096, "301");
        client().hset("bull:live:301", java.util.Map.of("name", "later", "data", "{}", "opts", "{}", "timestamp", "1",
                "delay", "3600000", "priority", "0"));
        client().set("bull:live:id", "301");
        added.add("301");
        MigrationResult first = migrate(OPTIONS.withRetire(false), (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.VERIFIED, first.outcome(), first.toString());

        client().lrem("bull:live:paused", 0, "7");
        client().del("bull:live:7");
        added.remove("7");
        client().zrem("bull:live:delayed", "301");
        client().lpush("bull:live:paused", "301");
        client().lrem("bull:live:paused", 0, "9");
        client().zadd("bull:live:failed", 1, "9");
        client().hset("bull:live:9", "failedReason", "boom");
        client().hset("bull:live:20", "data", "{\"updated\":true}");
        client().rpush("bull:live:20:logs", "a line after the copy");

        MigrationResult refused = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_ORDER), refused.refusalKind(), "the promoted job is served"
                + " before every job of wait in v1, after them in v2 (its id was minted among the delayed): " + refused);
        MigrationResult second = migrate(OPTIONS.withAcceptOrderDrift(true), (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, second.outcome(), second.toString());
        assertTrue(second.orderDrift().orElseThrow().startsWith("pending breaks v1's order once (v1 job 1 comes after v1 job 301"),
                second.toString());
        assertExactlyOnce(second);
        Keys keys = Keys.queue(QUEUE);
        assertEquals(0, client().zcard(keys.schedule()), "the promoted job left schedule");
        assertTrue(servedOrder().contains(301L), "and is pending");
        assertFalse(servedOrder().contains(7L), "the removed job is not resurrected");
        assertEquals(1, client().zcard(keys.dead()), "the failed job is dead");
        io.emq.migrate.keyspace.BrandedId twenty = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("20".getBytes())).get(0).orElseThrow();
        byte[] payload = client().hget(keys.job(twenty).getBytes(), "payload".getBytes());
        assertEquals("{\"updated\":true}", new String(io.emq.migrate.payload.PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()),
                "changed data is copied again");
        assertEquals(List.of("a line after the copy"), client().lrange(keys.job(twenty, io.emq.migrate.keyspace.JobSub.LOGS), 0, -1));
    }

    /**
     * Migrator A (a child JVM) freezes whole (SIGSTOP, lease heartbeat and all) inside V30 with a batch of
     * rows built; its lease lapses, B migrates and retires the queue, a v2 consumer drains it, then A
     * continues: its late write is refused, changes nothing, and A says another migrator took over.
     */
    @Test
    void aZombieMigratorWritesNothingAfterAnotherOneFinished() throws Exception {
        java.nio.file.Path log = java.nio.file.Files.createTempFile("zombie", ".log");
        ProcessBuilder pb = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.emq.migrate.cli.Main", "migrate",
                "--source", SERVER.uri(), "--all", "--lease", "300ms", "--yes").redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("EMQ_CRASH_AT", "30:rows built");
        pb.environment().put("EMQ_CRASH_MODE", "stop");
        Process a = pb.start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!java.nio.file.Files.readString(log).contains("stopped at") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(java.nio.file.Files.readString(log).contains("stopped at V30"), java.nio.file.Files.readString(log));
            awaitLeaseLapsed();
            MigrationResult b = migrate(OPTIONS, (version, where) -> { }).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, b.outcome(), b.toString());
            io.emq.migrate.runtime.Jobs jobs = io.emq.migrate.runtime.Jobs.on(Wire.open(client()), QUEUE);
            for (var c = jobs.claim(Duration.ofSeconds(30)); c.isPresent(); c = jobs.claim(Duration.ofSeconds(30))) {
                jobs.complete(c.get().id(), c.get().token());
            }
            assertEquals(0, client().zcard(Keys.queue(QUEUE).pending()), "drained");
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(a.pid())).start().waitFor();
        }
        assertTrue(a.waitFor(90, java.util.concurrent.TimeUnit.SECONDS));
        String out = java.nio.file.Files.readString(log);
        assertEquals(3, a.exitValue(), out);
        assertTrue(out.contains("another migrator took over"), out);
        assertFalse(out.contains("run `emq-migrate repair`"), "nothing to repair: " + out);
        assertEquals(0, client().zcard(Keys.queue(QUEUE).pending()), "the zombie's batch was not written: nothing served twice");
        assertEquals(0, client().keys("emq:{live}:job:*").size());
        assertEquals("retired", new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.STATE).orElseThrow().wireName());
    }

    /**
     * Waits until the journal's lease has lapsed by the server's clock: the stopped migrator may renew it
     * once more after it printed that it stopped (its renewer runs until the process is stopped), so no
     * fixed wait after the line is long enough on a loaded machine.
     */
    private void awaitLeaseLapsed() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Object lapsed = client().eval("local lease_end = redis.call('HGET', KEYS[1], 'lock_until') local t = redis.call('TIME')"
                    + " return (not lease_end or tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(lease_end)) and 1 or 0",
                    List.of(Keys.migrationJournal(QUEUE)), List.of());
            if (Long.valueOf(1).equals(lapsed)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the stopped migrator's lease did not lapse within 30 s");
    }

    /** Ends a run that refused (v1 intact) as an operator does: the v1 side stopped, migrate again. */
    private void finishAfterStopping(MigrationResult first) {
        assertExactlyOnce(first);
        if (first.outcome() != MigrationResult.Outcome.RETIRED) {
            MigrationResult again = migrate(OPTIONS, (version, where) -> { }).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
            assertExactlyOnce(again);
        }
    }

    @Test
    void aSteadyProducerThreadThroughTheWholeRunNeverLeavesAnOrphanOrALoss() throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread producer = LiveV1.beside(SERVER.endpoint(), stop, 2, c -> LiveV1.add(c, QUEUE).ifPresent(added::add));
        MigrationResult r = migrate(OPTIONS.withAcceptAnomalies(true), (version, where) -> { }).get(0);
        stop.set(true);
        producer.join();
        assertEquals(0, client().zcard(Keys.queue(QUEUE).dead()), "no waiting job migrated as a dead orphan: " + r);
        finishAfterStopping(r);
        assertTrue(added.size() > JOBS, "the producer ran: " + added.size());
    }

    @Test
    void aV1WorkerThatHonoursThePauseRunningThroughTheRunDoublesNothing() throws InterruptedException {
        MigrationResult r = migrateBesideAWorker(false, false, OPTIONS.withWaitForLocks(Duration.ofSeconds(10)));
        assertFalse(completed.isEmpty(), "the worker ran");
        finishAfterStopping(r);
    }

    @Test
    void aV1WorkerRemovingFinishedJobsThroughTheRunDoublesNothing() throws InterruptedException {
        MigrationResult r = migrateBesideAWorker(false, true, OPTIONS.withWaitForLocks(Duration.ofSeconds(10)));
        assertFalse(completed.isEmpty(), "the worker ran");
        finishAfterStopping(r);
    }

    @Test
    void aV1WorkerRemovingFinishedJobsAndIgnoringThePauseIsRefusedOrOutwaitedNeverDoubled() throws InterruptedException {
        MigrationResult r = migrateBesideAWorker(true, true, OPTIONS);
        assertRetiredOrRefusedForTheWorker(r);
        finishAfterStopping(r);
    }

    @Test
    void aV1WorkerThatIgnoresThePauseIsRefusedOrOutwaitedNeverDoubled() throws InterruptedException {
        MigrationResult r = migrateBesideAWorker(true, false, OPTIONS);
        assertRetiredOrRefusedForTheWorker(r);
        finishAfterStopping(r);
    }

    /**
     * Migrates with a v1 worker beside the whole run, taking jobs (honouring the pause or not) and finishing each into
     * completed or removing it, stopped once the run ends; the run's result.
     */
    private MigrationResult migrateBesideAWorker(boolean ignoresPause, boolean removes, MigrationOptions options)
            throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread worker = LiveV1.beside(SERVER.endpoint(), stop, 2, c -> LiveV1.take(c, QUEUE, ignoresPause, 5_000).ifPresent(id -> {
            if (removes ? LiveV1.completeAndRemove(c, QUEUE, id) : LiveV1.complete(c, QUEUE, id)) {
                completed.add(id);
            }
        }));
        Thread.sleep(30);
        MigrationResult r = migrate(options, (version, where) -> { }).get(0);
        stop.set(true);
        worker.join();
        return r;
    }

    private static void assertRetiredOrRefusedForTheWorker(MigrationResult r) {
        assertTrue(r.outcome() == MigrationResult.Outcome.RETIRED || r.refusalKind().filter(Set.of(MigrationRefused.Kind.SOURCE_CHANGED,
                MigrationRefused.Kind.LIVE_LOCK)::contains).isPresent(), "retired, or refused for the worker: " + r);
    }

    /** A flow child a v1 worker finishes after --no-retire: the flow cannot be re-synced piecemeal. */
    @Test
    void aFlowThatMovedAfterItWasMigratedIsRefusedNamingAbandon() {
        client().flushAll();
        MigrationHarness.load(client(), "node-5.65.1");
        MigrationOptions noRetire = OPTIONS.withRetire(false);
        List<MigrationResult> first = MigrationHarness.migrate(SERVER, SERVER, noRetire, Checkpoints.none(), List.of("bull"),
                "flows-parent", "flows-child");
        first.forEach(r -> assertEquals(MigrationResult.Outcome.VERIFIED, r.outcome(), r.toString()));
        String child = LiveV1.take(client(), "flows-child", true, 30_000).orElseThrow();
        String parentKey = client().hget("bull:flows-child:" + child, "parentKey");
        assertTrue(LiveV1.complete(client(), "flows-child", child));
        client().srem(parentKey + ":dependencies", "bull:flows-child:" + child);
        client().hset(parentKey + ":processed", "bull:flows-child:" + child, "\"done\"");

        List<MigrationResult> again = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.none(), List.of("bull"),
                "flows-parent", "flows-child");
        MigrationResult parent = again.stream().filter(r -> r.v2Queue().equals("flows-parent")).findFirst().orElseThrow();
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_LINE), parent.refusalKind(), parent.toString());
        assertTrue(parent.message().contains("emq-migrate abandon"), parent.message());
        assertFalse("echomq:2.0.0-migrated".equals(client().hget("bull:flows-parent:meta", "version")), "v1 parent intact");
        assertFalse(LiveV1.v2Rows(client(), "flows-child").containsKey(child), "the finished child is no v2 row");
    }

    /**
     * A flow added while v1 serves, after the bulk copy: a flow cannot be caught up piecemeal, so the catch-up refuses
     * the queue naming abandon, with v1 serving; abandon and a re-run migrate the flow with the rest.
     */
    @Test
    void aFlowAddedDuringTheMigrationIsRefusedNamingAbandonAndMigratesAfterIt() throws InterruptedException {
        MigrationResult refused = migrate(OPTIONS, atFirst(100, null, () -> {
            addFlow();
        })).get(0);
        added.add("c1");
        assertEquals(Optional.of(MigrationRefused.Kind.SOURCE_CHANGED), refused.refusalKind(), refused.toString());
        assertTrue(refused.message().contains("a flow was added to bull:live") && refused.message().contains("emq-migrate abandon"),
                refused.message());
        assertEquals(null, client().hget("bull:live:meta", "paused"), "v1 serves");
        assertExactlyOnce(refused);

        Abandon.run(Wire.unfenced(client()), Wire.open(client()), QUEUE, OPTIONS.lease());
        MigrationResult again = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertExactlyOnce(again);
        assertTrue(new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("p1".getBytes())).get(0).isPresent(),
                "the flow parent is migrated too");
    }

    /**
     * What v1 drops while it serves, beside its jobs: a dedup key (BullMQ deletes one when its job finishes, or on
     * removeDeduplicationKey) and a job scheduler (removeJobScheduler). Both were copied by V70; the passes drop
     * them from v2 too: no dedup key left pointing at a job v2 does not hold, no registration v1 no longer runs.
     */
    @Test
    void aDedupKeyAndASchedulerV1DropsAfterTheyWereCopiedAreDroppedFromV2() {
        client().set("bull:live:de:once-7", "7");
        client().set("bull:live:de:kept-8", "8");
        client().hset("bull:live:repeat:tick", Map.of("every", "60000", "name", "tick"));
        client().zadd("bull:live:repeat", 1, "tick");
        client().hset("bull:live:repeat:tock", Map.of("every", "30000", "name", "tock"));
        client().zadd("bull:live:repeat", 2, "tock");
        Keys keys = Keys.queue(QUEUE);
        MigrationResult r = migrate(OPTIONS, atFirst(100, null, () -> {
            assertEquals(keys.dedup("once-7"), client().keys(keys.dedup("once-7")).stream().findFirst().orElse(""),
                    "V70 copied the dedup key");
            client().del("bull:live:de:once-7");
            client().del("bull:live:repeat:tick");
            client().zrem("bull:live:repeat", "tick");
        })).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(Set.of(keys.dedup("kept-8")), client().keys(keys.base() + "de:*"), "only the dedup key v1 still held");
        assertEquals(List.of("tock"), client().zrange(keys.base() + "repeat", 0, -1), "only the scheduler v1 still runs");
        assertFalse(client().exists(keys.repeat("tick")), "the dropped scheduler's registration is gone");
    }

    /**
     * A scheduler v1 removes under the pause (its iteration job not in delayed, so no structure moves) as the first read
     * under the pause ends (a refresh of the live pass's read: the schedulers are read again whole), or right before the
     * retirement: the guard, which watches
     * the schedulers' zset, takes the read again or refuses the retirement, and the pass, told that v1 wrote the
     * schedulers since it drained, drops the registration from v2.
     */
    @Test
    void aSchedulerV1RemovesUnderThePauseIsDroppedFromV2() {
        for (String checkpoint : List.of("source read", "before retire")) {
            generate();
            client().hset("bull:live:repeat:tick", Map.of("every", "60000", "name", "tick"));
            client().zadd("bull:live:repeat", 1, "tick");
            MigrationResult r = migrateActingUnderThePauseAt(checkpoint, () -> {
                client().del("bull:live:repeat:tick");
                client().zrem("bull:live:repeat", "tick");
            });
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), checkpoint + ": " + r);
            assertExactlyOnce(r);
            Keys keys = Keys.queue(QUEUE);
            assertEquals(List.of(), client().zrange(keys.base() + "repeat", 0, -1), checkpoint + ": no scheduler v1 no longer runs");
            assertFalse(client().exists(keys.repeat("tick")), checkpoint + ": the dropped scheduler's registration is gone");
        }
    }

    /**
     * A scheduler v1 upserts right before the retirement keeping its next run (its record rewritten, {@code repeat}'s
     * score unchanged: no watched key moves, the queue retires at once) has its v2 template rewritten from the new record
     * once the tombstone is stamped, in a run that follows the feed, in a re-run that has none, and by the re-run of a run
     * that stopped right after the tombstone (from the schedulers the journal registers).
     */
    @Test
    void aSchedulerTemplateV1EditsRightBeforeTheRetirementIsCarried() {
        for (String runs : RUNS) {
            generate();
            client().hset("bull:live:repeat:tick", Map.of("every", "60000", "name", "tick", "data", "{\"v\":1}"));
            client().zadd("bull:live:repeat", 1, "tick");
            MigrationResult r = migrateActingRightBeforeTheRetirement(runs, () -> {
                client().hset("bull:live:repeat:tick", "data", "{\"v\":2}");
                client().zadd("bull:live:repeat", 1, "tick");
            }, (version, where) -> { });
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
            assertExactlyOnce(r);
            String template = client().hget(Keys.queue(QUEUE).repeat("tick"), "template");
            assertTrue(template.contains("{\"v\":2}"), runs + ": the template v1 held at the cutover: " + template);
        }
    }

    /**
     * A scheduler v1 upserts right before the retirement keeping its next run, with another period, has its v2 period
     * followed; one it gives a bound (a limit) that way, which no v2 registration holds, is refused once the tombstone is
     * stamped (v1's jobs kept) rather than served unbounded, in one run and in the re-run of a run stopped right after the
     * tombstone; the re-run with --drop-bounded-schedulers drops the registration and retires the queue.
     */
    @Test
    void aSchedulerV1BoundsRightBeforeTheRetirementIsRefusedUnlessDroppedAndAPeriodChangeIsCarried() {
        for (String runs : List.of("one run", "stopped after the tombstone")) {
            generate();
            client().hset("bull:live:repeat:tick", Map.of("every", "60000", "name", "tick"));
            client().hset("bull:live:repeat:tock", Map.of("every", "60000", "name", "tock"));
            client().zadd("bull:live:repeat", Map.of("tick", 1.0, "tock", 1.0));
            MigrationResult r = migrateActingRightBeforeTheRetirement(runs, () -> {
                client().hset("bull:live:repeat:tick", "limit", "3");
                client().hset("bull:live:repeat:tock", "every", "30000");
                client().zadd("bull:live:repeat", Map.of("tick", 1.0, "tock", 1.0));
            }, (version, where) -> { });
            assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), runs + ": " + r);
            assertEquals(Optional.of(MigrationRefused.Kind.BOUNDED_SCHEDULER), r.refusalKind(), r.toString());
            assertTrue(r.message().contains("v1 scheduler bull:live:repeat:tick became bounded after the tombstone")
                    && r.message().contains("--drop-bounded-schedulers"), r.message());
            assertTrue(client().exists("bull:live:5"), runs + ": v1's jobs kept");

            leaseLapses();
            MigrationResult dropped = migrate(OPTIONS.withDropBoundedSchedulers(true), (version, where) -> { }).get(0);
            assertEquals(MigrationResult.Outcome.RETIRED, dropped.outcome(), runs + ": " + dropped);
            assertExactlyOnce(dropped);
            Keys keys = Keys.queue(QUEUE);
            assertFalse(client().exists(keys.repeat("tick")), runs + ": the bounded scheduler's registration is gone");
            assertEquals(List.of("tock"), client().zrange(keys.base() + "repeat", 0, -1), runs);
            assertEquals("30000", client().hget(keys.repeat("tock"), "every_ms"), runs + ": the period v1 held at the cutover");
        }
    }

    /**
     * The queue settings v2's gates read start as v1 holds them at the cutover: one v1 changes while it serves through
     * the copy is carried by the passes, one it changes or removes right before the retirement (its {@code meta} is not
     * watched) once the tombstone is stamped, in one run, in a re-run, and by the re-run of a run stopped right after the
     * tombstone; the journal records the values carried, and no longer the one taken back.
     */
    @Test
    void theQueueSettingsV1HoldsAtTheCutoverAreTheOnesV2StartsWith() {
        for (String runs : RUNS) {
            generate();
            client().hset("bull:live:meta", Map.of("concurrency", "5", "max", "10", "duration", "1000"));
            String[] live = {null};
            MigrationResult r = migrateActingRightBeforeTheRetirement(runs, () -> {
                live[0] = client().hget(Keys.queue(QUEUE).meta(), "max");
                client().hset("bull:live:meta", "concurrency", "3");
                client().hdel("bull:live:meta", "max", "duration");
            }, atFirst(110, null, () -> client().hset("bull:live:meta", "max", "20")));
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
            assertEquals("20", live[0], runs + ": a change while v1 served, carried by a pass before the pause");
            assertEquals(java.util.Arrays.asList("3", null, null), client().hmget(Keys.queue(QUEUE).meta(), "concurrency", "max", "duration"),
                    runs + ": v2 starts with v1's settings at the cutover");
            Journal journal = new Journal(Wire.open(client()), QUEUE);
            assertEquals(Optional.of("3"), journal.text("setting:concurrency"), runs);
            assertEquals(Optional.empty(), journal.text("setting:max"), runs + ": the setting taken back is forgotten");
        }
    }

    /** A queue whose every setting v1 removes (while it serves, or right before the retirement) starts v2 with none. */
    @Test
    void aQueueV1TakesEverySettingFromStartsV2WithNone() {
        for (int version : new int[] {110, 120}) {
            generate();
            client().hset("bull:live:meta", Map.of("concurrency", "5"));
            MigrationResult r = migrateActingRightBeforeTheRetirement("one run", () -> { },
                    atFirst(version, version == 120 ? "before retire" : null, () -> client().hdel("bull:live:meta", "concurrency")));
            assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
            assertEquals(null, client().hget(Keys.queue(QUEUE).meta(), "concurrency"), "removed at V" + version);
            assertEquals(Optional.empty(), new Journal(Wire.open(client()), QUEUE).text("setting:concurrency"), "removed at V" + version);
        }
    }

    /**
     * A dedup key v1 dropped is deleted from v2 only while it holds the branded id the migration wrote (another
     * writer's value is kept), and a run that stopped after deleting it, before its record was forgotten, leaves
     * the re-run to forget it: the journal counts no record left.
     */
    @Test
    void aDroppedDedupKeyIsDeletedOnlyWhileItHoldsWhatTheMigrationWroteAndARunStoppedBeforeForgettingItIsFinished() {
        client().set("bull:live:de:mine-7", "7");
        client().set("bull:live:de:theirs-8", "8");
        Keys keys = Keys.queue(QUEUE);
        Checkpoints.Observer dropped = atFirst(110, null, () -> { // after the last pass that read them: the next one drops both
            client().del("bull:live:de:mine-7", "bull:live:de:theirs-8");
            client().set(keys.dedup("theirs-8"), "JOB00000000000");
        });
        org.junit.jupiter.api.Assertions.assertThrows(Checkpoints.InjectedCrash.class, () -> migrate(OPTIONS, (version, where) -> {
            dropped.at(version, where);
            if (where.equals("dropped records deleted")) {
                assertFalse(client().exists(keys.dedup("mine-7")), "deleted before its record is forgotten");
                assertEquals("JOB00000000000", client().get(keys.dedup("theirs-8")), "kept");
                throw new Checkpoints.InjectedCrash("100:dropped records deleted");
            }
        }));
        leaseLapses();
        MigrationResult r = migrate(OPTIONS, (version, where) -> { }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertExactlyOnce(r);
        assertEquals(Set.of(keys.dedup("theirs-8")), client().keys(keys.base() + "de:*"));
        assertEquals("JOB00000000000", client().get(keys.dedup("theirs-8")), "another writer's value is kept");
        Journal journal = new Journal(Wire.open(client()), QUEUE);
        assertEquals(List.of(), journal.fieldsStartingWith(Journal.DEDUP_PREFIX), "both records forgotten");
        assertEquals(Optional.of("0"), journal.text(Journal.CARRIED_COUNT));
    }

    @Test
    void aLeaseShorterThanThreeRenewalsIsRefused() {
        MigrationRefused refused = org.junit.jupiter.api.Assertions.assertThrows(MigrationRefused.class,
                () -> migrate(OPTIONS.withLease(Duration.ZERO), (version, where) -> { }));
        assertEquals(MigrationRefused.Kind.LEASE_TOO_SHORT, refused.kind());
        assertEquals(JOBS, client().llen("bull:live:wait"), "nothing was touched");
    }
}
