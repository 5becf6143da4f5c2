package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * V20 mints a clean batch's ids in the client ({@link ClientMint}) and V30 records a batch of new
 * expectations ({@link Expectations#record}) in transactions fenced by the lease token
 * ({@link JournalTransaction}); a takeover, a write to the journal, a refusing ACL or a crash leaves the
 * batch to the journal scripts: the same journal, field for field, and the same refusals.
 */
class JournalTransactionTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    static final String QUEUE = "journaled";
    /** Two batches of ids ({@link IdMinter#BATCH}) and eight of rows ({@link JobWriter#BATCH}). */
    static final int JOBS = 1800;
    /** Added while V30 writes: the catch-up mints them in the client from rank {@link #JOBS} + 1, inside a block begun before. */
    static final int LATE = 100;
    static final String IDS_WATCHED = "ids watched";
    static final String EXPECTATIONS_WATCHED = "expectations watched";
    static final String JOURNAL = Keys.migrationJournal(QUEUE);

    @BeforeEach
    void generate() {
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 20);
    }

    /** Migrates the queue into {@code target}, counting each checkpoint passed; {@code observer} sees every checkpoint. */
    private static MigrationResult migrate(RealServerExtension target, Map<String, AtomicInteger> passed, Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SOURCE, target, MigrationOptions.defaults(), Checkpoints.observed((version, where) -> {
            passed.computeIfAbsent(version + ":" + where, k -> new AtomicInteger()).incrementAndGet();
            observer.at(version, where);
        }), List.of("bull")).get(0);
    }

    /** Adds the late jobs at V30's first checkpoint (v1 is live): the catch-up absorbs them. */
    private static Checkpoints.Observer lateJobs() {
        boolean[] added = {false};
        return (version, where) -> {
            if (version == 30 && !added[0]) {
                added[0] = true;
                V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, JOBS + 1, JOBS + LATE, 20);
            }
        };
    }

    private static int passed(Map<String, AtomicInteger> passed, int version, String where) {
        return Optional.ofNullable(passed.get(version + ":" + where)).map(AtomicInteger::get).orElse(0);
    }

    /** The journal's identity map, expectations and their counter: everything but the lease and the step history. */
    private static Map<String, String> journal(UnifiedJedis target) {
        Map<String, String> out = new TreeMap<>();
        target.hgetAll(JOURNAL).forEach((field, value) -> {
            if (field.startsWith("v1:") || field.startsWith("v2:") || field.startsWith("v2r:") || field.startsWith("r:")
                    || List.of("hwm", "kept", "id_base", "expected_rows").contains(field)) {
                out.put(field, value);
            }
        });
        return out;
    }

    /** The number of expectation fields, by HSCAN. */
    private static long expectationsScanned(UnifiedJedis target) {
        Set<String> fields = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<Map.Entry<String, String>> page = target.hscan(JOURNAL, cursor, new ScanParams().match("r:*").count(1000));
            page.getResult().forEach(e -> fields.add(e.getKey()));
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return fields.size();
    }

    private static void assertMigrated(UnifiedJedis target, MigrationResult r, int jobs) {
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(target, QUEUE, jobs), r.toString());
        assertEquals(Long.toString(expectationsScanned(target)), target.hget(JOURNAL, "expected_rows"), "expected_rows exact");
    }

    /** The journal as the scripts alone write it: migrated by a target user without {@code @transaction}. */
    private static Map<String, String> journalByScripts(Checkpoints.Observer observer) {
        SOURCE.client().flushAll();
        TARGET.client().flushAll();
        V1QueueGenerator.addWaiting(SOURCE.client(), QUEUE, 1, JOBS, 20);
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0))) {
            admin.aclDelUser("migrator");
            admin.aclSetUser("migrator", LeastPrivilegeTest.TARGET_ACL.split(" "));
        }
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        MigrationResult r;
        try (UnifiedJedis target = Endpoint.parse("redis://migrator:s3cret@" + TARGET.uri().substring(8)).open()) {
            r = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), MigrationOptions.defaults(),
                    Checkpoints.observed((version, where) -> {
                        passed.computeIfAbsent(version + ":" + where, k -> new AtomicInteger()).incrementAndGet();
                        observer.at(version, where);
                    })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        } finally {
            try (Jedis admin = TARGET.node(TARGET.nodes().get(0))) {
                admin.aclDelUser("migrator");
            }
        }
        assertMigrated(TARGET.client(), r, JOBS + LATE);
        assertEquals(0, passed(passed, 20, IDS_WATCHED) + passed(passed, 30, EXPECTATIONS_WATCHED) + passed(passed, 100, IDS_WATCHED),
                "no transaction without @transaction");
        return journal(TARGET.client());
    }

    @Test
    void theTransactionsWriteTheJournalTheScriptsWriteFieldForField() {
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        MigrationResult r = migrate(TARGET, passed, lateJobs());
        assertMigrated(TARGET.client(), r, JOBS + LATE);
        assertEquals(2, passed(passed, 20, IDS_WATCHED), "V20 minted both batches in the client");
        assertEquals(1, passed(passed, 100, IDS_WATCHED), "the catch-up minted the late jobs in the client");
        assertEquals(JOBS / JobWriter.BATCH, passed(passed, 30, EXPECTATIONS_WATCHED), "V30 recorded its full batches' expectations in transactions");
        Map<String, String> transacted = journal(TARGET.client());
        assertTrue(transacted.get("v2r:1").startsWith("4:1001"), transacted.get("v2r:1"));
        assertTrue(transacted.get("v2r:1").endsWith("4:1900"), "the late jobs extend the block begun by V20");
        assertEquals(journalByScripts(lateJobs()), transacted);
    }

    /** Migrates with another migrator taking the lease over at the first transaction of step {@code version}; asserts the refusal, v1 intact. */
    private static void takenOverAt(int version, String watched) {
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        MigrationResult r = migrate(TARGET, passed, (v, where) -> {
            if (where.equals(watched)) {
                TARGET.client().hset(JOURNAL, "lock_token", "another migrator's token");
            }
        });
        assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), r.refusalKind(), r.toString());
        assertEquals(1, passed(passed, version, watched), r.toString());
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "v1 intact");
    }

    @Test
    void aTakeoverBetweenTheWatchAndTheExecOfTheIdsWritesNothingAndTheRunRefusesAsLeaseLost() {
        takenOverAt(20, IDS_WATCHED);
        assertEquals(Map.of("id_base", TARGET.client().hget(JOURNAL, "id_base"), "kept", "0", "expected_rows", "0"),
                journal(TARGET.client()), "no id minted");
    }

    @Test
    void aTakeoverBetweenTheWatchAndTheExecOfTheExpectationsWritesNothingAndTheRunRefusesAsLeaseLost() {
        takenOverAt(30, EXPECTATIONS_WATCHED);
        assertEquals(0, expectationsScanned(TARGET.client()), "no expectation recorded");
        assertEquals("0", TARGET.client().hget(JOURNAL, "expected_rows"));
    }

    /** How many of the target's clients are inside a {@code MULTI} ({@code CLIENT LIST}'s {@code multi} is -1 outside one). */
    private static long clientsInMulti() {
        try (Jedis admin = TARGET.node(TARGET.nodes().get(0))) {
            return admin.clientList().lines().filter(line -> !line.contains(" multi=-1 ")).count();
        }
    }

    @Test
    void theExpectationsTransactionIsOpenWhileTheRowsAreWrittenAndATakeoverThenWritesNoExpectation() {
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        long[] inMulti = {-1};
        MigrationResult r = migrate(TARGET, passed, (version, where) -> {
            if (version == 30 && where.equals("rows written")) {
                inMulti[0] = clientsInMulti(); // the rows' transactions are done: the journal's alone is open
                TARGET.client().hset(JOURNAL, "lock_token", "another migrator's token");
            }
        });
        assertEquals(1, inMulti[0], "the expectations' WATCH and MULTI were sent beside the rows' round trips");
        assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), r.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.LEASE_LOST), r.refusalKind(), r.toString());
        assertEquals(1, passed(passed, 30, "new rows watched"), "the first batch's rows were written in transactions");
        assertEquals(JobWriter.BATCH, TARGET.client().zcard(Keys.queue(QUEUE).pending()), "the first batch's rows, written before the takeover");
        assertEquals(0, expectationsScanned(TARGET.client()), "no expectation recorded after the takeover");
        assertEquals("0", TARGET.client().hget(JOURNAL, "expected_rows"));
        assertEquals(JOBS, SOURCE.client().llen("bull:" + QUEUE + ":wait"), "v1 intact");
    }

    @Test
    void aRunCrashedAfterTheRowsExecAndBeforeTheExpectationsExecResumesToTheSameRowsAndJournal() {
        assertThrows(Checkpoints.InjectedCrash.class, () -> MigrationHarness.migrate(SOURCE, TARGET, MigrationOptions.defaults(),
                Checkpoints.throwingAt("30:" + EXPECTATIONS_WATCHED + "#2"), List.of("bull")));
        assertEquals(2L * JobWriter.BATCH, TARGET.client().zcard(Keys.queue(QUEUE).pending()), "two batches of rows written");
        assertEquals(Long.toString(JobWriter.BATCH), TARGET.client().hget(JOURNAL, "expected_rows"), "the second's expectations not");
        TARGET.client().hset(JOURNAL, "lock_until", "0"); // the crashed run's lease lapsed
        MigrationResult r = migrate(TARGET, new ConcurrentHashMap<>(), lateJobs());
        assertMigrated(TARGET.client(), r, JOBS + LATE);
        assertEquals(journalByScripts(lateJobs()), journal(TARGET.client()));
    }

    @Test
    void aWriteToTheJournalBetweenTheWatchAndTheExecSendsTheBatchToTheScriptAndTheJournalIsTheSame() {
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        Checkpoints.Observer late = lateJobs();
        MigrationResult r = migrate(TARGET, passed, (version, where) -> {
            late.at(version, where);
            if (where.equals(IDS_WATCHED) || where.equals(EXPECTATIONS_WATCHED)) { // as the lease's renewal writes it: the same token
                TARGET.client().hset(JOURNAL, "lock_token", TARGET.client().hget(JOURNAL, "lock_token"));
            }
        });
        assertMigrated(TARGET.client(), r, JOBS + LATE);
        assertEquals(2 * JournalTransaction.TRIES, passed(passed, 20, IDS_WATCHED), "each batch's transaction tried again, then the script: " + r);
        assertEquals(JOBS / JobWriter.BATCH * JournalTransaction.TRIES, passed(passed, 30, EXPECTATIONS_WATCHED), r.toString());
        Map<String, String> journal = journal(TARGET.client());
        assertEquals(journalByScripts(lateJobs()), journal);
    }

    @Test
    void aRunCrashedAfterATransactionResumesWithTheSameIds() {
        assertThrows(Checkpoints.InjectedCrash.class, () -> MigrationHarness.migrate(SOURCE, TARGET, MigrationOptions.defaults(),
                Checkpoints.throwingAt("30:expectations recorded#2"), List.of("bull")));
        assertEquals(Long.toString(JOBS), TARGET.client().hget(JOURNAL, "hwm"), "V20 ran");
        TARGET.client().hset(JOURNAL, "lock_until", "0"); // the crashed run's lease lapsed
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        Checkpoints.Observer late = lateJobs();
        MigrationResult r = migrate(TARGET, passed, late);
        assertMigrated(TARGET.client(), r, JOBS + LATE);
        Map<String, String> journal = journal(TARGET.client());
        assertEquals(journalByScripts(lateJobs()), journal);
    }

    @Test
    void aClusterTargetTakesTheTransactionsOnTheJournalsMaster() {
        Map<String, AtomicInteger> passed = new ConcurrentHashMap<>();
        MigrationResult r = migrate(CLUSTER, passed, (version, where) -> { });
        assertMigrated(CLUSTER.client(), r, JOBS);
        assertEquals(2, passed(passed, 20, IDS_WATCHED));
        assertEquals(JOBS / JobWriter.BATCH, passed(passed, 30, EXPECTATIONS_WATCHED));
    }
}
