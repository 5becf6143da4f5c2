package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Verification, checked on the server row by row, still finds every way a migrated row can be out of
 * line: its payload, state or attempts changed, its listing gone (the flat sets and a lane's), the row
 * deleted; each with a line naming the row; and a migration whose rows were tampered with before its
 * proof is refused with v1 intact.
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

    /** The journal's expectations of the queue, by v2 state. */
    private static Map<String, List<BrandedId>> rowsByState(Wire wire, String queue) {
        Map<String, List<BrandedId>> out = new LinkedHashMap<>();
        new Journal(wire, queue).expectations().forEach(page ->
                page.forEach((id, e) -> out.computeIfAbsent(e.state(), s -> new ArrayList<>()).add(id)));
        return out;
    }

    @Test
    void everyRowOutOfLineFailsVerificationWithALineOfItsOwn() {
        loadOrders();
        List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.none(), List.of("bull"), "orders");
        assertTrue(results.get(0).ok(), results.toString());
        Wire wire = Wire.unfenced(SERVER.client());
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
        String unlisted = ORDERS.job(dead.get(0));
        SERVER.client().zrem(ORDERS.dead(), dead.get(0).toString());
        BrandedId inLane = pending.get(2);
        String lane = ORDERS.lanePending(BrandedId.of(SERVER.client().hget(ORDERS.job(inLane), "group")));
        SERVER.client().zrem(lane, inLane.toString());
        // a row whose lane keeps another known row: the verification counts the lanes of the rows it reads
        BrandedId goneId = pending.subList(3, pending.size()).stream().filter(id -> {
            String group = SERVER.client().hget(ORDERS.job(id), "group");
            return group == null || pending.stream().filter(other -> !other.equals(id))
                    .anyMatch(other -> group.equals(SERVER.client().hget(ORDERS.job(other), "group")));
        }).findFirst().orElseThrow();
        String gone = ORDERS.job(goneId);
        SERVER.client().del(gone);

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
        assertEquals(9, report.problemCount(), all);
        assertEquals(clean.jobsChecked(), report.jobsChecked());
    }

    @Test
    void aJournalWrittenBeforeThePayloadDigestWasRecordedStillHasEveryPayloadChecked() {
        loadOrders();
        List<MigrationResult> results = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.none(), List.of("bull"), "orders");
        assertTrue(results.get(0).ok(), results.toString());
        String journal = Keys.migrationJournal("orders");
        SERVER.client().hgetAll(journal).forEach((field, value) -> {
            if (field.startsWith("r:")) {
                SERVER.client().hset(journal, field, value.substring(0, value.lastIndexOf(' ')));
            }
        });
        Wire wire = Wire.unfenced(SERVER.client());
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
    void aRowTamperedWithBeforeTheProofRefusesTheMigrationAndDeletesNothing() {
        loadOrders();
        Set<String> jobs = SERVER.client().keys("bull:orders:*").stream()
                .filter(k -> SERVER.client().type(k).equals("hash") && !k.endsWith(":meta")).collect(Collectors.toSet());
        Migrator migrator = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), SERVER.uri(),
                OPTIONS.withRetire(true), Checkpoints.none()).listener(new Migrator.Listener() {
                    @Override
                    public void stepStarted(String queue, StepDefinition step) {
                        if (step.runs().equals("VerifyStep")) {
                            String row = ORDERS.job(rowsByState(Wire.unfenced(SERVER.client()), queue)
                                    .get(V2State.SCHEDULED.wireName()).get(0));
                            SERVER.client().hset(row, "payload", "tampered");
                        }
                    }

                    @Override
                    public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long millis) {
                    }
                });
        MigrationResult result = migrator.migrate(List.of("bull"), List.of("orders")).get(0);
        assertFalse(result.ok(), result.toString());
        assertEquals(Optional.of(MigrationRefused.Kind.VERIFICATION), result.refusalKind(), result.toString());
        assertTrue(result.message().contains("payload does not carry the v1 data"), result.message());
        assertTrue(jobs.size() >= 15, jobs.toString());
        assertEquals(Set.of(), jobs.stream().filter(k -> !SERVER.client().exists(k)).collect(Collectors.toSet()),
                "v1 holds every job hash it held");
    }
}
