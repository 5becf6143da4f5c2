package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * {@code migrate_write_jobs} script, whose guards then decide: same rows, same refusals.
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
    void aRowWrittenByTheRuntimeBetweenTheWatchAndTheExecSendsTheBatchToTheScriptsGuards() {
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
        assertEquals(BATCHES * NewRows.SHARES - 1 + 1 + BATCHES, CommandStats.calls(TARGET.client(), "exec") - execs,
                "the other shares took their transactions (besides V20's and V30's journal transactions, one a batch)");
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
        // Redis 6.2 also logs the CLIENT subcommand the client sends as each connection opens (CLIENT is @dangerous there, not in 7.0)
        assertEquals(Set.of("watch " + (NewRows.SHARES + 2), "multi " + (NewRows.SHARES + 2)),
                refusals.stream().filter(e -> !e.getObject().equals("client"))
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
