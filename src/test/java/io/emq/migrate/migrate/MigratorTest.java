package io.emq.migrate.migrate;

import io.emq.migrate.payload.PayloadPolicy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.Monitor;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

class MigratorTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static Map<String, MigrationResult> byQueue(List<MigrationResult> results) {
        return results.stream().collect(Collectors.toMap(MigrationResult::v1Queue, r -> r));
    }

    @Test
    void nodeFixtureMigratesWhatItCanAndRefusesTheRestWithTheLiftingOption() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        Map<String, MigrationResult> r = byQueue(MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(),
                Checkpoints.none(), List.of("bull")));
        r.values().forEach(x -> System.out.println(x));
        assertEquals(MigrationResult.Outcome.REFUSED, r.get("bull:orders").outcome());
        assertTrue(r.get("bull:orders").message().contains("--drop-cron-schedulers"), r.get("bull:orders").message());
        assertEquals(MigrationResult.Outcome.RETIRED, r.get("bull:emails").outcome(), r.get("bull:emails").message());
        assertEquals(MigrationResult.Outcome.RETIRED, r.get("bull:flows-parent").outcome(), r.get("bull:flows-parent").message());
        assertEquals(MigrationResult.Outcome.RETIRED, r.get("bull:flows-child").outcome(), r.get("bull:flows-child").message());
        Keys emails = Keys.queue("emails");
        assertEquals(4, SERVER.client().zcard(emails.pending()));
        assertEquals(1, SERVER.client().zcard(emails.schedule()));
        assertEquals("echomq:2.0.0-migrated", SERVER.client().hget("bull:emails:meta", "version"));
        assertEquals(java.util.Set.of("bull:emails:meta", "bull:emails:id"), SERVER.client().keys("bull:emails:*"));
        assertEquals("echomq:2.0.0-migrated", SERVER.client().get("bull:emails:id"), "the add counter holds the tombstone");
    }

    @Test
    void payloadBytesSurviveUnderBothPolicies() {
        for (PayloadPolicy policy : PayloadPolicy.values()) {
            SERVER.client().flushAll();
            MigrationHarness.load(SERVER.client(), "node-large-payload");
            byte[] before = SERVER.client().hget("bull:blobs:".getBytes(StandardCharsets.UTF_8).length > 0
                    ? firstJobKey() : null, "data".getBytes(StandardCharsets.UTF_8));
            List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER,
                    MigrationOptions.defaults().withPayload(policy), Checkpoints.none(), List.of("bull"));
            assertTrue(results.get(0).ok(), results.get(0).message());
            Journal journal = new Journal(Wire.open(SERVER.client()), "blobs");
            assertEquals(policy, journal.header().get(JournalHeader.POLICY).orElseThrow());
            assertEquals(java.util.Optional.of(false), journal.header().get(JournalHeader.KEPT_IDS),
                    "the fence records, with the id base, that no id was kept (minting then skips the candidate check)");
            boolean found = false;
            for (String member : SERVER.client().zrange(Keys.queue("blobs").pending(), 0, -1)) {
                byte[] payload = SERVER.client().hget(Keys.queue("blobs").job(BrandedId.of(member)).getBytes(StandardCharsets.UTF_8),
                        "payload".getBytes(StandardCharsets.UTF_8));
                byte[] data = policy.v1Data(payload).orElseThrow();
                found |= java.util.Arrays.equals(before, data);
            }
            assertTrue(found, "the 1 MiB body is recovered byte for byte under " + policy);
        }
    }

    private static byte[] firstJobKey() {
        for (String k : SERVER.client().keys("bull:blobs:*")) {
            if ("hash".equals(SERVER.client().type(k)) && SERVER.client().hexists(k, "data")
                    && SERVER.client().hstrlen(k, "data") > 1000) {
                return k.getBytes(StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no large job in the fixture");
    }

    @Test
    void noRetireStopsAtVerifiedAndLeavesTheSourcePausedButWhole() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        long before = SERVER.client().keys("bull:emails:*").size();
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false),
                Checkpoints.none(), List.of("bull"), "emails");
        assertEquals(MigrationResult.Outcome.VERIFIED, r.get(0).outcome(), r.get(0).message());
        assertEquals(before, SERVER.client().keys("bull:emails:*").size());
        assertFalse(SERVER.client().hexists("bull:emails:meta", "version") && "echomq:2.0.0-migrated".equals(
                SERVER.client().hget("bull:emails:meta", "version")));
        assertArrayEquals(new byte[0], new byte[0]);
    }

    @Test
    void abandonTakesBackTheCompletedCountItAddedAndKeepsWhatV2CompletedSince() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        Wire target = Wire.open(SERVER.client());
        String completed = Keys.queue("orders").metricsCompleted();
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false)
                .withAcceptAnomalies(true).withDropCronSchedulers(true).withDropLegacyRepeatables(true), Checkpoints.none(),
                List.of("bull"), "orders");
        assertEquals(MigrationResult.Outcome.VERIFIED, r.get(0).outcome(), r.get(0).message());
        assertEquals("2", SERVER.client().hget(completed, "count"), "the two completed v1 jobs are counted");
        SERVER.client().hincrBy(completed, "count", 3); // three v2 completions since
        Abandon.run(Wire.unfenced(SERVER.client()), target, "orders", MigrationOptions.DEFAULT_LEASE);
        assertEquals(Map.of("count", "3"), SERVER.client().hgetAll(completed));
    }

    /**
     * The fixture's two failed jobs become two dead rows, and {@code metrics:failed} counts them, as completed counts the
     * two completed ones: the v2 counts read dead 2, failed 2. v1's own {@code metrics:failed} count is not what is
     * carried (raised here to 7, as after five more failures of jobs removed since): it counts failures v1 no longer lists.
     */
    @Test
    void failedV1JobsAreCountedIntoMetricsFailedAsTheDeadRowsTheyBecome() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        assertEquals("2", SERVER.client().hget("bull:orders:metrics:failed", "count"), "BullMQ's worker counted its two failures");
        SERVER.client().hset("bull:orders:metrics:failed", "count", "7");
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withAcceptAnomalies(true)
                .withDropCronSchedulers(true).withDropLegacyRepeatables(true), Checkpoints.none(), List.of("bull"), "orders");
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).message());
        Keys orders = Keys.queue("orders");
        assertEquals(Map.of("count", "2", "migrated_failed", "2"), SERVER.client().hgetAll(orders.metricsFailed()));
        assertEquals("2", SERVER.client().hget(orders.metricsCompleted(), "count"));
        io.emq.migrate.runtime.Counts counts = io.emq.migrate.runtime.Jobs.on(Wire.open(SERVER.client()), "orders").counts();
        assertEquals(List.of(2L, 2L, 2L), List.of(counts.dead(), counts.failed(), counts.completed()), counts.toString());
        assertEquals(Map.of("completed", 2L, "failed", 2L), LiveV1.stepCounts(SERVER.client(), "orders", 80));
        assertFalse(SERVER.client().exists("bull:orders:metrics:failed"), "v1's metrics are retired with the source");
    }

    @Test
    void abandonTakesBackTheFailedCountItAddedAndKeepsWhatV2FailedSince() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        String failed = Keys.queue("orders").metricsFailed();
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false)
                .withAcceptAnomalies(true).withDropCronSchedulers(true).withDropLegacyRepeatables(true), Checkpoints.none(),
                List.of("bull"), "orders");
        assertEquals(MigrationResult.Outcome.VERIFIED, r.get(0).outcome(), r.get(0).message());
        assertEquals("2", SERVER.client().hget(failed, "count"), "the two failed v1 jobs are counted");
        SERVER.client().hincrBy(failed, "count", 3); // three v2 deaths since
        Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), "orders", MigrationOptions.DEFAULT_LEASE);
        assertEquals(Map.of("count", "3"), SERVER.client().hgetAll(failed));
    }

    @Test
    void aCompletedCountThatDoesNotChangeIsFoldedOnceARun() throws Exception {
        String completed = Keys.queue("orders").metricsCompleted();
        List<String> commands = new CopyOnWriteArrayList<>();
        migrateOrdersMonitored(commands);
        // each fold the server runs reads what was folded before (a NOSCRIPT answer to EVALSHA runs nothing)
        List<String> folds = commands.stream().filter(c -> c.contains(" lua] \"HGET\" \"" + completed + "\" \"migrated_completed\"")).toList();
        assertEquals(1, folds.size(), "V80 folds the two completed jobs; V100's pass lists the same two and sends nothing: " + folds);
        assertEquals("2", SERVER.client().hget(completed, "count"));
    }

    @Test
    void aFirstRunReadsNothingOfItsNewJournalBeforeItsFirstWrite() throws Exception {
        List<String> commands = new CopyOnWriteArrayList<>();
        migrateOrdersMonitored(commands);
        String journal = "\"" + Keys.migrationJournal("orders") + "\"";
        List<String> sent = commands.stream().filter(c -> !c.contains(" lua] ") && c.contains(journal)).toList();
        int acquired = indexOf(sent, "\"acquire\"", 0);
        int written = indexOf(sent, "\"" + io.emq.migrate.wire.Script.MIGRATE_JOURNAL_SET.sha() + "\"", acquired);
        assertTrue(acquired >= 0 && written > acquired, String.join("\n", sent));
        assertEquals(List.of(), sent.subList(acquired + 1, written).stream().filter(c -> c.contains("\"HSCAN\"") || c.contains("\"HMGET\""))
                .toList(), "the first lease of a journal tells it new: no history, no header to read");
    }

    /** Migrates the fixture's {@code orders} queue (verified, not retired) while MONITOR tells {@code commands} every command the server runs. */
    private static void migrateOrdersMonitored(List<String> commands) throws InterruptedException {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        List<MigrationResult> r;
        try (Monitor monitor = new Monitor(SERVER.node(SERVER.nodes().get(0)), commands::add);
             Jedis marker = SERVER.node(SERVER.nodes().get(0))) {
            Thread.sleep(200);
            r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false).withAcceptAnomalies(true)
                    .withDropCronSchedulers(true).withDropLegacyRepeatables(true), Checkpoints.none(), List.of("bull"), "orders");
            Monitor.awaitShown(marker, commands, "migrated");
        }
        assertEquals(MigrationResult.Outcome.VERIFIED, r.get(0).outcome(), r.get(0).message());
    }

    private static int indexOf(List<String> commands, String part, int from) {
        for (int i = Math.max(from, 0); i < commands.size(); i++) {
            if (commands.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void anEverySchedulersNextRunFollowsTheLastIterationV1Created() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        List<String> iterations = List.copyOf(SERVER.client().keys("bull:orders:repeat:every-minute:*"));
        assertEquals(1, iterations.size(), "the fixture's one iteration job: " + iterations);
        long iterationMs = Long.parseLong(iterations.get(0).substring(iterations.get(0).lastIndexOf(':') + 1));
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false)
                .withAcceptAnomalies(true).withDropCronSchedulers(true).withDropLegacyRepeatables(true), Checkpoints.none(),
                List.of("bull"), "orders");
        assertEquals(MigrationResult.Outcome.VERIFIED, r.get(0).outcome(), r.get(0).message());
        assertEquals((double) iterationMs + 60000, SERVER.client().zscore(Keys.queue("orders").base() + "repeat", "every-minute"),
                "the iteration job migrated; the registration runs next a minute after it");
    }

    @Test
    void abandonAfterACrashRightAfterASchedulerWasWrittenLeavesNoRegistration() throws InterruptedException {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        MigrationOptions options = MigrationOptions.defaults().withLease(Duration.ofMillis(300)).withAcceptAnomalies(true)
                .withDropCronSchedulers(true).withDropLegacyRepeatables(true);
        assertThrows(Checkpoints.InjectedCrash.class, () -> MigrationHarness.migrate(SERVER, SERVER, options,
                Checkpoints.throwingAt("70:scheduler written"), List.of("bull"), "orders"));
        String registrations = Keys.queue("orders").base() + "repeat";
        assertEquals(1, SERVER.client().zcard(registrations), "the crash came right after a registration was written");
        Thread.sleep(400); // the crashed run's lease lapses
        Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), "orders", MigrationOptions.DEFAULT_LEASE);
        assertEquals(0, SERVER.client().zcard(registrations));
        assertEquals(java.util.Set.of(), SERVER.client().keys(Keys.queue("orders").base() + "repeat:*"));
    }

    @Test
    void anAbandonedMigrationRestoresV1AndALaterOneNeverReusesItsIds() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        Wire target = Wire.open(SERVER.client());
        List<MigrationResult> first = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false),
                Checkpoints.none(), List.of("bull"), "emails");
        assertEquals(MigrationResult.Outcome.VERIFIED, first.get(0).outcome());
        assertEquals(5, new Journal(target, "emails").ids().highWaterMark());
        Abandon.run(Wire.unfenced(SERVER.client()), target, "emails", MigrationOptions.DEFAULT_LEASE);
        assertEquals(0, SERVER.client().zcard(Keys.queue("emails").pending()));
        assertEquals("1", SERVER.client().hget("bull:emails:meta", "paused"), "v1 was paused before, and stays so");
        List<MigrationResult> again = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(),
                Checkpoints.none(), List.of("bull"), "emails");
        assertEquals(MigrationResult.Outcome.RETIRED, again.get(0).outcome(), again.get(0).message());
        List<String> ids = SERVER.client().zrange(Keys.queue("emails").pending(), 0, -1);
        assertTrue(ids.stream().allMatch(id -> BrandedId.of(id).value() > 5), "ids above the old high-water mark: " + ids);
        assertEquals(10, new Journal(target, "emails").ids().highWaterMark());
    }

    @Test
    void twoQueuesWhoseNamesAskForTheSameIdBaseStillMintDistinctIds() {
        assertEquals(io.emq.migrate.v1.plan.Rebrand.idBase("q1623"), io.emq.migrate.v1.plan.Rebrand.idBase("q8000"));
        V1QueueGenerator.addWaiting(SERVER.client(), "q1623", 1, 3, 50);
        V1QueueGenerator.addWaiting(SERVER.client(), "q8000", 1, 3, 50);
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.none(),
                List.of("bull"));
        r.forEach(x -> assertTrue(x.ok(), x.toString()));
        java.util.Set<String> ids = new java.util.HashSet<>(SERVER.client().zrange(Keys.queue("q1623").pending(), 0, -1));
        List<String> other = SERVER.client().zrange(Keys.queue("q8000").pending(), 0, -1);
        assertEquals(3, ids.size());
        assertEquals(3, other.size());
        other.forEach(id -> assertFalse(ids.contains(id), id + " is minted in both queues"));
        Wire target = Wire.open(SERVER.client());
        long a = new Journal(target, "q1623").header().get(JournalHeader.ID_BASE).orElseThrow();
        long b = new Journal(target, "q8000").header().get(JournalHeader.ID_BASE).orElseThrow();
        assertEquals(1, Math.abs(a - b), "the second queue took the next free base");
    }

    @Test
    void aReRunOfARetiredQueueReportsNoPauseWindowOfItsOwn() {
        V1QueueGenerator.addWaiting(SERVER.client(), "once", 1, 3, 50);
        MigrationResult first = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, first.outcome(), first.toString());
        assertTrue(first.pauseWindowMs().isPresent(), "the run that retired v1 paused it: " + first);
        MigrationResult again = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, again.outcome(), again.toString());
        assertEquals(java.util.Optional.empty(), again.pauseWindowMs(), "a re-run paused nothing: " + again);
    }
}
