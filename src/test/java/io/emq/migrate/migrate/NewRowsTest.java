package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.AccessControlLogEntry;

/**
 * V30 writes a batch of new rows in one transaction ({@link NewRows}) and leaves every other batch, and
 * every batch whose transaction a takeover, a write to a row or a refusing ACL stops, to the
 * {@code migrate_write_jobs} script, whose guards then decide: same rows, same refusals. In the run that minted
 * their ids, rows are fresh ({@link FreshIds}): their ids follow from their ranks and nothing guards them against a
 * row or a listing that cannot be there; the guards are for a run that resumes.
 */
class NewRowsTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    static final String QUEUE = "fresh";
    /** Three batches of {@link JobWriter#BATCH} at most, each of at least {@link NewRows#LEAST} rows. */
    static final int JOBS = 600;
    static final int BATCHES = 3;
    static final String WATCHED = "new rows watched";

    @BeforeEach
    void generate() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
    }

    /** Migrates the queue into {@code target}, counting V30's transactions in {@code watched}; {@code observer} sees every checkpoint. */
    private static MigrationResult migrate(RealServerExtension target, AtomicInteger watched, Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SOURCE, target, MigrationOptions.defaults(), Checkpoints.observed((version, where) -> {
            if (version == 30 && where.equals(WATCHED)) {
                watched.incrementAndGet();
            }
            observer.at(version, where);
        }), List.of("bull")).get(0);
    }

    /** A run that stops once V20 minted the ids, before V30 writes: the run after it resumes at V30. */
    private static void stopAfterMintingIds(RealServerExtension target) {
        stopAt(target, "30:rows built#1");
    }

    /** A run that stops at this checkpoint ({@link Checkpoints#throwingAt}); its lease then lapses. */
    private static void stopAt(RealServerExtension target, String checkpoint) {
        assertThrows(Checkpoints.InjectedCrash.class, () -> MigrationHarness.migrate(SOURCE, target, MigrationOptions.defaults(),
                Checkpoints.throwingAt(checkpoint), List.of("bull")));
        target.client().hdel(Keys.migrationJournal(QUEUE), "lock_owner");
    }

    /** The target's calls of each command from V30's first batch built to its last batch's expectations recorded. */
    private static Map<String, Long> v30Calls(RealServerExtension target, List<String> commands, Runnable run, Checkpoints.Observer[] hook) {
        Map<String, Long> at = new TreeMap<>();
        Map<String, Long> calls = new TreeMap<>();
        hook[0] = (version, where) -> {
            if (version == 30 && where.equals("rows built") && at.isEmpty()) {
                commands.forEach(c -> at.put(c, CommandStats.calls(target.client(), c)));
            } else if (version == 30 && where.equals("expectations recorded")) {
                commands.forEach(c -> calls.put(c, CommandStats.calls(target.client(), c) - at.get(c)));
            }
        };
        run.run();
        return calls;
    }

    private static BrandedId brandedId(UnifiedJedis target, long v1Id) {
        return new Journal(Wire.open(target), QUEUE).ids().lookupV1(List.of(Long.toString(v1Id).getBytes(StandardCharsets.UTF_8)))
                .get(0).orElseThrow();
    }

    /** Each v1 job's v2 row, by v1 id (the ids minted differ from run to run; the rows must not). */
    private static Map<Long, Map<String, String>> rowsByV1Id(UnifiedJedis target) {
        Map<Long, Map<String, String>> rows = new TreeMap<>();
        for (long n = 1; n <= JOBS; n++) {
            rows.put(n, target.hgetAll(Keys.queue(QUEUE).job(brandedId(target, n))));
        }
        return rows;
    }

    private static Set<String> rowKeys(UnifiedJedis target) {
        return target.keys(Keys.queue(QUEUE).job(BrandedId.of("JOB00000000000")).replace("JOB00000000000", "*"));
    }

    private static void assertMigrated(UnifiedJedis target, MigrationResult r) {
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(target, QUEUE, JOBS), r.toString());
    }

    private static void assertV1Intact(MigrationResult r) {
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "v1 intact: " + r);
    }

    @Test
    void everyBatchOfNewRowsIsWrittenInATransaction() {
        AtomicInteger watched = new AtomicInteger();
        MigrationResult r = migrate(TARGET, watched, (version, where) -> { });
        assertMigrated(TARGET.client(), r);
        assertEquals(BATCHES, watched.get(), "transactions of V30");
        Map<String, String> row = rowsByV1Id(TARGET.client()).get(1L);
        assertEquals("pending", row.get("state"), row.toString());
        assertEquals("0", row.get("attempts"), row.toString());
    }

    @Test
    void aTakeoverBetweenTheWatchAndTheExecWritesNothingAndTheRunRefusesAsLeaseLost() {
        AtomicInteger watched = new AtomicInteger();
        MigrationResult r = migrate(TARGET, watched, (version, where) -> {
            if (version == 30 && where.equals(WATCHED)) {
                TARGET.client().hset(Keys.queue(QUEUE).meta(), "migration", "another migrator's token");
            }
        });
        assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), r.refusalKind(), r.toString());
        assertEquals(1, watched.get(), r.toString());
        assertEquals(Set.of(), rowKeys(TARGET.client()), "no row of the first batch written");
        assertEquals(0, TARGET.client().zcard(Keys.queue(QUEUE).pending()), r.toString());
        assertV1Intact(r);
    }

    @Test
    void theRunThatMintedTheIdsWritesItsRowsWithoutLookingThemUpOrGuardingThemAndAResumedRunGuardsThem() {
        List<String> commands = List.of("exists", "hmget", "zrem");
        Checkpoints.Observer[] hook = new Checkpoints.Observer[1];
        AtomicInteger watched = new AtomicInteger();
        MigrationResult[] r = new MigrationResult[1];
        Map<String, Long> fresh = v30Calls(TARGET, commands, () -> r[0] = migrate(TARGET, watched, (v, w) -> hook[0].at(v, w)), hook);
        assertMigrated(TARGET.client(), r[0]);
        assertEquals(BATCHES, watched.get(), "one transaction a batch");
        Map<Long, Map<String, String>> freshRows = rowsByV1Id(TARGET.client());

        SOURCE.client().flushAll();
        TARGET.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
        stopAfterMintingIds(TARGET);
        watched.set(0);
        Map<String, Long> resumed = v30Calls(TARGET, commands, () -> r[0] = migrate(TARGET, watched, (v, w) -> hook[0].at(v, w)), hook);
        assertMigrated(TARGET.client(), r[0]);
        assertEquals(BATCHES, watched.get(), "one watched round a batch");
        assertEquals(Map.of("exists", 0L, "hmget", (long) BATCHES, "zrem", 0L), fresh, "fresh rows: no id looked up (the"
                + " reads are the expectations' transactions', one a batch), no row or listing checked (a resumed run's lookups"
                + " run ahead of its writes, so they are not counted here)");
        assertEquals((long) BATCHES * NewRows.SHARES, resumed.get("exists"), "resumed: each share's rows checked");
        assertEquals(3L * BATCHES * NewRows.SHARES, resumed.get("zrem"), "resumed: each share's ids taken out of the three sets");
        assertEquals(freshRows, rowsByV1Id(TARGET.client()), "the same rows");
    }

    @Test
    void theLeaseRenewedWhileTheIdsAreMintedInTheClientLeavesThemFresh() {
        String journal = Keys.migrationJournal(QUEUE);
        AtomicInteger idsWatched = new AtomicInteger();
        Checkpoints.Observer[] hook = new Checkpoints.Observer[1];
        MigrationResult[] r = new MigrationResult[1];
        Map<String, Long> calls = v30Calls(TARGET, List.of("exists", "zrem"), () -> r[0] = migrate(TARGET, new AtomicInteger(), (v, w) -> {
            hook[0].at(v, w);
            if (v == 20 && w.equals("ids watched") && idsWatched.incrementAndGet() == 1) { // as the renewal writes it: the same token
                TARGET.client().hset(journal, "lock_token", TARGET.client().hget(journal, "lock_token"));
            }
        }), hook);
        assertMigrated(TARGET.client(), r[0]);
        assertEquals(2, idsWatched.get(), "the client's transaction tried again after the renewal's write");
        assertEquals(Map.of("exists", 0L, "zrem", 0L), calls, "V30's rows fresh: no row or listing checked");
    }

    @Test
    void aStepTriedAgainAfterItsConnectionDroppedGuardsTheRowsItWrites() {
        Checkpoints.Observer[] hook = new Checkpoints.Observer[1];
        boolean[] dropped = {false};
        MigrationResult[] r = new MigrationResult[1];
        Map<String, Long> calls = v30Calls(TARGET, List.of("exists"), () -> r[0] = migrate(TARGET, new AtomicInteger(), (v, w) -> {
            hook[0].at(v, w);
            if (v == 30 && w.equals("rows written") && !dropped[0]) {
                dropped[0] = true;
                throw new redis.clients.jedis.exceptions.JedisConnectionException("dropped between the rows and their expectations");
            }
        }), hook);
        assertTrue(dropped[0]);
        assertMigrated(TARGET.client(), r[0]);
        assertEquals(Map.of("exists", (BATCHES - 1L) * NewRows.SHARES), calls,
                "the try after the drop checked each share's rows (the first batch's, written unjournaled, went to the script)");
    }

    @Test
    void idsTheScriptMintedAreLookedUpAndTheirRowsGuarded() {
        int jobs = IdMinter.BATCH + 30; // V20's second batch is below ClientMint.LEAST: the script mints it
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, JOBS + 1, jobs, 100);
        Checkpoints.Observer[] hook = new Checkpoints.Observer[1];
        AtomicInteger watched = new AtomicInteger();
        MigrationResult[] r = new MigrationResult[1];
        Map<String, Long> calls = v30Calls(TARGET, List.of("exists", "hmget"),
                () -> r[0] = migrate(TARGET, watched, (v, w) -> hook[0].at(v, w)), hook);
        assertEquals(MigrationResult.Outcome.RETIRED, r[0].outcome(), r[0].toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, jobs), r[0].toString());
        assertEquals(4, watched.get(), "V30's batches of at least NewRows.LEAST rows: 4 of 256, then 6 rows for the script");
        assertEquals(Map.of("exists", NewRows.SHARES + 1L, "hmget", 4L + 2L), calls, "the batch reaching past rank 1000 (the"
                + " client's last) looked up and its shares checked, and the last 6 rows (the script's one EXISTS); besides, the"
                + " expectations' transactions of the 4 batches of 256 read the journal");
    }

    @Test
    void jobsRankedAfterAJobThatGetsNoIdAreLookedUp() {
        for (int n = JOBS + 1; n <= JOBS + 10; n++) { // completed jobs get no id, and rank before the orphans
            SOURCE.client().hset("bull:" + QUEUE + ":" + n, Map.of("name", "send", "data", "{}", "finishedOn", "1700000000000",
                    "returnvalue", "1"));
            SOURCE.client().zadd("bull:" + QUEUE + ":completed", n, Integer.toString(n));
        }
        for (int n = JOBS + 11; n <= JOBS + 310; n++) { // orphan hashes, listed nowhere: rows once anomalies are accepted
            SOURCE.client().hset("bull:" + QUEUE + ":" + n, Map.of("name", "send", "data", "{\"orphan\":" + n + "}",
                    "timestamp", "1700000000000"));
        }
        Checkpoints.Observer[] hook = new Checkpoints.Observer[1];
        MigrationResult[] r = new MigrationResult[1];
        Map<String, Long> calls = v30Calls(TARGET, List.of("exists"), () -> r[0] = MigrationHarness.migrate(SOURCE, TARGET,
                MigrationOptions.defaults().withAcceptAnomalies(true), Checkpoints.observed((v, w) -> hook[0].at(v, w)),
                List.of("bull")).get(0), hook);
        assertMigrated(TARGET.client(), r[0]);
        assertEquals(Map.of("exists", 0L), calls, "V30's rows (ranks 1 to 600, each its place among the ids) fresh");
        for (int n = JOBS + 11; n <= JOBS + 310; n++) { // ranks 611 to 910, places 601 to 900 among the ids (V50: 256, then 44)
            String id = brandedId(TARGET.client(), n).toString();
            assertTrue(TARGET.client().hget(Keys.queue(QUEUE).job(BrandedId.of(id)), "payload").contains("{\"orphan\":" + n + "}"),
                    "orphan " + n + " under its journaled id");
            assertTrue(TARGET.client().zscore(Keys.queue(QUEUE).dead(), id) != null, "orphan " + n + " dead in v2");
        }
    }

    @Test
    void aRunThatFindsIdsAnEarlierRunMintedLooksEveryIdUp() {
        int jobs = 2 * IdMinter.BATCH + 100;
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, JOBS + 1, jobs, 100);
        stopAt(TARGET, "20:ids minted#1");
        Checkpoints.Observer[] hook = new Checkpoints.Observer[1];
        MigrationResult[] r = new MigrationResult[1];
        Map<String, Long> calls = v30Calls(TARGET, List.of("exists"),
                () -> r[0] = migrate(TARGET, new AtomicInteger(), (v, w) -> hook[0].at(v, w)), hook);
        assertEquals(MigrationResult.Outcome.RETIRED, r[0].outcome(), r[0].toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(TARGET.client(), QUEUE, jobs), r[0].toString());
        assertEquals(Map.of("exists", jobs / JobWriter.BATCH * (long) NewRows.SHARES + 1), calls, "V20 kept the first 1000 ids"
                + " (the script) and the client minted the rest from rank 1001: no id follows from its rank, every row guarded");
    }

    @Test
    void aRowWrittenByTheRuntimeBetweenTheWatchAndTheExecSendsTheBatchToTheScriptsGuards() {
        stopAfterMintingIds(TARGET); // a fresh run's rows cannot meet one: their ids are not there for a runtime to write
        AtomicInteger watched = new AtomicInteger();
        String[] claimed = new String[1];
        MigrationResult r = migrate(TARGET, watched, (version, where) -> {
            if (version == 30 && where.equals(WATCHED) && claimed[0] == null) {
                claimed[0] = brandedId(TARGET.client(), 1).toString();
                TARGET.client().hset(Keys.queue(QUEUE).job(BrandedId.of(claimed[0])), Map.of("state", "active", "attempts", "1"));
            }
        });
        assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.OUT_OF_LINE), r.refusalKind(), r.toString());
        assertTrue(r.message().contains(claimed[0] + " is active"), r.message());
        assertEquals(Map.of("state", "active", "attempts", "1"), TARGET.client().hgetAll(Keys.queue(QUEUE).job(BrandedId.of(claimed[0]))),
                "the claimed row is as the runtime left it");
        assertEquals(null, TARGET.client().zscore(Keys.queue(QUEUE).pending(), claimed[0]), r.toString());
        assertV1Intact(r);
    }

    @Test
    void aShareWithARowPresentTakesTheScriptAndTheOthersTheirTransactions() {
        stopAfterMintingIds(TARGET);
        long execs = CommandStats.calls(TARGET.client(), "exec");
        long discards = CommandStats.calls(TARGET.client(), "discard");
        AtomicInteger watched = new AtomicInteger();
        boolean[] written = {false};
        MigrationResult r = migrate(TARGET, watched, (version, where) -> {
            if (version == 30 && where.equals("rows built") && !written[0]) {
                written[0] = true; // as an interrupted run left it: present, with the attempts the migration writes
                TARGET.client().hset(Keys.queue(QUEUE).job(brandedId(TARGET.client(), 1)), Map.of("state", "pending", "attempts", "0"));
            }
        });
        assertMigrated(TARGET.client(), r);
        assertEquals(BATCHES, watched.get(), "transactions of V30");
        assertEquals(1, CommandStats.calls(TARGET.client(), "discard") - discards, "the share with a row present took the script");
        assertEquals(BATCHES * NewRows.SHARES - 1 + BATCHES, CommandStats.calls(TARGET.client(), "exec") - execs,
                "the other shares took their transactions (besides V30's journal transactions, one a batch)");
        assertTrue(rowsByV1Id(TARGET.client()).get(1L).containsKey("payload"), "the row present was replaced whole");
    }

    @Test
    void aTargetUserWithoutTransactionsMigratesTheSameRowsThroughTheScript() {
        migrate(TARGET, new AtomicInteger(), (version, where) -> { }); // through transactions, as the default user
        Map<Long, Map<String, String>> transacted = rowsByV1Id(TARGET.client());
        SOURCE.client().flushAll();
        TARGET.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 100);
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0))) {
            admin.aclDelUser("migrator");
            admin.aclSetUser("migrator", LeastPrivilegeTest.TARGET_ACL.split(" "));
            admin.aclLogReset();
        }
        AtomicInteger watched = new AtomicInteger();
        MigrationResult r;
        try (UnifiedJedis target = Endpoint.parse("redis://migrator:s3cret@" + TARGET.uri().substring(8)).open()) {
            r = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), MigrationOptions.defaults(),
                    Checkpoints.observed((version, where) -> watched.addAndGet(version == 30 && where.equals(WATCHED) ? 1 : 0)))
                    .migrate(List.of("bull"), List.of(QUEUE)).get(0);
        }
        assertMigrated(TARGET.client(), r);
        assertEquals(0, watched.get(), r.toString());
        List<AccessControlLogEntry> refusals;
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0))) {
            refusals = admin.aclLog();
            admin.aclDelUser("migrator");
        }
        // Redis 6.2 also logs the CLIENT subcommand the client sends as each connection opens (CLIENT is @dangerous there, not in
        // 7.0); and the INFO retirement asks for the target's replicas to wait for (ReplicaAcks: refused, it waits for none)
        assertEquals(Set.of("watch " + (NewRows.SHARES + 2), "multi " + (NewRows.SHARES + 2)),
                refusals.stream().filter(e -> !e.getObject().equals("client") && !e.getObject().equals("info"))
                        .map(e -> e.getObject() + " " + e.getCount()).collect(Collectors.toSet()),
                "the first batch's WATCH and MULTI refused on each connection (and on V20's and V30's journal connections), the script for the rest");
        assertEquals(transacted, rowsByV1Id(TARGET.client()), "the same rows");
    }

    @Test
    void aClusterTargetTakesTheTransactionOnTheQueuesMaster() {
        AtomicInteger watched = new AtomicInteger();
        MigrationResult r = migrate(CLUSTER, watched, (version, where) -> { });
        assertMigrated(CLUSTER.client(), r);
        assertEquals(BATCHES, watched.get(), "transactions of V30");
    }
}
