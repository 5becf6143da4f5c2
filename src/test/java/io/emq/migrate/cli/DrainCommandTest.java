package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code drain} through the command line: refusals, exit codes, JSON, HTML, exec. */
class DrainCommandTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    /** The fixture's paused v1 queue {@code emails}, migrated: it ends paused on the v2 side. */
    private static void migrateEmails() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(0, m.code(), m.out() + m.err());
    }

    @Test
    void aPausedQueueIsRefusedWithTheReasonAndResumedOnRequest(@TempDir Path dir) throws Exception {
        migrateEmails();
        CliRun refused = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.out() + refused.err());
        assertTrue(refused.err().contains("the v1 queue was paused when it was migrated")
                && refused.err().contains("Add --resume to resume it and drain it (or resume it yourself: HDEL emq:{emails}:meta"
                + " paused)"), refused.err());
        assertEquals(4, SERVER.client().zcard(Keys.queue("emails").pending()));

        Path html = dir.resolve("drain.html");
        CliRun drained = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--json",
                "--html", html.toString());
        assertEquals(ExitCodes.OK, drained.code(), drained.out() + drained.err());
        JsonNode doc = Json.MAPPER.readTree(drained.out());
        assertTrue(doc.get("passed").asBoolean(), drained.out());
        assertEquals(4, doc.get("before").get("pending").asLong());
        assertEquals(0, doc.get("after").get("pending").asLong());
        assertEquals("completed exactly once", doc.get("checks").get(1).get("check").asText());
        assertEquals("pass", doc.get("checks").get(1).get("outcome").asText());
        String page = Files.readString(html);
        assertTrue(page.contains("<svg") && page.contains("completed exactly once"), page);
        assertTrue(!page.contains("<script") && !page.contains("<link") && !page.contains("src="), "self-contained");
    }

    @Test
    void withLanesTheDrainClaimsThroughTheRingAndJudgesServeOrderPerLane() {
        migrateEmails();
        Keys emails = Keys.queue("emails");
        String lane = new io.emq.migrate.keyspace.BrandedId("ACC", 7).toString();
        for (String id : SERVER.client().zrange(emails.pending(), 0, -1)) {
            SERVER.client().zrem(emails.pending(), id);
            SERVER.client().hset(emails.base() + "job:" + id, "group", lane);
            SERVER.client().zadd(emails.base() + "g:" + lane + ":pending", 0, id);
        }
        SERVER.client().rpush(emails.base() + "ring", lane);
        CliRun r = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--lanes");
        assertEquals(ExitCodes.OK, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("claimed in migrated serve order, per lane") && r.out().contains("verdict: PASS"), r.out());
        assertEquals(0, SERVER.client().zcard(emails.base() + "g:" + lane + ":pending"));
    }

    @Test
    void aLanesDrainOfAQueueMigratedIntoTheFlatSetSaysWhyItFindsNoJob() {
        migrateEmails();
        CliRun r = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--lanes");
        assertEquals(ExitCodes.REFUSED, r.code(), r.all());
        assertTrue(r.err().contains("queue 'emails' was migrated into the flat pending set (4 jobs there) and has no lanes"),
                r.err());
        assertTrue(r.out().contains("verdict: FAIL"), r.out());
        CliRun shadow = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--shadow", "--lanes");
        assertEquals(ExitCodes.REFUSED, shadow.code(), shadow.all());
        assertTrue(shadow.err().contains("queue 'emails' was migrated into the flat pending set"), "a shadow drain says it too: "
                + shadow.err());
    }

    @Test
    void theDryRunPassesThenAFailingDrainExitsThree() {
        migrateEmails();
        CliRun dry = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--dry-run");
        assertEquals(ExitCodes.OK, dry.code(), dry.out() + dry.err());
        assertTrue(dry.out().contains("verdict: PASS") && dry.out().contains("nothing was claimed"), dry.out());
        String first = SERVER.client().zrange(Keys.queue("emails").pending(), 0, 0).get(0);
        SERVER.client().hset(Keys.queue("emails").base() + "job:" + first, "payload", "not the v1 data");
        CliRun r = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--workers", "2");
        assertEquals(ExitCodes.REFUSED, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("claimed in serve order, per worker") && r.out().contains("verdict: FAIL: 1 check"), r.out());
    }

    /**
     * The dry run names each way the queue differs from what was migrated (a payload, attempts, a job in neither set),
     * counts a fresh v2 job without judging it, and claims nothing.
     */
    @Test
    void theDryRunNamesATamperedRowAndAJobInNoSetAndCountsAFreshJob() throws Exception {
        SERVER.client().flushAll();
        migrateEmails();
        Keys emails = Keys.queue("emails");
        java.util.List<String> pending = SERVER.client().zrange(emails.pending(), 0, -1);
        SERVER.client().hset(emails.base() + "job:" + pending.get(0), "payload", "not the v1 data");
        SERVER.client().hset(emails.base() + "job:" + pending.get(1), "attempts", "7");
        SERVER.client().zrem(emails.pending(), pending.get(2));
        Jobs.on(Wire.open(SERVER.client()), "emails").enqueue("fresh".getBytes(StandardCharsets.UTF_8));

        CliRun dry = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--dry-run", "--json");
        assertEquals(ExitCodes.REFUSED, dry.code(), dry.all());
        JsonNode doc = Json.MAPPER.readTree(dry.out());
        String problems = doc.get("problems").toString();
        assertTrue(problems.contains(pending.get(0) + " (v1 1, pending): payload is not in the envelope form; its v1 data cannot be"
                + " recovered"), problems);
        assertTrue(problems.contains(pending.get(1) + " (v1 ") && problems.contains("attempts 7, migrated with 0"), problems);
        assertTrue(problems.contains(pending.get(2) + " (v1 ") && problems.contains("in neither pending nor schedule"), problems);
        String checks = doc.get("checks").toString();
        assertTrue(checks.contains("fresh v2 jobs (not migrated) queued"), checks);
        assertEquals(1, java.util.stream.StreamSupport.stream(doc.get("checks").spliterator(), false)
                .filter(c -> c.get("check").asText().equals("fresh v2 jobs (not migrated) queued")).findFirst().orElseThrow()
                .get("found").asInt(), checks);
        assertEquals(4, SERVER.client().zcard(emails.pending()), "nothing claimed: three migrated jobs and the fresh one wait");
    }

    /** An exec handler that always fails dead-letters the job and exits 3; a handler named wrong, or given wrong, is a usage error. */
    @Test
    void anExecHandlerThatAlwaysFailsExitsThreeAndHandlerMistakesAreUsageErrors() {
        SERVER.client().flushAll();
        Jobs.on(Wire.open(SERVER.client()), "failing").enqueue("x".getBytes(StandardCharsets.UTF_8));
        CliRun dead = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "failing", "--handler", "exec", "echo nope >&2; exit 1");
        assertEquals(ExitCodes.REFUSED, dead.code(), dead.all());
        assertTrue(dead.out().contains("0 completed") && dead.out().contains("1 dead"), dead.out());
        assertTrue(dead.out().contains("the handler failed jobs until they went dead (1 dead): exit 3"), dead.out());
        assertEquals(1, SERVER.client().zcard(Keys.queue("failing").dead()));

        CliRun unknown = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "failing", "--handler", "print");
        assertEquals(ExitCodes.USAGE, unknown.code(), unknown.all());
        assertTrue(unknown.err().contains("--handler must be validate, noop or exec CMD, not 'print'"), unknown.err());
        CliRun noCommand = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "failing", "--handler", "exec");
        assertEquals(ExitCodes.USAGE, noCommand.code(), noCommand.all());
        assertTrue(noCommand.err().contains("--handler exec takes one command, quoted: --handler exec 'CMD ARGS'"), noCommand.err());
        CliRun stray = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "failing", "--handler", "noop", "extra");
        assertEquals(ExitCodes.USAGE, stray.code(), stray.all());
        assertTrue(stray.err().contains("unexpected argument 'extra'"), stray.err());
    }

    @Test
    void aQueueWithoutAJournalIsRefusedForValidationAndDrainedByExec() {
        Jobs jobs = Jobs.on(Wire.open(SERVER.client()), "plain");
        jobs.enqueue("hello".getBytes(StandardCharsets.UTF_8));
        CliRun refused = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "plain");
        assertEquals(ExitCodes.REFUSED, refused.code());
        assertTrue(refused.err().contains("queue plain has no migration journal on this target (never migrated here, or `forget`"
                + " deleted it after its cutover)"), refused.err());
        CliRun exec = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "plain", "--handler", "exec",
                "grep -q hello && test -n \"$EMQ_JOB_ID\"");
        assertEquals(ExitCodes.OK, exec.code(), exec.out() + exec.err());
        assertTrue(exec.out().contains("1 claimed, 1 completed, 0 retried"), exec.out());
        assertTrue(exec.err().contains("drain plain: 1/1 jobs (100%)") && exec.err().contains("(done)"), exec.err());
    }

    @Test
    void aMigrationStoppedAtVerifiedIsRefusedNamingWhy() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire");
        assertEquals(0, m.code(), m.out() + m.err());
        CliRun refused = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.out() + refused.err());
        assertTrue(refused.err().contains("stopped at verified (migrate --no-retire)")
                && refused.err().contains("--resume serves it anyway, once confirmed, while v1 holds the same jobs"), refused.err());
        assertFalse(refused.err().contains("HDEL"), "no way round the confirmation while v1 holds the same jobs: " + refused.err());
        CliRun unconfirmed = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume",
                "--handler", "exec cat >/dev/null");
        assertEquals(ExitCodes.REFUSED, unconfirmed.code(), unconfirmed.all());
        assertTrue(unconfirmed.err().contains("whose v1 source holds the same jobs: v1 would run them too (no other migration retired"
                + " it since: checked)") && unconfirmed.err().contains("--yes"), unconfirmed.err());
        assertEquals(4, SERVER.client().zcard(Keys.queue("emails").pending()), "nothing was consumed");
        CliRun exec = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--yes",
                "--handler", "exec cat >/dev/null");
        assertEquals(ExitCodes.OK, exec.code(), exec.out() + exec.err());
        assertTrue(exec.out().contains("4 completed"), exec.out());
    }

    /** A migration that stopped inside retirement: v1 paused, maybe partly retired; drain does not call it the truth. */
    @Test
    void aMigrationStoppedInsideRetirementIsRefusedNamingTheWayToFinishIt() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        Wire wire = Wire.open(SERVER.client());
        assertThrows(Checkpoints.InjectedCrash.class, () -> new Migrator(Wire.unfenced(SERVER.client()), wire, SERVER.uri(),
                MigrationOptions.defaults(), Checkpoints.throwingAt("120:structures deleted")).migrate(List.of("bull"), List.of("emails")));
        CliRun refused = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        assertTrue(refused.err().contains("its migration stopped inside its last step (retire source)")
                && refused.err().contains("run migrate again (without --no-retire)")
                && refused.err().contains("--resume serves it anyway, once confirmed, before its retirement finished"), refused.err());
        assertFalse(refused.err().contains("HDEL"), refused.err());
        CliRun unconfirmed = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume");
        assertEquals(ExitCodes.REFUSED, unconfirmed.code(), unconfirmed.all());
        assertTrue(unconfirmed.err().contains("a migration stopped inside its retirement"), unconfirmed.err());
        assertEquals(4, SERVER.client().zcard(Keys.queue("emails").pending()), "nothing was consumed");
    }

    /** Once a drain served the copy of a migration stopped in its window, abandon does not give v1 back (v1 would run those jobs again). */
    @Test
    void abandonRefusesToGiveV1BackOnceADrainServedTheCopy() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        Wire wire = Wire.open(SERVER.client());
        assertThrows(Checkpoints.InjectedCrash.class, () -> new Migrator(Wire.unfenced(SERVER.client()), wire, SERVER.uri(),
                MigrationOptions.defaults().withLease(java.time.Duration.ofMillis(300)), Checkpoints.throwingAt("120:v1 paused"))
                .migrate(List.of("bull"), List.of("emails")));
        CliRun drained = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--yes",
                "--handler", "exec cat >/dev/null");
        assertEquals(ExitCodes.OK, drained.code(), drained.all());
        SERVER.client().hdel("{emq}:migration:emails", "lock_owner"); // the crashed run's lease lapses

        CliRun abandon = CliRun.of("abandon", "--yes", "--source", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, abandon.code(), abandon.all());
        assertTrue(abandon.err().contains("served jobs of this migration already (4 of its rows gone, 0 jobs active)")
                && abandon.err().contains("a copy served before its migration finished"), abandon.err());
        assertEquals("echomq:2.0.0-migrating", SERVER.client().get("bull:emails:id"), "v1 not given back: its add counter still frozen");
        assertEquals(4, SERVER.client().llen("bull:emails:paused"), "v1 holds every job, paused");

        // the rollback by hand (MIGRATION.md §9): the counter's value back, the token dropped; then abandon deletes the copy's rest
        SERVER.client().set("bull:emails:id", SERVER.client().hget("bull:emails:meta", "migrating-id"));
        SERVER.client().hdel("bull:emails:meta", "migrating-id", "migrating-token");
        CliRun abandoned = CliRun.of("abandon", "--yes", "--source", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.OK, abandoned.code(), abandoned.all());
        assertTrue(abandoned.out().contains("v1-not-paused-here 1"), abandoned.out());
    }

    /** A migration before verified (in flight, or stopped there): v1 still serves; --resume is refused, not asked. */
    @Test
    void aMigrationBeforeVerifiedIsRefusedEvenWithResume() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        Wire wire = Wire.open(SERVER.client());
        assertThrows(Checkpoints.InjectedCrash.class, () -> new Migrator(Wire.unfenced(SERVER.client()), wire, SERVER.uri(),
                MigrationOptions.defaults(), Checkpoints.throwingAt("110:verified, not yet recorded")).migrate(List.of("bull"), List.of("emails")));
        CliRun refused = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        assertTrue(refused.err().contains("its migration is in flight, or stopped before it verified"), refused.err());
        assertFalse(refused.err().contains("HDEL") || refused.err().contains("Add --resume"), "--resume is refused here too: "
                + refused.err());
        CliRun resumed = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--yes",
                "--handler", "exec cat >/dev/null");
        assertEquals(ExitCodes.REFUSED, resumed.code(), resumed.all());
        assertTrue(resumed.err().contains("--resume would serve what was copied so far while v1 serves the same jobs"), resumed.err());
        assertEquals("1", SERVER.client().hget(Keys.queue("emails").meta(), "paused"), "still paused");
        assertEquals(4, SERVER.client().zcard(Keys.queue("emails").pending()), "nothing was consumed");
    }

    @Test
    void badUsageExitsTwo() {
        assertEquals(ExitCodes.USAGE, CliRun.of("drain", "--queue", "q").code());
        assertEquals(ExitCodes.USAGE, CliRun.of("drain", "--target", SERVER.uri(), "--queue", "q", "--handler", "exec").code());
        assertEquals(ExitCodes.USAGE, CliRun.of("drain", "--target", SERVER.uri(), "--queue", "q", "--workers", "0").code());
        assertEquals(ExitCodes.USAGE, CliRun.of("drain", "--target", SERVER.uri(), "--queue", "{q}").code());
    }
}
