package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.plan.RenameArgument;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code --rename OLD=NEW} as plan and migrate read it: a v2 name belongs to one v1 queue, a rename
 * onto a name another v1 queue or an existing v2 queue holds is refused by both with v1 untouched,
 * a rename of no v1 queue is refused before anything is read or written, and a rename migrate accepts
 * is one plan calls ready.
 */
class RenameCommandsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void twoQueues() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "reports 2024", 1, 4, 40);
        V1QueueGenerator.addWaiting(SERVER.client(), "small", 1, 3, 40);
    }

    @Test
    void aRenameOntoTheNameOfAnotherV1QueueIsRefusedByPlanAndMigrateAndLosesNothing() throws Exception {
        java.util.Set<String> reportsBefore = SERVER.client().keys("bull:reports 2024:*");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "reports 2024", "--rename", "reports 2024=small");
        assertEquals(3, plan.code(), plan.out() + plan.err());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("name-taken")
                && plan.out().contains("also the v2 name of v1 queue bull:small"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--rename", "reports 2024=small", "--json", "--yes");
        assertEquals(3, migrate.code(), migrate.out() + migrate.err());
        Map<String, JsonNode> r = migrate.queuesByV1();
        assertEquals("refused", r.get("bull:reports 2024").path("outcome").asText());
        assertEquals("name-taken", r.get("bull:reports 2024").path("refusal").path("kind").asText());
        assertEquals("retired", r.get("bull:small").path("outcome").asText(), "small keeps its own name");
        assertEquals(reportsBefore, SERVER.client().keys("bull:reports 2024:*"), "the refused queue keeps every key");
        assertEquals(4, SERVER.client().llen("bull:reports 2024:wait"));
        assertEquals(null, SERVER.client().hget("bull:reports 2024:meta", "paused"));
        assertEquals(3, SERVER.client().zcard("emq:{small}:pending"), "small's own three jobs, no more, none lost");
        CliRun verify = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "small");
        assertEquals(0, verify.code(), verify.out() + verify.err());
    }

    /** The rename a refusal of an invalid v1 name suggests is quoted for a shell (the name holds a space), and works as shown. */
    @Test
    void theRenameSuggestedForAnInvalidNameIsOneAShellPassesWhole() {
        CliRun refused = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "reports 2024", "--yes");
        assertEquals(3, refused.code(), refused.all());
        assertTrue(refused.out().contains("pass --rename 'reports 2024=NEW'"), refused.out());
        assertEquals("--rename 'it'\\''s=NEW'", RenameArgument.suggested("it's", "NEW"));
        assertEquals("--rename small=NEW", RenameArgument.suggested("small", "NEW"));
        CliRun renamed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "reports 2024", "--rename", "reports 2024=NEW",
                "--yes");
        assertEquals(0, renamed.code(), renamed.all());
        assertEquals(4, SERVER.client().zcard("emq:{NEW}:pending"));
    }

    @Test
    void twoRenamesOntoOneNameAreBothRefused() throws Exception {
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--json", "--yes",
                "--rename", "reports 2024=merged", "--rename", "small=merged");
        assertEquals(3, migrate.code());
        migrate.queuesByV1().values().forEach(q -> assertEquals("name-taken", q.path("refusal").path("kind").asText(), q.toString()));
        assertEquals(4, SERVER.client().llen("bull:reports 2024:wait"));
        assertEquals(3, SERVER.client().llen("bull:small:wait"));
        assertTrue(SERVER.client().keys("emq:{merged}:*").isEmpty(), "nothing written under the contested name");
    }

    @Test
    void aRenameOntoAnExistingV2QueueIsRefusedAndTheV2QueueKeepsItsJobs() throws Exception {
        Jobs.on(Wire.open(SERVER.client()), "live").enqueue("v2 work".getBytes(StandardCharsets.UTF_8));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "small",
                "--rename", "small=live");
        assertEquals(3, plan.code(), plan.out() + plan.err());
        assertTrue(plan.out().contains("v2 queue 'live' already exists on the target"), plan.out());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=live", "--json", "--yes");
        assertEquals(3, migrate.code());
        assertEquals("name-taken", migrate.queuesByV1().get("bull:small").path("refusal").path("kind").asText());
        assertEquals(1, SERVER.client().zcard("emq:{live}:pending"));
        assertEquals(3, SERVER.client().llen("bull:small:wait"));
        assertEquals(null, SERVER.client().hget("bull:small:meta", "paused"), "v1 was not even paused");
    }

    @Test
    void aRenameOfNoV1QueueIsRefusedAsAQueueOfNoV1QueueIs() {
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--rename", "smal=tiny");
        assertEquals(3, plan.code());
        assertTrue(plan.err().contains("--rename smal=tiny names no v1 queue 'smal'"), plan.err());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--rename", "smal=tiny", "--yes");
        assertEquals(3, migrate.code());
        assertTrue(migrate.err().contains("names no v1 queue 'smal'"), migrate.err());
        assertEquals(null, SERVER.client().hget("bull:small:meta", "paused"));
    }

    @Test
    void aRenameMigrateAcceptsIsOnePlanCallsReady() {
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "reports 2024", "--rename", "reports 2024=reports-2024");
        assertEquals(0, plan.code(), plan.out() + plan.err());
        assertTrue(plan.out().contains("-> v2 emq:{reports-2024}  ready"), plan.out());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "reports 2024", "--rename",
                "reports 2024=reports-2024", "--yes");
        assertEquals(0, migrate.code(), migrate.out() + migrate.err());
        assertEquals(4, SERVER.client().zcard("emq:{reports-2024}:pending"));
        CliRun again = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=reports-2024");
        assertEquals(3, again.code(), "the name now holds the migration of bull:reports 2024");
        assertTrue(again.out().contains("holds the migration of v1 queue bull:reports 2024"), again.out());
    }

    @Test
    void aQueueMigratingUnderOneNameIsRefusedUnderAnotherUntilThatMigrationIsAbandoned() throws Exception {
        CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--no-retire");
        assertEquals(0, first.code(), first.out() + first.err());
        assertEquals(3, SERVER.client().zcard("emq:{small}:pending"), "the first copy, kept paused beside v1");

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=other");
        assertEquals(3, plan.code(), plan.out() + plan.err());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("migrating-elsewhere")
                && plan.out().contains("is being migrated on the target as v2 queue 'small'"), plan.out());
        CliRun second = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=other", "--json", "--yes");
        assertEquals(3, second.code(), second.out() + second.err());
        JsonNode refused = second.queuesByV1().get("bull:small");
        assertEquals("migrating-elsewhere", refused.path("refusal").path("kind").asText(), refused.toString());
        assertTrue(refused.path("refusal").path("reason").asText().contains("emq-migrate abandon --queue small"), refused.toString());
        assertTrue(SERVER.client().keys("emq:{other}:*").isEmpty(), "no second copy");
        assertEquals(3, SERVER.client().llen("bull:small:wait"), "v1 as it was");

        CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "small", "--yes");
        assertEquals(0, abandon.code(), abandon.out() + abandon.err());
        CliRun lookup = CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "small", "--all");
        assertEquals(3, lookup.code(), lookup.out() + lookup.err());
        assertTrue(lookup.err().contains("the migration of queue small was abandoned on this target"), lookup.err());
        CliRun renamed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=other", "--yes");
        assertEquals(0, renamed.code(), renamed.out() + renamed.err());
        assertEquals(3, SERVER.client().zcard("emq:{other}:pending"), "once the first was abandoned");
        assertEquals(0, SERVER.client().zcard("emq:{small}:pending"));
    }

    @Test
    void aQueueMigratingUnderARenameIsRefusedByARunThatForgetsIt() throws Exception {
        CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=renamed", "--no-retire");
        assertEquals(0, first.code(), first.out() + first.err());
        for (String[] plan : new String[][] {{"--queue", "small"}, {"--queue", "small", "--rename", "small=third"}, {"--all"}}) {
            CliRun foreseen = CliRun.of(Stream.concat(Stream.of("plan", "--source", SERVER.uri()), Stream.of(plan)).toArray(String[]::new));
            assertEquals(3, foreseen.code(), foreseen.all());
            assertTrue(foreseen.out().contains("migrating-elsewhere") && foreseen.out().contains("as v2 queue 'renamed'"), foreseen.out());
        }
        CliRun forgot = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--json", "--yes");
        assertEquals(3, forgot.code(), forgot.out() + forgot.err());
        JsonNode refused = forgot.queuesByV1().get("bull:small");
        assertEquals("migrating-elsewhere", refused.path("refusal").path("kind").asText(), refused.toString());
        assertTrue(refused.path("refusal").path("reason").asText().contains("with --rename bull:small=renamed"), refused.toString());
        assertTrue(SERVER.client().keys("emq:{small}:*").isEmpty(), "no second copy");
        assertEquals(3, SERVER.client().llen("bull:small:wait"), "v1 as it was");
        CliRun resumed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--rename", "small=renamed", "--yes");
        assertEquals(0, resumed.code(), resumed.out() + resumed.err());
        assertEquals(3, SERVER.client().zcard("emq:{renamed}:pending"));
    }

    @Test
    void aQueueOfTheSameNameOnAnotherSourceMayMigrateUnderAnotherName() {
        try (LocalServer other = LocalServer.start(); UnifiedJedis otherClient = Endpoint.parse(other.uri()).open()) {
            V1QueueGenerator.addWaiting(otherClient, "small", 1, 2, 40);
            CliRun first = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--no-retire");
            assertEquals(0, first.code(), first.out() + first.err());
            CliRun merged = CliRun.of("migrate", "--source", other.uri(), "--target", SERVER.uri(), "--queue", "small",
                    "--rename", "small=small-eu", "--yes");
            assertEquals(0, merged.code(), merged.out() + merged.err());
            assertEquals(2, SERVER.client().zcard("emq:{small-eu}:pending"), "the other server's bull:small is another queue");
        }
    }

    @Test
    void aRenameToAnInvalidNameOrOfOneQueueTwiceIsABadUsageNamingIt() {
        for (List<String> command : List.of(List.of("plan"), List.of("migrate", "--yes"))) {
            CliRun invalid = CliRun.of(Stream.concat(command.stream(), Stream.of("--source", SERVER.uri(),
                    "--queue", "small", "--rename", "small=a b")).toArray(String[]::new));
            assertEquals(2, invalid.code(), invalid.out() + invalid.err());
            assertTrue(invalid.err().contains("--rename small=a b: the new name is not a valid v2 name (queue name 'a b' must match"),
                    invalid.err());
            CliRun twice = CliRun.of(Stream.concat(command.stream(), Stream.of("--source", SERVER.uri(),
                    "--queue", "small", "--rename", "small=x", "--rename", "small=y")).toArray(String[]::new));
            assertEquals(2, twice.code(), twice.out() + twice.err());
            assertTrue(twice.err().contains("--rename names 'small' twice (=x and =y)"), twice.err());
        }
        assertEquals(null, SERVER.client().hget("bull:small:meta", "paused"));
        assertTrue(SERVER.client().keys("emq:*").isEmpty(), "nothing written");
    }
}
