package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** Naming servers (flags, EMQ_* variables, the config file, seed lists), keeping secrets, and saying why a server failed. */
class ServersTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static String hostPort() {
        return SERVER.uri().substring("redis://".length());
    }

    private static Environment environment(Path directory, Map<String, String> variables) {
        return new Environment(variables, directory, false, false);
    }

    @Test
    void aFlagWinsOverTheEnvironmentWhichWinsOverTheConfigFile(@TempDir Path dir) throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        String down = "redis://127.0.0.1:1";
        Files.writeString(dir.resolve("emq-migrate.conf"), "# the v1 server\nsource=" + SERVER.uri() + "\n");
        CliRun fromFile = CliRun.in(environment(dir, Map.of()), "discover");
        assertEquals(0, fromFile.code(), fromFile.all());
        assertTrue(fromFile.out().contains("emails"), fromFile.out());

        CliRun envWins = CliRun.in(environment(dir, Map.of("EMQ_SOURCE", down)), "discover");
        assertEquals(ExitCodes.USAGE, envWins.code(), envWins.all());
        assertTrue(envWins.err().contains("127.0.0.1:1"), envWins.all());

        CliRun flagWins = CliRun.in(environment(dir, Map.of("EMQ_SOURCE", down)), "discover", "--source", SERVER.uri());
        assertEquals(0, flagWins.code(), flagWins.all());

        Files.writeString(dir.resolve("other.conf"), "target=" + SERVER.uri() + "\n");
        CliRun named = CliRun.in(environment(dir, Map.of()), "info", "--config", "other.conf");
        assertEquals(0, named.code(), named.all());
        assertTrue(named.out().contains("no migration journals"), named.out());

        Files.writeString(dir.resolve("bad.conf"), "sorce=" + SERVER.uri() + "\n");
        CliRun bad = CliRun.in(environment(dir, Map.of()), "discover", "--config", "bad.conf");
        assertEquals(ExitCodes.USAGE, bad.code());
        assertTrue(bad.err().contains("unknown setting 'sorce'"), bad.err());
        Files.writeString(dir.resolve("emq-migrate.conf"), "sorce=" + SERVER.uri() + "\n");
        CliRun key = CliRun.in(environment(dir, Map.of()), "key", "{emq}:version");
        assertEquals(0, key.code(), "a command that names no server reads no config file: " + key.all());
        CliRun missing = CliRun.in(environment(dir, Map.of()), "discover", "--config", "nosuch.conf");
        assertEquals(ExitCodes.USAGE, missing.code());
        assertTrue(missing.err().contains("--config: no file"), missing.err());
    }

    @Test
    void seedsWithoutASchemeAreAcceptedAndSeedsOfAStandaloneServerSaySo() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun schemeless = CliRun.of("discover", "--source", hostPort());
        assertEquals(0, schemeless.code(), schemeless.all());
        CliRun seeds = CliRun.of("info", "--target", hostPort() + "," + hostPort());
        assertEquals(ExitCodes.USAGE, seeds.code(), seeds.all());
        assertTrue(seeds.err().contains("is not a cluster (cluster support is disabled there)")
                && seeds.err().contains("give one seed"), seeds.err());
    }

    /** A port where another service answers (an HTTP server): the message says it does not speak the Redis protocol. */
    @Test
    void aServiceThatIsNotRedisIsNamedSo() throws Exception {
        try (java.net.ServerSocket http = new java.net.ServerSocket(0)) {
            Thread answering = new Thread(() -> {
                while (!http.isClosed()) {
                    try (java.net.Socket s = http.accept()) {
                        s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes());
                        s.getOutputStream().flush();
                        Thread.sleep(200);
                    } catch (Exception closed) {
                        return;
                    }
                }
            });
            answering.setDaemon(true);
            answering.start();
            CliRun r = CliRun.of("discover", "--source", "redis://127.0.0.1:" + http.getLocalPort());
            assertEquals(ExitCodes.USAGE, r.code(), r.all());
            assertTrue(r.err().contains("does not speak the Redis protocol") && r.err().contains("check the host and port"), r.err());
        }
    }

    /** A target whose rename-command disabled SCRIPT: the refusal names the command and what to do, not only the server's words. */
    @Test
    void aCommandTheTargetDisabledIsNamedWithWhatToDo() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        try (LocalServer scriptless = LocalServer.start(LocalServer.requireBinary(), java.util.List.of("--rename-command", "SCRIPT", ""))) {
            CliRun r = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--target", scriptless.uri(), "--queue", "emails");
            assertEquals(ExitCodes.USAGE, r.code(), r.all());
            assertTrue(r.err().contains("unknown command") && r.err().contains("that server does not know SCRIPT (its rename-command"
                    + " setting renamed or disabled it, or it is too old): emq-migrate needs it"), r.err());
        }
        assertEquals("bullmq:5.65.1", SERVER.client().hget("bull:emails:meta", "version"), "v1 untouched");
    }

    @Test
    void anUnreachableServerSaysNothingListensThereAndNotToCheckCredentials() {
        int port;
        try (LocalServer gone = LocalServer.start()) {
            port = gone.port();
        }
        CliRun r = CliRun.of("discover", "--source", "127.0.0.1:" + port);
        assertEquals(ExitCodes.USAGE, r.code(), r.all());
        assertTrue(r.err().contains("nothing accepts connections at redis://127.0.0.1:" + port + " (connection refused)"),
                r.err());
        assertFalse(r.err().toLowerCase().contains("password") || r.err().contains("credentials"), r.err());
    }

    /** rediss:// to a port without TLS: the server waits for a line the handshake never sends; the message says what to write. */
    @Test
    void aTlsUriForAPortWithoutTlsSaysToWriteRedis() {
        CliRun r = CliRun.of("discover", "--source", "rediss://" + hostPort());
        assertEquals(ExitCodes.USAGE, r.code(), r.all());
        assertTrue(r.err().contains("did not answer the TLS handshake") && r.err().contains("write the URI as redis://"), r.err());
    }

    @Test
    void anUnknownHostIsNamed() {
        CliRun r = CliRun.of("discover", "--source", "redis://no-such-host.invalid:6379");
        assertEquals(ExitCodes.USAGE, r.code(), r.all());
        assertTrue(r.err().contains("the host of redis://no-such-host.invalid:6379 is unknown: check the host name in --source"), r.err());
    }

    /**
     * A command refused to the user when the server is opened (outside any step) names the rule it lacks, read from the
     * server's words, as a step's error does.
     */
    @Test
    void aPermissionRefusedAtConnectNamesTheRuleToGrant() {
        try (LocalServer server = LocalServer.start()) {
            try (Jedis admin = new Jedis(server.hostAndPort())) {
                admin.aclSetUser("nodbsize", "on", ">pw", "~*", "&*", "+@all", "-dbsize");
            }
            String uri = "redis://nodbsize:pw@127.0.0.1:" + server.port();
            CliRun r = CliRun.of("discover", "--source", uri);
            assertEquals(ExitCodes.USAGE, r.code(), r.all());
            assertTrue(r.err().contains(" refused a command to this user: NOPERM") && r.err().contains("'dbsize'")
                    && r.err().contains("; grant that server's ACL user +dbsize (MIGRATION.md, least privilege)"), r.err());
        }
    }

    /**
     * A source user without {@code +scan} runs migrate: the discovery's first {@code SCAN} is refused, and the message names
     * the source as the operator gave it (no password) and the rule to grant it. Before, "a server answered an error".
     */
    @Test
    void aSourceUserWithoutScanIsToldItIsTheSourcesUser() {
        try (LocalServer source = LocalServer.start(); LocalServer target = LocalServer.start()) {
            try (Jedis admin = new Jedis(source.hostAndPort())) {
                admin.aclSetUser("noscan", "on", ">pw", "~*", "&*", "+@all", "-scan");
                admin.lpush("bull:q:wait", "1");
            }
            CliRun r = CliRun.of("migrate", "--source", "redis://noscan:pw@127.0.0.1:" + source.port(), "--target", target.uri(),
                    "--queue", "q", "--yes");
            assertEquals(ExitCodes.USAGE, r.code(), r.all());
            assertTrue(r.err().contains("emq-migrate migrate: the source redis://noscan@127.0.0.1:" + source.port() + " refused a"
                    + " command to this user: NOPERM") && r.err().contains("; grant that server's ACL user +scan"), r.err());
            assertFalse(r.all().contains(":pw@"), r.all());
        }
    }

    /** A user that may only read runs migrate: the first write is refused, the message names the rule, v1 keeps every key. */
    @Test
    void aUserThatMayOnlyReadIsToldWhatAMigrationNeedsAndV1IsIntact() {
        try (LocalServer server = LocalServer.start()) {
            try (Jedis admin = new Jedis(server.hostAndPort())) {
                admin.aclSetUser("reader", "on", ">pw", "~*", "&*", "+@read", "+@connection", "+info", "+scan", "+client");
                admin.hset("bull:q:1", Map.of("name", "n", "data", "{}", "timestamp", "1"));
                admin.lpush("bull:q:wait", "1");
            }
            String uri = "redis://reader:pw@127.0.0.1:" + server.port();
            CliRun plan = CliRun.of("plan", "--source", uri, "--queue", "q");
            assertEquals(0, plan.code(), "a dry run needs only reads: " + plan.all());
            CliRun r = CliRun.of("migrate", "--yes", "--source", uri, "--target", uri, "--queue", "q");
            assertEquals(ExitCodes.USAGE, r.code(), r.all());
            assertTrue(r.err().contains("NOPERM") && r.err().contains("; grant that server's ACL user +set (MIGRATION.md, least privilege)"), r.err());
            try (Jedis admin = new Jedis(server.hostAndPort())) {
                assertEquals(Set.of("bull:q:1", "bull:q:wait"), admin.keys("*"), "nothing written, nothing deleted");
            }
        }
    }

    @Test
    void aPasswordIsAskedForNamedWhenWrongAndNeverPrinted(@TempDir Path dir) throws Exception {
        try (LocalServer locked = LocalServer.start()) {
            try (Jedis admin = new Jedis(locked.hostAndPort())) {
                admin.hset("bull:q:1", Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1")); // a queue to plan
                admin.lpush("bull:q:wait", "1");
                admin.configSet("requirepass", "pa/ss%w");
            }
            String hp = "127.0.0.1:" + locked.port();
            CliRun none = CliRun.of("discover", "--source", "redis://" + hp);
            assertEquals(ExitCodes.USAGE, none.code(), none.all());
            assertTrue(none.err().contains("requires a password and none was given") && none.err().contains("EMQ_SOURCE_PASSWORD"),
                    none.err());
            for (String[] args : new String[][] {{"discover", "--source", "redis://pa%2Fss%25w@" + hp},
                    {"discover", "--source", "redis://pa%2Fss%25w@" + hp, "--json"}}) { // the password where redis-cli reads it
                CliRun userSlot = CliRun.of(args);
                assertEquals(ExitCodes.USAGE, userSlot.code(), userSlot.all());
                assertTrue(userSlot.all().contains("redis://***@" + hp + " requires a password and none was given")
                        && userSlot.all().contains("for a password alone write redis://:PASSWORD@host"), userSlot.all());
                assertFalse(userSlot.all().contains("pa/ss") || userSlot.all().contains("pa%2Fss"), userSlot.all());
            }
            CliRun wrong = CliRun.of("discover", "--source", "redis://default:wr/ong@" + hp);
            assertEquals(ExitCodes.USAGE, wrong.code(), wrong.all());
            assertTrue(wrong.err().contains("refused the user name and password"), wrong.err());
            assertFalse(wrong.err().contains("wr/ong"), wrong.err());

            String uri = "redis://default:pa%2Fss%25w@" + hp;
            CliRun right = CliRun.of("discover", "--source", uri, "--json");
            assertEquals(0, right.code(), right.all());
            JsonNode doc = Json.MAPPER.readTree(right.out());
            assertEquals("redis://default@" + hp, doc.get("source").asText());
            CliRun fromEnv = CliRun.in(environment(dir, Map.of("EMQ_SOURCE", "redis://" + hp, "EMQ_SOURCE_PASSWORD", "pa/ss%w")),
                    "discover");
            assertEquals(0, fromEnv.code(), fromEnv.all());

            Path html = dir.resolve("plan.html");
            CliRun plan = CliRun.of("plan", "--source", uri, "--all", "--html", html.toString(), "--json");
            assertEquals(0, plan.code(), plan.all());
            for (String printed : new String[] {plan.out(), plan.err(), Files.readString(html)}) {
                assertFalse(printed.contains("pa/ss") || printed.contains("pa%2Fss"), printed);
            }
            assertTrue(Files.readString(html).contains("source redis://default@" + hp), "the page names the server");
        }
    }

    @Test
    void serverTextWithTerminalEscapesIsPrintedEscaped() {
        try (Jedis node = SERVER.node(SERVER.nodes().get(0))) {
            node.hset("bull:evil\u001b[2J:meta", "version", "bullmq:5.65.1");
            node.rpush("bull:evil\u001b[2J:wait", "1");
            node.hset("bull:evil\u001b[2J:1", Map.of("name", "n", "data", "{}", "timestamp", "1"));
        }
        CliRun r = CliRun.of("discover", "--source", SERVER.uri());
        assertEquals(0, r.code(), r.all());
        assertFalse(r.out().contains("\u001b"), "raw escape printed: " + r.out());
        assertTrue(r.out().contains("evil"), r.out());
    }
}
