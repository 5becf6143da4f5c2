package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** Reports an operator can read and diff, empty results that say so, progress on standard error, the real entry point. */
class OperatorHabitsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    /** discover lists what there is: none is an answer (exit 0), said in its text, and with --json on standard error. */
    @Test
    void emptyResultsSaySoAndNameThePrefix() throws Exception {
        CliRun discover = CliRun.of("discover", "--source", SERVER.uri(), "--prefix", "echo", "--prefix", "bull");
        assertEquals(0, discover.code(), discover.all());
        String none = "no v1 queues under prefixes echo, bull on " + io.emq.migrate.wire.Endpoint.parse(SERVER.uri()).describe()
                + "; check --prefix, and --source (its database, /N)";
        assertTrue(discover.out().startsWith(none), discover.out());
        CliRun json = CliRun.of("discover", "--json", "--source", SERVER.uri(), "--prefix", "echo", "--prefix", "bull");
        assertEquals(0, json.code(), json.all());
        assertEquals("[]", Json.MAPPER.readTree(json.out()).path("queues").toString(), json.out());
        assertTrue(json.err().lines().anyMatch(("emq-migrate discover: " + none)::equals), json.all());
        SERVER.client().set("{emq}:version", "echomq:2.0.0"); // a v2 server given as the source
        try {
            CliRun v2 = CliRun.of("discover", "--source", SERVER.uri(), "--prefix", "echo", "--prefix", "bull");
            assertTrue(v2.out().contains(", which holds {emq}:version as a v2 server does (is it the target?); check --prefix"),
                    v2.out());
        } finally {
            SERVER.client().del("{emq}:version");
        }
    }

    /**
     * A v1 queue under a prefix not given shows as keys outside the prefixes, named with the --prefix that lists it (found
     * in the walk discover makes anyway); a v2 queue's meta hash, or keys without the evidence, are no such hint.
     */
    @Test
    void keysOutsideThePrefixesThatLookLikeAV1QueueNameTheirPrefix() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "bull", "orders", 1, 2, 20);
        V1QueueGenerator.addWaiting(SERVER.client(), "echo", "billing", 1, 3, 20);
        SERVER.client().hset("emq:{orders}:meta", "paused", "1");
        SERVER.client().set("cache:user:7", "x");
        CliRun discover = CliRun.of("discover", "--source", SERVER.uri());
        assertEquals(0, discover.code(), discover.all());
        assertTrue(discover.out().contains(" keys outside the prefixes (untouched); some look like v1 queues under prefix echo:"
                + " pass --prefix echo to list them"), discover.out());
        JsonNode json = Json.MAPPER.readTree(CliRun.of("discover", "--source", SERVER.uri(), "--json").out());
        assertEquals("[\"echo\"]", json.path("otherPrefixes").toString(), json.toString());
        CliRun both = CliRun.of("discover", "--source", SERVER.uri(), "--prefix", "bull", "--prefix", "echo");
        assertTrue(both.out().contains("keys outside the prefixes (untouched)\n"), "none left outside: " + both.out());
    }

    /**
     * plan and migrate of a --queue found under none of the prefixes given (a name, or PREFIX:QUEUE), or of a --rename whose
     * OLD is such a queue, name the prefix a queue of that name lies under (a v2 queue of the name, or a key of another
     * shape, is none), or else point to discover.
     */
    @Test
    void aQueueUnderAnotherPrefixIsNamedWithTheOptionThatFindsIt() {
        V1QueueGenerator.addWaiting(SERVER.client(), "echo", "billing", 1, 3, 20);
        SERVER.client().hset("emq:{billing}:meta", "paused", "1");
        SERVER.client().set("cache:billing:user", "x");
        String said = "no v1 queue named 'billing' under the prefix bull; one lies under the prefix echo: pass --prefix echo";
        for (CliRun r : List.of(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "billing"),
                CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "billing", "--yes"))) {
            assertEquals(ExitCodes.REFUSED, r.code(), r.all());
            assertTrue(r.err().contains(said), r.all());
        }
        assertEquals(ExitCodes.OK, CliRun.of("plan", "--source", SERVER.uri(), "--queue", "billing", "--prefix", "echo").code());
        for (CliRun r : List.of(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "echo:billing"), // PREFIX:QUEUE
                CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "echo:billing", "--yes"))) {
            assertEquals(ExitCodes.REFUSED, r.code(), r.all());
            assertTrue(r.err().contains("no v1 queue named 'echo:billing' under the prefix bull; one lies under the prefix echo:"
                    + " pass --prefix echo"), r.all());
        }
        V1QueueGenerator.addWaiting(SERVER.client(), "orders", 1, 2, 20);
        for (String old : List.of("billing", "echo:billing")) {
            String unknown = "--rename " + old + "=invoices names no v1 queue '" + old + "' under the prefix bull; one lies under"
                    + " the prefix echo: pass --prefix echo";
            for (CliRun r : List.of(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "orders", "--rename", old + "=invoices"),
                    CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "orders", "--rename", old + "=invoices", "--yes"))) {
                assertEquals(ExitCodes.REFUSED, r.code(), r.all());
                assertTrue(r.err().contains(unknown), r.all());
            }
        }
        CliRun none = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "user");
        assertTrue(none.err().contains("no v1 queue named 'user' under the prefix bull (`discover` lists them; check --prefix)"),
                none.all());
    }

    /**
     * plan and migrate of every queue (--all) on a source without one refuse (exit 3), nothing written, as a --queue that
     * names none does: a wrong prefix or database, or a v2 server given as the source, which they name as such. With
     * --json the refusal is the error document, its kind {@code no-such-queue}, as a script tells it from other refusals.
     */
    @Test
    void allOnASourceWithoutAV1QueueIsRefusedAndAV2ServerIsNamed() throws Exception {
        String empty = "no v1 queue under the prefix bull on the source; check --source (its database, /N) and"
                + " --prefix (`discover` lists the queues); nothing was written";
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--all");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.err().contains("emq-migrate plan: " + empty), plan.all());
        for (CliRun migrate : List.of(CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--no-retire", "--no-progress"),
                CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--no-progress"))) { // not confirmed: it looks first
            assertEquals(ExitCodes.REFUSED, migrate.code(), migrate.all());
            assertEquals(List.of("emq-migrate migrate: " + empty), migrate.err().lines().toList(), "the refusal alone: " + migrate.all());
        }
        assertNoQueueDocument("plan", CliRun.of("plan", "--json", "--source", SERVER.uri(), "--all"), empty);
        assertNoQueueDocument("migrate", CliRun.of("migrate", "--json", "--source", SERVER.uri(), "--all", "--yes"), empty);
        assertNoQueueDocument("migrate", CliRun.of("migrate", "--json", "--source", SERVER.uri(), "--all"), empty);
        for (CliRun named : List.of(CliRun.of("plan", "--json", "--source", SERVER.uri(), "--queue", "nosuch"),
                CliRun.of("migrate", "--json", "--source", SERVER.uri(), "--queue", "nosuch", "--yes"))) { // the same kind
            assertEquals(ExitCodes.REFUSED, named.code(), named.all());
            assertEquals("no-such-queue", Json.MAPPER.readTree(named.out()).path("error").path("refusal").asText(), named.out());
        }
        assertEquals(0, SERVER.client().dbSize(), "nothing written");

        V1QueueGenerator.addWaiting(SERVER.client(), "orders", 1, 3, 20);
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--yes").code());
        SERVER.client().keys("bull:*").forEach(SERVER.client()::del); // the tombstone retirement left: a v2 target alone now
        String before = new KeyspaceDump(SERVER.client()).digest();
        for (CliRun r : List.of(CliRun.of("plan", "--source", SERVER.uri(), "--all"),
                CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--yes"))) {
            assertEquals(ExitCodes.REFUSED, r.code(), r.all());
            assertTrue(r.err().contains("no v1 queue under the prefix bull on the source, which holds {emq}:version as a v2 server"
                    + " does (are --source and --target swapped?); check --source"), r.all());
        }
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "nothing written");
    }

    /**
     * migrate without --yes off a terminal finds the queues before it refuses to go on unconfirmed, and says how many queues
     * and jobs it was about to migrate (and retire), after the claim note, which concerns its first write; nothing written.
     */
    @Test
    void anUnconfirmedMigrationSaysHowManyQueuesAndJobsItWouldMove() {
        V1QueueGenerator.addWaiting(SERVER.client(), "orders", 1, 3, 20);
        V1QueueGenerator.addWaiting(SERVER.client(), "emails", 1, 2, 20);
        String before = new KeyspaceDump(SERVER.client()).digest();
        CliRun all = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--no-progress");
        assertEquals(ExitCodes.REFUSED, all.code(), all.all());
        List<String> lines = all.err().lines().toList();
        assertEquals(2, lines.size(), all.all());
        assertTrue(lines.get(0).startsWith("emq-migrate migrate: the target holds no {emq}:version"), all.all());
        assertEquals("emq-migrate migrate: migrate moves 2 v1 queues (5 jobs, completed ones aside) and retires the v1 source"
                + " of each queue it verifies: its v1 keys are deleted (add --no-retire to stop before that); nothing was done."
                + " Not on a terminal, so add --yes to confirm it", lines.get(1));
        CliRun one = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails");
        assertTrue(one.err().contains("migrate moves 1 v1 queue (2 jobs, completed ones aside)"), one.all());
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "nothing written");
    }

    private static void assertNoQueueDocument(String command, CliRun json, String message) throws Exception {
        assertEquals(ExitCodes.REFUSED, json.code(), json.all());
        JsonNode error = Json.MAPPER.readTree(json.out()).path("error");
        assertEquals(List.of(command, "3", "refused", "no-such-queue", message), List.of(error.path("command").asText(),
                error.path("exitCode").asText(), error.path("kind").asText(), error.path("refusal").asText(),
                error.path("message").asText()), json.out());
    }

    @Test
    void thePlanReportHidesEmptyRowsAndReadsLikeProse(@TempDir Path dir) throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "orders", "--preview", "3");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        String out = plan.out();
        assertFalse(Pattern.compile("(?m)^(paused|waiting-children) ").matcher(out).find(), "all-zero rows hidden: " + out);
        assertFalse(out.contains("=0") || out.contains("{") && !out.contains("emq:{"), "no Java map syntax: " + out);
        assertFalse(Pattern.compile("\\d{4,} bytes").matcher(out).find(), out);
        assertTrue(out.contains("rebrand preview: the first 3 of 19 jobs in serve order"), out);
        assertTrue(Pattern.compile("estimated v2 memory: [\\d.]+ KiB; dropped with the source: events 1").matcher(out).find(), out);
        assertTrue(out.contains("v2: counted 2, dead 2, held 1, pending 11, scheduled 3"), out);

        Path html = dir.resolve("plan.html");
        CliRun page = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--html", html.toString());
        assertEquals(ExitCodes.REFUSED, page.code(), page.all());
        String text = Files.readString(html);
        int summary = text.indexOf("<h2>Summary</h2>");
        assertTrue(summary > 0 && summary < text.indexOf("<h2>bull:emails"), "the summary comes first");
        int chart = text.indexOf("aria-label=\"jobs per state, v1 (listed), all queues and v2 (planned), all queues\"");
        assertTrue(chart > summary && chart < text.indexOf("<h2>bull:emails"), "with a chart of all jobs per state");
        assertTrue(text.contains("<td>bull:orders</td><td>orders</td><td class=\"num\">19</td><td class=\"no\">BLOCKED</td>"
                + "<td>live-lock (--wait-for-locks), cron-scheduler (--drop-cron-schedulers)"), text);
        assertTrue(text.contains("<td>bull:emails</td><td>emails</td><td class=\"num\">5</td><td>ready</td>"), text);
        for (String part : List.of("rebrand preview: the first 10 of 19", "<th>V2 KEY</th>", "estimated v2 memory: ",
                "payload policy: envelope", "<svg ")) {
            assertTrue(text.contains(part), part);
        }
    }

    @Test
    void planAndMigrateAgreeOnARename() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("legacy-and-foreign"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "{orders}", "--rename", "{orders}=orders-twin");
        assertTrue(plan.out().contains("--rename OLD=NEW (given)"), plan.out());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "{orders}", "--rename",
                "{orders}=orders-twin", "--no-retire");
        assertEquals(migrate.code(), plan.code(), plan.all() + "\n" + migrate.all());
        assertEquals(plan.code() == 0, plan.out().contains("emq:{orders-twin}  ready"), plan.out());
    }

    @Test
    void jsonIsTheSameFromRunToRun() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun first = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--json");
        CliRun second = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--json");
        Pattern ttl = Pattern.compile("(?mi)^.*ttl.*$"); // live lock and dedup TTLs tick between the runs
        assertEquals(ttl.matcher(first.out()).replaceAll(""), ttl.matcher(second.out()).replaceAll(""));
        assertTrue(first.out().indexOf("\"becomes\"") < first.out().indexOf("\"jobs\" : 4"), "maps built unordered print sorted");
        assertTrue(first.out().indexOf("\"invoice-77\"") < first.out().indexOf("\"receipt-9\""),
                "dedup keys print by id, in whatever order the key scan met them");
    }

    /** The run that retires after --no-retire moves only what v1 took in since: its progress ends at those, as all of its work. */
    @Test
    void aRunResumedAfterNoRetireEndsItsProgressAtTheJobsItMoved() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        io.emq.migrate.migrate.LiveV1.add(SERVER.client(), "emails").orElseThrow();
        io.emq.migrate.migrate.LiveV1.add(SERVER.client(), "emails").orElseThrow();
        CliRun r = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.err().contains("migrate: 2/2 jobs (100%)") && r.err().contains("(done)"), r.err());
        assertTrue(r.out().contains("1 of 1 queues done; 2 jobs moved"), r.out());
    }

    @Test
    void migrateShowsJobsNotStepsOnStandardErrorAndTheReportOnStandardOut() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun r = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.err().contains("migrate: 5/5 jobs (100%)") && r.err().contains("(done)"), r.err());
        assertFalse(r.err().contains("steps"), r.err());
        assertTrue(r.out().contains("1 of 1 queues done; 5 jobs moved"), r.out());
        assertFalse(r.out().contains("fence source"), "step lines are progress, not the report: " + r.out());
        CliRun quiet = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(0, quiet.code(), quiet.all());
        CliRun drain = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--dry-run", "--quiet");
        assertEquals("", drain.err(), "--quiet");
    }

    @Test
    void progressIsABarWhenStandardErrorIsATerminalEvenWithTheReportRedirected() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun r = CliRun.in(new Environment(java.util.Map.of(), Path.of("").toAbsolutePath(), false, true),
                "discover", "--source", SERVER.uri());
        assertEquals(0, r.code(), r.all());
        assertTrue(r.err().contains("\rscan [") && r.err().contains("] 73/73 keys (100%)"), r.err());
        CliRun off = CliRun.in(new Environment(java.util.Map.of(), Path.of("").toAbsolutePath(), false, true),
                "discover", "--source", SERVER.uri(), "--no-progress");
        assertEquals("", off.err());
    }

    @Test
    void everyCommandSpeaksJson() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire", "--json").code());
        JsonNode validate = Json.MAPPER.readTree(CliRun.of("validate", "--target", SERVER.uri(), "--json").out());
        assertTrue(validate.get("valid").asBoolean() && validate.get("queues").get(0).asText().equals("emails"), validate.toString());
        JsonNode repair = Json.MAPPER.readTree(CliRun.of("repair", "--target", SERVER.uri(), "--queue", "emails", "--json").out());
        assertEquals(0, repair.get("repaired").size(), repair.toString());
        JsonNode abandon = Json.MAPPER.readTree(CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails", "--yes",
                "--json").out());
        assertTrue(abandon.get("abandoned").asBoolean() && abandon.get("counts").get("rows").asLong() == 5, abandon.toString());
        CliRun conformance = CliRun.of("conformance", "--target", SERVER.uri(), "--json");
        assertEquals(0, conformance.code(), conformance.all());
        JsonNode conf = Json.MAPPER.readTree(conformance.out());
        assertTrue(conf.get("passed").asBoolean() && conf.get("scenarios").size() >= 32, conf.toString());
    }

    @Test
    void fixtureLoadWritesTheDemoKeyspaceButNeverOverIt() throws Exception {
        CliRun load = CliRun.of("fixture", "load", "--target", SERVER.uri(), "node-5.65.1");
        assertEquals(0, load.code(), load.all());
        assertTrue(load.out().startsWith("loaded the recorded v1 keyspace 'node-5.65.1': 73 keys under prefix bull"), load.out());
        CliRun again = CliRun.of("fixture", "load", "--target", SERVER.uri(), "node-5.65.1", "--json");
        assertEquals(ExitCodes.REFUSED, again.code(), again.all());
        assertTrue(Json.MAPPER.readTree(again.out()).get("error").get("message").asText().contains("already exists"), again.out());
        CliRun unknown = CliRun.of("fixture", "load", "--target", SERVER.uri(), "nope");
        assertEquals(ExitCodes.USAGE, unknown.code());
        assertTrue(unknown.err().contains("the fixtures are node-5.65.1, elixir-v1"), unknown.err());
    }

    @Test
    void theDemoKeepsItsServerWhenAskedAndNeverPrintsAFailingExitInAPassingRun() throws Exception {
        CliRun r = CliRun.of("demo", "--keep", "--json");
        assertEquals(0, r.code(), r.all());
        JsonNode doc = Json.MAPPER.readTree(r.out());
        assertTrue(doc.get("passed").asBoolean());
        assertEquals("plan", doc.get("stages").get(0).get("output").has("queues") ? "plan" : "?");
        String uri = doc.get("server").asText();
        try (Jedis kept = new Jedis(java.net.URI.create(uri))) {
            assertEquals(73, kept.dbSize(), "the scratch server still runs with the fixture");
            kept.shutdown();
        } catch (redis.clients.jedis.exceptions.JedisConnectionException closedByShutdown) {
            // SHUTDOWN closes the connection it came on
        }
        CliRun text = CliRun.of("demo");
        assertEquals(0, text.code(), text.all());
        assertFalse(text.out().contains("(exit"), text.out());
    }

    @Test
    void theRealEntryPointExitsWithItsCodesAndReadsTheEnvironment() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        Process help = process(List.of("plan", "--help"), null);
        assertEquals(0, help.waitFor());
        assertTrue(new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8).startsWith("usage: emq-migrate plan"));
        Process ghost = process(List.of("verify", "--queue", "ghost"), SERVER.uri());
        assertEquals(ExitCodes.REFUSED, ghost.waitFor());
        String err = new String(ghost.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("emq-migrate verify: queue ghost has no migration journal on this target (never migrated here, or `forget` deleted it"
                + " after its cutover); `info` lists those that have one\n", err);
        Process debug = process(List.of("verify", "--queue", "ghost", "--debug"), SERVER.uri());
        assertEquals(ExitCodes.REFUSED, debug.waitFor());
        assertTrue(new String(debug.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).contains("\tat io.emq.migrate"),
                "--debug shows the trace");
    }

    private static Process process(List<String> args, String target) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(new File("/dev/null"));
        pb.environment().keySet().removeIf(k -> k.startsWith("EMQ_"));
        if (target != null) {
            pb.environment().put("EMQ_TARGET", target);
        }
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI finished");
        return p;
    }
}
