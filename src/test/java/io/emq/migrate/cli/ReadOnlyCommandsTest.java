package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Nothing that only reads may write, and nothing may pass that did not run (issue 11 §3). */
class ReadOnlyCommandsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static String digest() {
        return new KeyspaceDump(SERVER.client()).digest();
    }

    @Test
    void aQueueThatWasNeverMigratedIsRefusedByEveryCommandAndNothingIsWritten() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        String before = digest();
        String uri = SERVER.uri();
        List<String[]> lines = List.of(
                new String[] {"repair", "--target", uri, "--queue", "ghost"},
                new String[] {"verify", "--target", uri, "--queue", "ghost"},
                new String[] {"validate", "--target", uri, "--queue", "ghost"},
                new String[] {"lookup", "--target", uri, "--queue", "ghost", "--all"},
                new String[] {"drain", "--target", uri, "--queue", "ghost"},
                new String[] {"drain", "--target", uri, "--queue", "ghost", "--dry-run"},
                new String[] {"info", "--target", uri, "--queue", "ghost"},
                new String[] {"abandon", "--source", uri, "--queue", "ghost", "--yes"},
                new String[] {"repair", "--target", uri, "--queue", "ghost"});
        for (String[] line : lines) {
            CliRun r = CliRun.of(line);
            assertEquals(ExitCodes.REFUSED, r.code(), String.join(" ", line) + "\n" + r.all());
            assertTrue(r.err().contains("queue ghost has no migration journal on this target (never migrated here, or `forget` deleted it after its cutover); `info` lists those that have one"),
                    r.all());
        }
        assertEquals(before, digest(), "nothing was written");
        assertNull(SERVER.client().get(Keys.VERSION), "not even the version fence");
    }

    /**
     * verify is a dry run: a user limited to {@code +@read} on both sides verifies a copy against its source (it read the
     * target's journal through the migration's script, refused NOPERM), and the keyspace is unchanged.
     */
    @Test
    void aReadOnlyUserVerifiesACopyAgainstItsSourceAndWritesNothing() {
        io.emq.migrate.migrate.V1QueueGenerator.addWaiting(SERVER.client(), "small", 1, 5, 40);
        assertEquals(ExitCodes.OK, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--no-retire").code());
        SERVER.client().sendCommand(redis.clients.jedis.Protocol.Command.ACL, "SETUSER", "reader", "reset", "on", ">read-only-pw",
                "~*", "+@read", "+client|setname");
        java.net.URI server = java.net.URI.create(SERVER.uri());
        String reader = "redis://reader:read-only-pw@" + server.getHost() + ":" + server.getPort();
        String before = digest();
        CliRun verify = CliRun.of("verify", "--source", reader, "--target", reader, "--queue", "small");
        assertEquals(ExitCodes.OK, verify.code(), verify.all());
        assertTrue(verify.out().contains("source compared") && verify.out().contains("VERIFIED small"), verify.out());
        assertEquals(before, digest(), "nothing was written");
    }

    @Test
    void aFailedMigrateOfAnUnknownQueueLeavesNoVersionFence() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        String before = digest();
        CliRun r = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "nosuch", "--no-retire");
        assertEquals(ExitCodes.REFUSED, r.code(), r.all());
        assertTrue(r.err().contains("no v1 queue named 'nosuch'"), r.all());
        assertEquals(before, digest());
        assertNull(SERVER.client().get(Keys.VERSION));
    }

    @Test
    void aRefusedMigrationIsNotDrainedAsAPass() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "orders", "--no-retire");
        assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
        CliRun drain = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "orders");
        assertEquals(ExitCodes.REFUSED, drain.code(), drain.all());
        assertTrue(drain.err().contains("queue orders was never migrated on this target: its runs were refused (or stopped) at"
                + " the first step, V10 fence source, before they wrote anything but its journal"), drain.all());
        assertFalse(drain.out().contains("PASS"), drain.out());
    }

    @Test
    void destructiveStepsOffATerminalNeedYesAndSayWhy() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        String before = digest();
        CliRun retire = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, retire.code(), retire.all());
        assertTrue(retire.err().contains("retires the v1 source") && retire.err().contains("add --yes"), retire.all());
        assertEquals(before, digest(), "refused before anything was written");

        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        String migrated = digest();
        CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, abandon.code(), abandon.all());
        assertTrue(abandon.err().contains("deletes every job the migration wrote") && abandon.err().contains("--yes"),
                abandon.all());
        CliRun resume = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume");
        assertEquals(ExitCodes.REFUSED, resume.code(), resume.all());
        assertTrue(resume.err().contains("whose v1 source holds the same jobs: v1 would run them too") && resume.err().contains("--yes"),
                resume.all());
        assertEquals(migrated, digest(), "neither abandoned nor drained");
        assertEquals(0, CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails", "--yes").code());
    }

    @Test
    void aTerminalAsksAndAnAnswerOtherThanYesDoesNothing() {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        String before = digest();
        java.io.InputStream stdin = System.in;
        try {
            System.setIn(new java.io.ByteArrayInputStream("no\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            CliRun r = CliRun.in(new Environment(java.util.Map.of(), java.nio.file.Path.of("").toAbsolutePath(), true, false),
                    "migrate", "--source", SERVER.uri(), "--queue", "emails");
            assertEquals(ExitCodes.REFUSED, r.code(), r.all());
            assertTrue(r.err().contains("Type yes to go on") && r.err().contains("migrate: not confirmed (the answer was not yes); nothing was done"), r.all());
            assertFalse(r.err().contains("migrate: migrate:"), r.all()); // the command is named once
        } finally {
            System.setIn(stdin);
        }
        assertEquals(before, digest());
    }

    /**
     * A plan lists the first thousand anomalies of a kind and says how many more there are, so a badly damaged queue
     * reads as one; a malformed --rename is a usage error naming the form.
     */
    @Test
    void aPlanOfThousandsOfAnomaliesListsAThousandAndCountsTheRest() {
        SERVER.client().flushAll();
        SERVER.client().hset("bull:broken:meta", java.util.Map.of("version", "bullmq:5.65.1"));
        String[] ids = java.util.stream.IntStream.rangeClosed(1, 1005).mapToObj(Integer::toString).toArray(String[]::new);
        SERVER.client().lpush("bull:broken:wait", ids); // listed, without hashes: missing-hash each
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "broken");
        assertEquals(0, plan.code(), "missing-hash migrates with a warning: " + plan.err());
        List<String> rows = plan.out().lines().filter(l -> l.startsWith("missing-hash")).toList();
        assertEquals(1001, rows.size());
        assertTrue(rows.get(1000).matches("missing-hash\\s+\\(5 more\\)\\s+not listed: 1,005 in all\\s+migrate-with-warning"), rows.get(1000));
        CliRun rename = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "broken", "--rename", "broken=");
        assertEquals(ExitCodes.USAGE, rename.code(), rename.all());
        assertTrue(rename.err().contains("--rename takes OLD=NEW, not 'broken='"), rename.err());
    }
}
