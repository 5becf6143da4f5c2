package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
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
        assertTrue(unknown.out().contains("no mapping for that id in emails"), unknown.out());

        CliRun malformed = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--job-id", "JOB-not-an-id");
        assertEquals(ExitCodes.USAGE, malformed.code(), malformed.all());
        assertTrue(malformed.err().contains("--job-id JOB-not-an-id is not a branded id ("), malformed.err());
        CliRun both = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "emails", "--job-id", v2, "--all");
        assertEquals(ExitCodes.USAGE, both.code(), both.all());
        assertTrue(both.err().contains("give exactly one of --v1-id ID, --job-id ID, --all"), both.err());

        CliRun lease = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lease", "soon");
        assertEquals(ExitCodes.USAGE, lease.code(), lease.all());
        assertTrue(lease.err().contains("--lease takes a duration like 500ms, 30s or 2m, not 'soon'"), lease.err());
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--lease", "PT20S", "--yes").code(),
                "an ISO-8601 duration is taken too");
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
}
