package io.emq.migrate.v1;

import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.v1.plan.Rebrand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.cli.Main;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code discover} and {@code plan} against recorded fixtures: the JSON contract, refusals, exit codes. */
class PlanCommandTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    record Result(int code, String out, String err) {
        JsonNode json() {
            try {
                return MAPPER.readTree(out);
            } catch (java.io.IOException e) {
                throw new AssertionError("not JSON: " + out, e);
            }
        }
    }

    static Result run(boolean plan, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        String[] line = new String[args.length + 1];
        line[0] = plan ? "plan" : "discover";
        System.arraycopy(args, 0, line, 1, args.length);
        int code = Main.run(line, o, e);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Fixture load(String name) {
        Fixture f = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(name));
        return f;
    }

    private static String[] prefixArgs(Fixture f) {
        List<String> args = new ArrayList<>();
        f.prefixes().forEach(p -> {
            args.add("--prefix");
            args.add(p);
        });
        return args.toArray(new String[0]);
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "node-large-payload", "elixir-v1", "legacy-and-foreign"})
    void planJsonCarriesTheRequiredFieldsAndTheExpectedRefusals(String name) {
        Fixture f = load(name);
        Result r = run(true, concat(prefixArgs(f), "--source", SERVER.uri(), "--all", "--json"));
        JsonNode doc = r.json();
        boolean anyBlocked = false;
        for (JsonNode q : doc.path("queues")) {
            String queue = q.path("name").asText();
            JsonNode expect = f.expect().path("queues").path(queue);
            assertFalse(expect.isMissingNode(), "unexpected queue " + queue);
            List<String> states = new ArrayList<>();
            q.path("jobs").fieldNames().forEachRemaining(states::add);
            assertEquals(List.of("wait", "paused", "active", "prioritized", "delayed", "waiting-children", "completed", "failed"), states);
            for (String s : states) {
                assertEquals(expect.path("jobs").path(s).asLong(), q.path("jobs").path(s).asLong(), queue + " " + s);
            }
            for (JsonNode a : q.path("anomalies")) {
                assertTrue(a.has("key") && a.has("kind") && !a.path("reason").asText().isBlank(), a.toString());
            }
            Set<String> refusals = new TreeSet<>();
            for (JsonNode ref : q.path("refusals")) {
                assertTrue(ref.has("reason") && ref.path("jobs").isArray() && ref.path("option").asText().startsWith("--"), ref.toString());
                refusals.add(ref.path("kind").asText());
            }
            Set<String> expected = new TreeSet<>();
            expect.path("refusals").forEach(x -> expected.add(x.asText()));
            assertEquals(expected, refusals, queue + " refusals");
            assertEquals("envelope", q.path("payload").path("policy").asText());
            JsonNode first = q.path("rebrandPreview").path(0);
            if (!first.isMissingNode()) {
                assertEquals(Rebrand.jobId(Rebrand.idBase(q.path("v2Name").asText(queue)), 1), first.path("v2Id").asText());
            }
            assertTrue(q.path("estimatedBytes").asLong() > 0);
            anyBlocked |= q.path("anomalies").size() > 0 || q.path("refusals").size() > 0;
        }
        assertEquals(f.expect().path("queues").size(), doc.path("queues").size());
        assertEquals(anyBlocked ? 3 : 0, r.code(), r.err());
    }

    @Test
    void planScansTheKeyspaceOnceItsQueuesReadTheKeysDiscoveryMet() {
        SERVER.client().flushAll();
        Fixture f = load("legacy-and-foreign");
        SERVER.client().sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");
        Result r = run(true, concat(prefixArgs(f), "--source", SERVER.uri(), "--all", "--json"));
        assertTrue(r.json().path("queues").size() > 1, r.err());
        assertEquals(f.prefixes().size(), CommandStats.calls(SERVER.client(), "scan"), "one SCAN page a prefix (the fixture fits one), none a queue");
    }

    @Test
    void rebrandPreviewFollowsServeOrder() {
        Fixture f = load("node-5.65.1");
        JsonNode q = run(true, "--source", SERVER.uri(), "--queue", "emails", "--json", "--preview", "4").json().path("queues").path(0);
        List<String> v1 = new ArrayList<>();
        List<String> v2 = new ArrayList<>();
        q.path("rebrandPreview").forEach(e -> {
            v1.add(e.path("v1Id").asText());
            v2.add(e.path("v2Id").asText());
        });
        assertEquals(FixtureExpectationsTest.texts(f.expect().path("queues").path("emails").path("serveOrder")), v1);
        long base = Rebrand.idBase("emails");
        assertEquals(List.of(Rebrand.jobId(base, 1), Rebrand.jobId(base, 2), Rebrand.jobId(base, 3), Rebrand.jobId(base, 4)), v2);
        assertEquals(4, q.path("v2").path("pending").asLong());
        assertEquals(1, q.path("v2").path("scheduled").asLong());
    }

    @Test
    void optionsLiftRefusalsAndAQueueMigrateWouldAcceptExitsZeroWithItsAnomaliesReported() {
        load("node-5.65.1");
        for (List<String> waiting : List.of(List.of("--wait-for-locks"), List.of("--wait-for-locks", "2m"))) { // migrate's form too
            List<String> args = new java.util.ArrayList<>(List.of("--source", SERVER.uri(), "--queue", "orders", "--json"));
            args.addAll(waiting);
            args.add("--drop-cron-schedulers");
            Result r = run(true, args.toArray(String[]::new));
            JsonNode q = r.json().path("queues").path(0);
            q.path("refusals").forEach(ref -> assertTrue(ref.path("lifted").asBoolean(), ref.toString()));
            assertEquals("expired-lock", q.path("anomalies").path(0).path("kind").asText());
            assertFalse(q.path("blocked").asBoolean(), "migrate accepts it with these options, so the plan says so");
            assertEquals(0, r.code());
        }
        Result notADuration = run(true, "--source", SERVER.uri(), "--queue", "orders", "--wait-for-locks", "soon");
        assertEquals(2, notADuration.code(), "a value that is no duration is refused as migrate refuses it");
    }

    @Test
    void aCleanQueueExitsZeroAndARenameLiftsAnInvalidName() {
        load("legacy-and-foreign");
        assertEquals(0, run(true, "--source", SERVER.uri(), "--prefix", "echo", "--queue", "billing").code());
        Result renamed = run(true, "--source", SERVER.uri(), "--queue", "{orders}", "--rename", "{orders}=orders-twin", "--json");
        JsonNode q = renamed.json().path("queues").path(0);
        assertEquals("orders-twin", q.path("v2Name").asText());
        assertTrue(q.path("refusals").path(0).path("lifted").asBoolean());
        assertEquals("emq:{orders-twin}:job:<JOB id>", q.path("v2Keys").path(0).path("key").asText());
        assertTrue(q.path("servedBy").asText().startsWith("the flat pending set") && q.path("servedBy").asText()
                .contains("EchoMQ.Consumer claims only through lanes"), q.path("servedBy").asText());
    }

    @Test
    void discoverListsQueuesWithCountsAndForeignKeys() {
        load("legacy-and-foreign");
        Result r = run(false, "--source", SERVER.uri(), "--prefix", "bull", "--prefix", "echo", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode doc = r.json();
        Set<String> names = new TreeSet<>();
        doc.path("queues").forEach(q -> names.add(q.path("prefix").asText() + ":" + q.path("name").asText()));
        assertEquals(Set.of("bull:broken", "bull:legacy", "bull:{orders}", "echo:billing"), names);
        assertEquals(2, doc.path("foreignKeys").asLong());
        assertEquals(2, doc.path("keysOutsidePrefixes").asLong());
        Result text = run(false, "--source", SERVER.uri());
        assertTrue(text.out().contains("broken") && text.out().contains("WAITING-CHILDREN"), text.out());
    }

    @Test
    void usageAndConnectionFailuresExitTwoAndSayWhatToCheck() {
        Result noQueue = run(true, "--source", SERVER.uri());
        assertEquals(2, noQueue.code());
        assertTrue(noQueue.err().contains("--all"), noQueue.err());
        assertEquals(2, run(true, "--source", SERVER.uri(), "--all", "--payload", "zip").code());
        assertEquals(3, run(true, "--source", SERVER.uri(), "--queue", "nope").code(), "no such queue: refused, like migrate");
        int port;
        try (LocalServer gone = LocalServer.start()) {
            port = gone.port();
        }
        Result down = run(true, "--source", "redis://127.0.0.1:" + port, "--all");
        assertEquals(2, down.code());
        assertTrue(down.err().contains("127.0.0.1:" + port) && down.err().contains("check"), down.err());
        Result badUri = run(false, "--source", "http://x");
        assertEquals(2, badUri.code());
    }

}
