package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Base62;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;

/**
 * Verification finds every way a migrated row can be out of line: its payload, state or attempts
 * changed, its listing gone (the flat sets and a lane's) or scored otherwise (a due time not v1's, a pending row not at
 * 0), the row deleted, its group not text; each with
 * a line naming the row; it reads a journal of minted ids by id and still finds ids kept from v1; it walks
 * the flat sets once instead of asking about each row, and still names a row its set lacks; and a
 * migration whose rows were tampered with before its proof is refused with v1 intact.
 */
class VerifierTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final MigrationOptions OPTIONS = MigrationOptions.defaults().withAcceptAnomalies(true)
            .withDropCronSchedulers(true).withLaneFrom(Optional.of("name")).withRetire(false);
    private static final Keys ORDERS = Keys.queue("orders");

    private static void loadOrders() {
        MigrationHarness.load(SERVER.client(), "node-5.65.1");
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
    }

    /** Loads the orders fixture and migrates it without retiring; the target's wire, unfenced. */
    private static Wire migrateOrders() {
        loadOrders();
        List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.none(), List.of("bull"), "orders");
        assertTrue(results.get(0).ok(), results.toString());
        return Wire.unfenced(SERVER.client());
    }

    /** The journal's expectations of the queue, by v2 state. */
    private static Map<String, List<BrandedId>> rowsByState(Wire wire, String queue) {
        Map<String, List<BrandedId>> out = new LinkedHashMap<>();
        Journal journal = new Journal(wire, queue);
        journal.expectations().forEach(Verifier.BATCH, MintedRanks.of(journal), journal.text(Expectations.COUNT), page ->
                page.forEach((id, e) -> out.computeIfAbsent(e.state(), s -> new ArrayList<>()).add(id)));
        return out;
    }

    @Test
    void everyRowOutOfLineFailsVerificationWithALineOfItsOwn() {
        Wire wire = migrateOrders();
        Verifier.Report clean = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertTrue(clean.passed(), clean.problems().toString());
        Map<String, List<BrandedId>> rows = rowsByState(wire, "orders");
        List<BrandedId> pending = rows.get(V2State.PENDING.wireName());
        List<BrandedId> scheduled = rows.get(V2State.SCHEDULED.wireName());
        List<BrandedId> dead = rows.get(V2State.DEAD.wireName());
        assertTrue(pending.size() >= 5 && scheduled.size() >= 2 && dead.size() >= 2, rows.toString());
        assertEquals(rows.values().stream().mapToLong(List::size).sum(), clean.jobsChecked());

        String payload = ORDERS.job(pending.get(0));
        SERVER.client().hset(payload, "payload", "tampered");
        String state = ORDERS.job(pending.get(1));
        SERVER.client().hset(state, "state", "dead");
        String attempts = ORDERS.job(scheduled.get(0));
        SERVER.client().hset(attempts, "attempts", "7");
        String noAttempts = ORDERS.job(scheduled.get(1));
        SERVER.client().hdel(noAttempts, "attempts");
        SERVER.client().zrem(ORDERS.schedule(), scheduled.get(1).toString());
        String unlisted = ORDERS.job(dead.get(0));
        SERVER.client().zrem(ORDERS.dead(), dead.get(0).toString());
        BrandedId inLane = pending.get(2);
        String lane = ORDERS.lanePending(BrandedId.of(SERVER.client().hget(ORDERS.job(inLane), "group")));
        SERVER.client().zrem(lane, inLane.toString());
        String gone = ORDERS.job(pending.get(3));
        SERVER.client().del(gone);
        long due = SERVER.client().zscore(ORDERS.schedule(), scheduled.get(0).toString()).longValue();
        SERVER.client().zadd(ORDERS.schedule(), 1000, scheduled.get(0).toString()); // fires at once, not when v1 would
        String scored = ORDERS.job(pending.get(4));
        String group = SERVER.client().hget(scored, "group");
        String scoredIn = group == null ? ORDERS.pending() : ORDERS.lanePending(BrandedId.of(group));
        SERVER.client().zadd(scoredIn, 5, pending.get(4).toString()); // served after every other of its set
        String deadScored = ORDERS.job(dead.get(1));
        SERVER.client().zadd(ORDERS.dead(), 7, dead.get(1).toString()); // a walked set (pending's lanes are asked)

        Verifier.Report report = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        String all = String.join("\n", report.problems());
        assertFalse(report.passed());
        assertTrue(all.contains(payload + ": payload does not carry the v1 data"), all);
        assertTrue(all.contains(state + ": state dead, expected pending"), all);
        assertTrue(all.contains(attempts + ": attempts 7, expected 0"), all);
        assertTrue(all.contains(noAttempts + ": attempts missing, expected 0"), all);
        assertTrue(all.contains(unlisted + ": not a member of " + ORDERS.dead()), all);
        assertTrue(all.contains("dead holds " + (dead.size() - 1) + " jobs, the journal expects at least " + dead.size()), all);
        assertTrue(all.contains(ORDERS.job(inLane) + ": not a member of " + lane), all);
        assertTrue(all.contains("pending holds " + (pending.size() - 1) + " jobs, the journal expects at least " + pending.size()), all);
        assertTrue(all.contains(gone + ": row missing (expected pending)"), all);
        assertTrue(all.contains(attempts + ": scheduled at 1000 in " + ORDERS.schedule() + ", its due time is " + due), all);
        assertTrue(all.contains(scored + ": scored 5 in " + scoredIn + ", where v2 scores every member 0"), all);
        assertTrue(all.contains(deadScored + ": scored 7 in " + ORDERS.dead() + ", where v2 scores every member 0"), all);
        assertTrue(all.contains(noAttempts + ": not a member of " + ORDERS.schedule()), all);
        assertTrue(all.contains("scheduled holds " + (scheduled.size() - 1) + " jobs, the journal expects at least " + scheduled.size()),
                all);
        assertEquals(14, report.problemCount(), all);
        assertEquals(clean.jobsChecked(), report.jobsChecked());
    }

    @Test
    void aJournalWrittenBeforeThePayloadDigestWasRecordedStillHasEveryPayloadChecked() {
        Wire wire = migrateOrders();
        String journal = Keys.migrationJournal("orders");
        SERVER.client().hgetAll(journal).forEach((field, value) -> {
            if (field.startsWith("r:")) {
                SERVER.client().hset(journal, field, value.substring(0, value.lastIndexOf(' ')));
            }
        });
        Verifier.Report old = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertTrue(old.passed(), old.problems().toString());
        BrandedId tampered = rowsByState(wire, "orders").get(V2State.PENDING.wireName()).get(0);
        assertEquals("", new Journal(wire, "orders").expectations().of(List.of(tampered)).get(tampered).payload());
        SERVER.client().hset(ORDERS.job(tampered), "payload", "tampered");

        Verifier.Report report = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertEquals(List.of(ORDERS.job(tampered) + ": payload does not carry the v1 data (sha256 "
                + new Journal(wire, "orders").expectations().of(List.of(tampered)).get(tampered).sha256() + ")"), report.problems());
    }

    @Test
    void aJournalWhoseIdsWereAllMintedIsReadByIdWithoutWalkingIt() {
        Wire wire = migrateOrders();
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        Verifier.Report report = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertTrue(report.passed(), report.problems().toString());
        assertEquals(Long.parseLong(SERVER.client().hget(Keys.migrationJournal("orders"), Expectations.COUNT)), report.jobsChecked());
        assertEquals(0L, CommandStats.calls(SERVER.client(), "hscan"), "no HSCAN of the journal");
        assertEquals(0L, CommandStats.calls(SERVER.client(), "evalsha") + CommandStats.calls(SERVER.client(), "eval"),
                "no script: the rows are read with plain reads");
    }

    @Test
    void rowsOfIdsKeptFromV1AreFoundBesideTheMintedOnesAndChecked() {
        V1QueueGenerator.addWaiting(SERVER.client(), "q", 1, 2, 50);
        String kept = "JOB0NwdXCmjyDI";
        SERVER.client().hset("bull:q:" + kept, Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().lpush("bull:q:wait", kept);
        MigrationOptions keep = new MigrationOptions(PayloadPolicy.ENVELOPE, Map.of(), true, Duration.ZERO, Optional.empty(), false,
                false, false, false, false, MigrationOptions.DEFAULT_LEASE, Optional.empty(), Optional.empty(), false);
        List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER, keep, Checkpoints.none(), List.of("bull"), "q");
        assertTrue(results.get(0).ok(), results.toString());
        Wire wire = Wire.unfenced(SERVER.client());
        assertEquals(3, new Verifier(wire, "q").verify(Optional.empty(), keep).jobsChecked());
        String row = Keys.queue("q").job(BrandedId.of(kept));
        SERVER.client().hset(row, "attempts", "9");

        Verifier.Report report = new Verifier(wire, "q").verify(Optional.empty(), keep);
        assertEquals(List.of(row + ": attempts 9, expected 0"), report.problems());
        assertEquals(3, report.jobsChecked());
        SERVER.client().hdel(Keys.migrationJournal("q"), Expectations.COUNT);
        Verifier.Report uncounted = new Verifier(wire, "q").verify(Optional.empty(), keep);
        assertEquals(List.of(row + ": attempts 9, expected 0"), uncounted.problems(), "a journal without the counter");
        assertEquals(3, uncounted.jobsChecked());
    }

    /**
     * The flat sets of minted rows are walked (members only), not asked about member by member; a row
     * the walk of its set did not find is asked about, and named when its set does not hold it (here it
     * moved to another set the verification walks too).
     */
    @Test
    void theFlatSetsAreWalkedOnceAndARowMissingFromItsOwnIsNamed() {
        V1QueueGenerator.addWaiting(SERVER.client(), "flat", 1, 40, 50);
        MigrationOptions options = MigrationOptions.defaults().withRetire(false);
        List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER, options, Checkpoints.none(), List.of("bull"), "flat");
        assertTrue(results.get(0).ok(), results.toString());
        Wire wire = Wire.unfenced(SERVER.client());
        Keys flat = Keys.queue("flat");
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        Verifier.Report clean = new Verifier(wire, "flat").verify(Optional.empty(), options);
        assertTrue(clean.passed(), clean.problems().toString());
        assertEquals(40, clean.jobsChecked());
        assertEquals(0L, CommandStats.calls(SERVER.client(), "zmscore"), "no row asked about");
        assertTrue(CommandStats.calls(SERVER.client(), "zrange") >= 1, "pending walked");

        BrandedId moved = rowsByState(wire, "flat").get(V2State.PENDING.wireName()).get(7);
        SERVER.client().zrem(flat.pending(), moved.toString());
        SERVER.client().zadd(flat.dead(), 0, moved.toString());
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        Verifier.Report report = new Verifier(wire, "flat").verify(Optional.empty(), options);
        assertEquals(List.of(flat.job(moved) + ": not a member of " + flat.pending(),
                "pending holds 39 jobs, the journal expects at least 40"), report.problems());
        assertEquals(1L, CommandStats.calls(SERVER.client(), "zmscore"), "the row the walk did not find, asked about");
    }

    @Test
    void aPendingRowWhoseGroupIsNotTextIsNamedAndItsListingLeftUnchecked() {
        Wire wire = migrateOrders();
        BrandedId id = rowsByState(wire, "orders").get(V2State.PENDING.wireName()).get(0);
        SERVER.client().hset(Utf8.bytes(ORDERS.job(id)), Utf8.bytes("group"), new byte[] {(byte) 0xff, 'g'});

        Verifier.Report report = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertEquals(List.of(ORDERS.job(id) + ": its group is not UTF-8 text, its listing cannot be checked"), report.problems());
    }

    /**
     * Every key in the queue's braces is counted and must parse as a key of the queue: a row's key
     * judged on its bytes must be judged as the grammar judges it, so keys one byte off a row's (a
     * character outside base62, a body above the largest, a lower-case namespace, a byte short) are
     * named, while a job's subkey and an id of another namespace pass; another queue's keys are not the
     * queue's.
     */
    @Test
    void everyKeyInTheQueuesBracesIsCountedAndOneThatDoesNotParseIsNamed() {
        Wire wire = migrateOrders();
        Verifier.Report clean = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertTrue(clean.passed(), clean.problems().toString());
        assertEquals(SERVER.client().keys("emq:{orders}:*").size(), clean.keysChecked());

        List<String> stray = List.of("emq:{orders}:job:JOB0000000000!", "emq:{orders}:job:JOBzzzzzzzzzzz",
                "emq:{orders}:job:jOB00000000001", "emq:{orders}:job:JOB0000000001", "emq:{orders}:jobs:JOB00000000001",
                "emq:{orders}:nonsense");
        List<String> fine = List.of("emq:{orders}:job:JOB00000000001:logs", "emq:{orders}:job:ABC00000000001",
                "emq:{orders}:job:" + BrandedId.JOB + Base62.MAX_BODY, "emq:{orders2}:job:JOB0000000000!");
        stray.forEach(k -> SERVER.client().set(k, "x"));
        fine.forEach(k -> SERVER.client().set(k, "x"));
        Verifier.Report report = new Verifier(wire, "orders").verify(Optional.empty(), OPTIONS);
        assertEquals(clean.keysChecked() + stray.size() + fine.size() - 1, report.keysChecked());
        assertEquals(stray.size(), report.problemCount(), report.problems().toString());
        for (String key : stray) {
            assertEquals(1, report.problems().stream().filter(p -> p.startsWith("key " + key + " does not parse as a key of orders")).count(),
                    key + " in " + report.problems());
        }
    }

    @Test
    void aRowTamperedWithBeforeTheProofRefusesTheMigrationAndDeletesNothing() {
        assertRefusedAtTheProof(row -> SERVER.client().hset(ORDERS.job(row), "payload", "tampered"), "payload does not carry the v1 data");
    }

    @Test
    void aDueTimeMovedBeforeTheProofRefusesTheMigrationAndDeletesNothing() {
        assertRefusedAtTheProof(row -> SERVER.client().zadd(ORDERS.schedule(), 1000, row.toString()), "scheduled at 1000 in "
                + ORDERS.schedule() + ", its due time is ");
    }

    /** Migrates the orders fixture, {@code tamper} acting on a scheduled row right before V110's proof: refused, v1 whole. */
    private static void assertRefusedAtTheProof(java.util.function.Consumer<BrandedId> tamper, String problem) {
        loadOrders();
        Set<String> jobs = SERVER.client().keys("bull:orders:*").stream()
                .filter(k -> SERVER.client().type(k).equals("hash") && !k.endsWith(":meta")).collect(Collectors.toSet());
        Migrator migrator = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), SERVER.uri(),
                OPTIONS.withRetire(true), Checkpoints.none()).listener(new Migrator.Listener() {
                    @Override
                    public void stepStarted(String queue, StepDefinition step) {
                        if (step.runs().equals("VerifyStep")) {
                            tamper.accept(rowsByState(Wire.unfenced(SERVER.client()), queue).get(V2State.SCHEDULED.wireName()).get(0));
                        }
                    }

                    @Override
                    public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
                    }
                });
        MigrationResult result = migrator.migrate(List.of("bull"), List.of("orders")).get(0);
        assertFalse(result.ok(), result.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.VERIFICATION), result.refusalKind(), result.toString());
        assertTrue(result.message().contains(problem), result.message());
        assertTrue(jobs.size() >= 15, jobs.toString());
        assertEquals(Set.of(), jobs.stream().filter(k -> !SERVER.client().exists(k)).collect(Collectors.toSet()),
                "v1 holds every job hash it held");
    }
}
