package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MigrationCommandsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static void load(String fixture) {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(fixture));
    }

    @Test
    void aLeaseTooShortToRenewIsRefusedInOneLineAndNothingIsWritten() {
        load("node-5.65.1");
        String before = new KeyspaceDump(SERVER.client()).digest();
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lease", "0s");
        assertEquals(2, migrate.code(), migrate.out() + migrate.err());
        assertEquals(1, migrate.err().strip().lines().count(), migrate.err());
        assertTrue(migrate.err().contains("too short") && migrate.err().contains("at least 300 ms"), migrate.err());
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "nothing written");
    }

    @Test
    void infoOfAMigrationUnderWaySaysWhetherARunHoldsItsLease() {
        io.emq.migrate.migrate.V1QueueGenerator.addWaiting(SERVER.client(), "orders", 1, 2, 20);
        SERVER.client().zadd("bull:orders:repeat", 1, "legacy::::60000"); // refused at the fence: a legacy repeatable
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "orders", "--yes");
        assertEquals(3, refused.code(), refused.all());
        CliRun stopped = CliRun.of("info", "--target", SERVER.uri(), "--queue", "orders");
        assertTrue(stopped.out().contains("state running") && stopped.out().contains("no step applied: its runs were refused (or"
                + " stopped) at the first step, V10 fence source, before they wrote anything but its journal"), stopped.all());
        SERVER.client().hset("{emq}:migration:orders", java.util.Map.of("lock_owner", "ops@host:42:ab", "lock_until", "4102444800000"));
        CliRun held = CliRun.of("info", "--target", SERVER.uri(), "--queue", "orders", "--json");
        assertTrue(held.out().contains("\"leaseOwner\" : \"ops@host:42:ab\"") && held.out().contains("\"leaseUntilMs\" : 4102444800000"),
                held.all());
        assertTrue(CliRun.of("info", "--target", SERVER.uri(), "--queue", "orders").out().contains("lease held by ops@host:42:ab until"
                + " 2100-01-01T00:00:00Z (server time)"));
    }

    @Test
    void migrateNoRetireThenInfoValidateLookupVerifyAbandonLeavesV1AsItWas() throws Exception {
        load("node-5.65.1");
        String before = new KeyspaceDump(SERVER.client()).digest();
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire");
        assertEquals(0, migrate.code(), migrate.out() + migrate.err());
        assertTrue(migrate.out().contains("verified"), migrate.out());

        CliRun info = CliRun.of("info", "--target", SERVER.uri(), "--json");
        JsonNode q = Json.MAPPER.readTree(info.out()).get("queues").get(0);
        assertEquals("emails", q.get("name").asText());
        assertEquals("verified", q.get("state").asText());
        assertEquals("pending", q.get("steps").get(11).get("status").asText(), "retire not applied");
        assertEquals("success", q.get("steps").get(0).get("status").asText());

        assertEquals(0, CliRun.of("validate", "--target", SERVER.uri()).code());

        CliRun lookup = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--all", "--json");
        JsonNode pairs = Json.MAPPER.readTree(lookup.out());
        assertEquals(5, pairs.size(), lookup.out());
        assertEquals(io.emq.migrate.v1.plan.Rebrand.jobId(io.emq.migrate.v1.plan.Rebrand.idBase("emails"), 1),
                pairs.get(0).get("v2").asText());
        String v1 = pairs.get(0).get("v1").asText();
        CliRun one = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--v1-id", v1, "--json");
        assertEquals(pairs.get(0).get("v2").asText(), Json.MAPPER.readTree(one.out()).get(0).get("v2").asText());

        CliRun verify = CliRun.of("verify", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(0, verify.code(), verify.out() + verify.err());
        assertTrue(verify.out().contains("VERIFIED emails"), verify.out());

        CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(0, abandon.code(), abandon.out() + abandon.err());
        SERVER.client().del("{emq}:migration:emails", "{emq}:version", "emq:{emails}:meta");
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "v1 is exactly as it was, and nothing of v2 remains");
    }

    @Test
    void aTamperedRowFailsVerifyWithExitThree() {
        load("node-5.65.1");
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        String member = SERVER.client().zrange("emq:{emails}:pending", 0, 0).get(0);
        SERVER.client().hset("emq:{emails}:job:" + member, "payload", "tampered");
        CliRun verify = CliRun.of("verify", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(3, verify.code());
        assertTrue(verify.out().contains("payload does not carry the v1 data"), verify.out());
    }

    /**
     * plan takes --keep-branded-ids as migrate does and says what it does to the serve order: the job v1 serves first,
     * whose id is a JOB branded id, keeps it and is served last in v2 (its own mint time), as the plan said.
     */
    @Test
    void planWithKeepBrandedIdsSaysTheKeptIdsSortByTheirOwnMintTime() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "kb", 1, 2, 20);
        SERVER.client().hset("bull:kb:JOB0NwdXCmjyDI", java.util.Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().rpush("bull:kb:wait", "JOB0NwdXCmjyDI"); // at the end v1 serves from: first
        CliRun minting = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "kb");
        assertEquals(0, minting.code(), minting.all());
        assertTrue(!minting.out().contains("kept ids"), minting.out());
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "kb", "--keep-branded-ids");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().lines().anyMatch(l -> l.matches("1\\s+JOB0NwdXCmjyDI\\s+JOB0NwdXCmjyDI\\s+wait.*")), plan.out());
        assertTrue(plan.out().contains("kept ids: 1 v1 ids are JOB branded ids and keep themselves (--keep-branded-ids): v2 serves"
                + " them by their own mint time among the minted ids, not at their place in v1's serve order"), plan.out());
        JsonNode doc = Json.MAPPER.readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "kb", "--keep-branded-ids",
                "--json").out());
        assertEquals(1, doc.get("queues").get(0).get("keptBrandedIds").asLong(), doc.toString());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "kb", "--keep-branded-ids", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        List<String> pending = SERVER.client().zrange("emq:{kb}:pending", 0, -1);
        assertEquals("JOB0NwdXCmjyDI", pending.get(pending.size() - 1), "served last in v2, as the plan said: " + pending);
    }

    /**
     * verify of a migration stopped before it verified (killed in its copy) does not call the partial copy verified: the
     * rows copied so far check out, and the verdict says the migration has not finished, which step is next, and what to do.
     */
    @Test
    void verifyOfAMigrationStoppedInItsCopySaysItIsUnfinished() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "big", 1, 600, 20);
        Wire wire = Wire.open(SERVER.client());
        assertThrows(Checkpoints.InjectedCrash.class, () ->
                new Migrator(Wire.unfenced(SERVER.client()), wire, SERVER.uri(),
                        MigrationOptions.defaults().withLease(Duration.ofMillis(300)),
                        Checkpoints.throwingAt("30:expectations recorded")).migrate(List.of("bull"), List.of("big")));
        CliRun verify = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "big");
        assertEquals(ExitCodes.REFUSED, verify.code(), verify.all());
        assertTrue(verify.out().contains("256 jobs checked"), verify.out());
        assertTrue(verify.out().contains("UNFINISHED big: its migration has not verified yet (journal state running; step V30"
                + " (absorb pending) is pending), so only the jobs copied so far were checked: run migrate again to finish it"),
                verify.out());
        JsonNode doc = Json.MAPPER.readTree(CliRun.of("verify", "--target", SERVER.uri(), "--queue", "big", "--json").out());
        assertEquals(false, doc.get("passed").asBoolean(), doc.toString());
        assertTrue(doc.get("unfinished").asText().contains("run migrate again"), doc.toString());
        Thread.sleep(400); // the crashed run's lease lapses
        CliRun resumed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "big", "--no-retire");
        assertEquals(0, resumed.code(), resumed.all());
        CliRun finished = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "big");
        assertEquals(ExitCodes.OK, finished.code(), finished.all());
        assertTrue(finished.out().contains("600 jobs checked") && finished.out().contains("VERIFIED big"), finished.out());
    }

    /** verify with the v1 source still there names each v1 job v2 does not hold as it is now: changed data, a job added since. */
    @Test
    void verifyAgainstTheSourceNamesAJobChangedAndOneAddedSinceTheMigration() throws Exception {
        load("node-5.65.1");
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        SERVER.client().hset("bull:emails:1", "data", "{\"changed\":true}");
        SERVER.client().hset("bull:emails:6", java.util.Map.of("name", "send", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().lpush("bull:emails:paused", "6");
        CliRun verify = CliRun.of("verify", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "emails", "--json");
        assertEquals(3, verify.code(), verify.all());
        JsonNode doc = Json.MAPPER.readTree(verify.out());
        assertEquals(false, doc.get("passed").asBoolean());
        assertEquals(true, doc.get("sourceChecked").asBoolean());
        String problems = doc.get("problems").toString();
        assertTrue(problems.contains("v1 job bull:emails:1: data changed since it was migrated"), problems);
        assertTrue(problems.contains("v1 job bull:emails:6 (paused) has no migrated row"), problems);
        assertEquals(2, doc.get("problemCount").asInt(), problems);
    }

    /** A recorded step checksum that differs from this release's migrations/ is named by validate (exit 3); repair realigns it. */
    @Test
    void validateNamesAStepWhoseChecksumDiffersAndRepairRealignsIt() throws Exception {
        load("node-5.65.1");
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        String journal = "{emq}:migration:emails";
        String row = SERVER.client().hget(journal, "history:30");
        long checksum = Json.MAPPER.readTree(row).get("checksum").asLong();
        SERVER.client().hset(journal, "history:30", row.replace("\"checksum\":" + checksum, "\"checksum\":" + (checksum + 1)));

        CliRun validate = CliRun.of("validate", "--target", SERVER.uri());
        assertEquals(3, validate.code(), validate.all());
        assertTrue(validate.out().contains("emails V30 absorb pending: ") && validate.out().contains("(recorded checksum " + (checksum + 1) + ")")
                && validate.out().contains("1 step differs from migrations/: if the change is intended, run `emq-migrate repair`"),
                validate.out());
        JsonNode doc = Json.MAPPER.readTree(CliRun.of("validate", "--target", SERVER.uri(), "--json").out());
        assertEquals(false, doc.get("valid").asBoolean());
        assertEquals(30, doc.get("differing").get(0).get("version").asInt(), doc.toString());

        CliRun repair = CliRun.of("repair", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(0, repair.code(), repair.all());
        assertTrue(repair.out().contains("repaired 1 step of emails; run migrate again"), repair.out());
        CliRun again = CliRun.of("validate", "--target", SERVER.uri());
        assertEquals(0, again.code(), again.all());
        assertTrue(again.out().contains("validated 1 queue: every applied step matches migrations/"), again.out());
    }

    /** lookup by branded id answers with the v1 id; an id not in the mapping, a malformed one, or two modes at once are told apart. */
    @Test
    void lookupByJobIdAndItsMistakes() throws Exception {
        load("node-5.65.1");
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        JsonNode pairs = Json.MAPPER.readTree(CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--all", "--json").out());
        String v1 = pairs.get(0).get("v1").asText();
        String v2 = pairs.get(0).get("v2").asText();

        CliRun byJobId = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--job-id", v2);
        assertEquals(0, byJobId.code(), byJobId.all());
        assertTrue(byJobId.out().contains("V1") && byJobId.out().contains(v1) && byJobId.out().contains(v2), byJobId.out());

        String other = io.emq.migrate.v1.plan.Rebrand.jobId(io.emq.migrate.v1.plan.Rebrand.idBase("emails"), 999);
        CliRun unknown = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--job-id", other);
        assertEquals(3, unknown.code(), unknown.all());
        assertTrue(unknown.out().contains("no mapping for job id " + other + " in emails"), unknown.out());
        CliRun unknownV1 = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--v1-id", "no-such-job");
        assertTrue(unknownV1.out().contains("no mapping for v1 id no-such-job in emails"), unknownV1.all());

        CliRun malformed = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--job-id", "JOB-not-an-id");
        assertEquals(ExitCodes.USAGE, malformed.code(), malformed.all());
        assertTrue(malformed.err().contains("--job-id JOB-not-an-id is not a branded id ("), malformed.err());
        CliRun both = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--job-id", v2, "--all");
        assertEquals(ExitCodes.USAGE, both.code(), both.all());
        assertTrue(both.err().contains("give exactly one of --v1-id ID, --v1-base64 B64, --job-id ID, --all"), both.err());

        CliRun lease = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lease", "soon");
        assertEquals(ExitCodes.USAGE, lease.code(), lease.all());
        assertTrue(lease.err().contains("--lease takes a duration like 500ms, 30s or 2m, not 'soon'"), lease.err());
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lease", "PT20S", "--yes").code(),
                "an ISO-8601 duration is taken too");
    }

    /**
     * A job v1 finished between a --no-retire run and the one that retires has an id, and lookup says v2 got no row of it;
     * beside the state each row was migrated as, lookup tells the state it holds now, gone once v2 served it.
     */
    @Test
    void lookupTellsTheRowEachJobGotAndNoneForOneV1FinishedBeforeTheCutoverAndWhichRowsAreGoneNow() throws Exception {
        load("node-5.65.1");
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        String finished = SERVER.client().lindex("bull:emails:paused", -1);
        SERVER.client().lrem("bull:emails:paused", 0, finished); // as a v1 worker takes and finishes it, removed on complete
        SERVER.client().del("bull:emails:" + finished);
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes").code());

        JsonNode pairs = Json.MAPPER.readTree(CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--all", "--json").out());
        assertEquals(5, pairs.size(), pairs.toString());
        for (JsonNode p : pairs) {
            boolean gone = p.get("v1").asText().equals(finished);
            assertEquals(gone, p.get("v2Row").isNull(), p.toString());
            assertEquals(!gone, SERVER.client().exists("emq:{emails}:job:" + p.get("v2").asText()), p.toString());
            assertEquals(p.get("v2Row").textValue(), p.get("v2Now").textValue(), "as migrated, before v2 serves: " + p);
        }
        CliRun table = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--v1-id", finished);
        assertTrue(table.out().contains("MIGRATED AS") && table.out().contains("none: the id was minted, but v2 got no row"), table.out());

        assertEquals(0, CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume").code()); // paused in v1, so in v2
        JsonNode served = Json.MAPPER.readTree(CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--all", "--json").out());
        for (JsonNode p : served) {
            String migratedAs = p.get("v2Row").textValue();
            assertEquals("scheduled".equals(migratedAs) ? "scheduled" : null, p.get("v2Now").textValue(),
                    "a pending row is gone once v2 served it, a scheduled one waits: " + p);
        }
        CliRun drained = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--all");
        assertTrue(drained.out().contains("gone: the row the migration wrote is gone from the target now"), drained.out());
    }

    /** An output file that cannot be written is bad usage before anything is read or written: one line, one document. */
    @Test
    void anOutputFileThatCannotBeWrittenIsRefusedBeforeAnyWork() throws Exception {
        load("node-5.65.1");
        java.nio.file.Path folder = java.nio.file.Files.createTempDirectory("emq-out");
        CliRun aFolder = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails", "--html", folder.toString(), "--json");
        assertEquals(ExitCodes.USAGE, aFolder.code(), aFolder.all());
        assertEquals("usage", Json.MAPPER.readTree(aFolder.out()).path("error").path("kind").asText(), "only the error: " + aFolder.out());
        assertTrue(aFolder.out().contains("is a folder; name a file in it"), aFolder.out());

        CliRun proc = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--archive-completed", "/proc/archive.jsonl",
                "--yes");
        assertEquals(ExitCodes.USAGE, proc.code(), proc.all());
        assertTrue(proc.err().contains("--archive-completed: cannot write /proc/archive.jsonl"), proc.err());
        assertTrue(SERVER.client().keys("emq:*").isEmpty() && SERVER.client().keys("{emq}:*").isEmpty(), "nothing written");
        assertTrue(java.nio.file.Files.notExists(folder.resolve("archive.jsonl")));

        java.nio.file.Path notes = folder.resolve("notes.txt");
        java.nio.file.Files.writeString(notes, "not an archive\n");
        CliRun foreign = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--archive-completed",
                notes.toString(), "--yes");
        assertEquals(ExitCodes.USAGE, foreign.code(), foreign.all());
        assertTrue(foreign.err().contains("--archive-completed: the completed-jobs archive " + notes + " holds a line that is not"
                + " an archive line (line 1)"), foreign.err());
        assertTrue(SERVER.client().keys("emq:*").isEmpty() && SERVER.client().keys("{emq}:*").isEmpty(),
                "refused before any row is copied: " + foreign.all());
        assertEquals("not an archive\n", java.nio.file.Files.readString(notes), "the file untouched");
        java.nio.file.Files.delete(notes);
        java.nio.file.Files.delete(folder);
    }

    /** A target that refuses the first write for lack of memory is told as such, with what to do, as a step's refusal is. */
    @Test
    void aTargetOutOfMemoryAtTheFirstWriteSaysSoAndWhatToDo() throws Exception {
        load("node-5.65.1");
        SERVER.client().configSet("maxmemory", "1");
        CliRun full;
        try {
            full = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes", "--json");
        } finally {
            SERVER.client().configSet("maxmemory", "0");
        }
        assertEquals(ExitCodes.USAGE, full.code(), full.all());
        String message = Json.MAPPER.readTree(full.out()).path("error").path("message").asText();
        assertTrue(message.startsWith("a server refused a write for lack of memory (OOM command not allowed")
                && message.contains("raise its maxmemory") && message.endsWith("then run the same command again"), message);
        CliRun again = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(0, again.code(), again.all());
    }

    /** A prefix given twice is read once; a v1 id holding a line break keeps the table one line a job. */
    @Test
    void aPrefixGivenTwiceCountsOnceAndALineBreakInAnIdStaysInItsCell() {
        load("node-5.65.1");
        CliRun once = CliRun.of("discover", "--source", SERVER.uri(), "--prefix", "bull", "--json");
        CliRun twice = CliRun.of("discover", "--source", SERVER.uri(), "--prefix", "bull", "--prefix", "bull", "--json");
        assertEquals(0, twice.code(), twice.all());
        assertEquals(once.out(), twice.out());

        SERVER.client().hset("bull:nl:meta", "version", "bullmq:5.65.1");
        SERVER.client().hset("bull:nl:a\nb", java.util.Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().rpush("bull:nl:wait", "a\nb");
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "nl", "--yes").code());
        CliRun lookup = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "nl", "--all");
        assertEquals(0, lookup.code(), lookup.all());
        List<String> lines = lookup.out().lines().toList();
        assertEquals(2, lines.size(), lookup.out());
        assertTrue(lines.get(1).startsWith("a\\x0ab  JOB"), lookup.out());
    }

    /**
     * With a prefix and one under it given ({@code bull}, {@code bull:x}), a queue under the second is one queue, {@code q}
     * under {@code bull:x}: not also {@code x:q} under {@code bull}, which would copy its jobs into a second v2 queue; and
     * queue {@code x} of {@code bull}, whose keys are under {@code bull:x:} too, is still found.
     */
    @Test
    void aQueueUnderAPrefixNestedInAnotherIsFoundOnceAndMigratedOnce() throws Exception {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "bull:x", "q", 1, 3, 20);
        V1QueueGenerator.addWaiting(SERVER.client(), "bull", "x", 1, 2, 20);
        V1QueueGenerator.addWaiting(SERVER.client(), "bull", "a", 1, 2, 20);
        CliRun discover = CliRun.of("discover", "--source", SERVER.uri(), "--prefix", "bull", "--prefix", "bull:x", "--json");
        assertEquals(0, discover.code(), discover.all());
        List<String> found = new java.util.ArrayList<>();
        Json.MAPPER.readTree(discover.out()).path("queues").forEach(q -> found.add(q.path("prefix").asText() + " " + q.path("name").asText()));
        assertEquals(List.of("bull a", "bull x", "bull:x q"), found.stream().sorted().toList(), discover.out());
        JsonNode counts = Json.MAPPER.readTree(discover.out());
        assertEquals(SERVER.client().dbSize(), counts.path("keysUnderPrefixes").asLong(), "each key counted once: " + discover.out());
        assertEquals(0, counts.path("foreignKeys").asLong(), discover.out());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--prefix", "bull", "--prefix", "bull:x", "--all", "--no-retire");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(List.of(2L, 3L, 2L), List.of(SERVER.client().zcard("emq:{a}:pending"), SERVER.client().zcard("emq:{q}:pending"),
                SERVER.client().zcard("emq:{x}:pending")));
        assertEquals(java.util.Set.of("{emq}:migration:a", "{emq}:migration:q", "{emq}:migration:x"),
                SERVER.client().keys("{emq}:migration:*"), "no second copy");
    }

    @Test
    void refusalsNameTheOptionThatLiftsThemAndExitThree() {
        load("node-5.65.1");
        CliRun r = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "orders", "--yes");
        assertEquals(3, r.code());
        assertTrue(r.out().contains("--drop-cron-schedulers"), r.out());
        CliRun locks = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "orders", "--drop-cron-schedulers", "--yes");
        assertEquals(3, locks.code());
        assertTrue(locks.out().contains("--wait-for-locks"), locks.out());
        assertEquals(null, SERVER.client().hget("bull:orders:meta", "paused"), "a refused fence leaves v1 unpaused");
    }

    @Test
    void usageAndConnectionErrorsExitTwo() {
        assertEquals(2, CliRun.of("migrate", "--source", SERVER.uri()).code());
        assertEquals(2, CliRun.of("migrate", "--source", "nope://x", "--all").code());
        CliRun down = CliRun.of("migrate", "--source", "redis://127.0.0.1:1", "--all");
        assertEquals(2, down.code());
        assertTrue(down.err().contains("127.0.0.1:1") && down.err().contains("check"), down.err());
        assertEquals(2, CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "q").code());
        assertEquals(3, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "nosuch", "--no-retire").code());
    }

    /** Values no parse can hold are bad usage, each named: not an internal error. */
    @Test
    void anEmptySeedANegativeDatabaseOrADurationTooLongToHoldIsABadUsage() {
        for (String uri : List.of(",", "127.0.0.1:6379,", "redis://127.0.0.1:6379/-1")) {
            CliRun bad = CliRun.of("discover", "--source", uri);
            assertEquals(ExitCodes.USAGE, bad.code(), uri + ": " + bad.all());
            assertTrue(bad.err().contains("no host in") || bad.err().contains("database '-1'"), bad.err());
        }
        CliRun noSuchDatabase = CliRun.of("discover", "--source", SERVER.uri() + "/99");
        assertEquals(ExitCodes.USAGE, noSuchDatabase.code(), noSuchDatabase.all());
        assertTrue(noSuchDatabase.err().contains("/99 has no such database (ERR DB index is out of range"), noSuchDatabase.err());
        for (String option : List.of("--lease", "--wait-for-locks")) {
            CliRun tooLong = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", option, "99999999999999999999h");
            assertEquals(ExitCodes.USAGE, tooLong.code(), tooLong.all());
            assertTrue(tooLong.err().contains(option + " takes a duration like 500ms, 30s or 2m, not '99999999999999999999h'"),
                    tooLong.err());
            CliRun overflow = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", option, "9223372036854775807h");
            assertEquals(ExitCodes.USAGE, overflow.code(), overflow.all());
        }
    }
}
