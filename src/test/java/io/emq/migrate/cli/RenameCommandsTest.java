package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    private static Map<String, JsonNode> byV1Queue(CliRun run) throws Exception {
        Map<String, JsonNode> out = new HashMap<>();
        Json.MAPPER.readTree(run.out()).path("queues").forEach(q -> out.put(q.path("v1").asText(), q));
        return out;
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
        Map<String, JsonNode> r = byV1Queue(migrate);
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

    @Test
    void twoRenamesOntoOneNameAreBothRefused() throws Exception {
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--json", "--yes",
                "--rename", "reports 2024=merged", "--rename", "small=merged");
        assertEquals(3, migrate.code());
        byV1Queue(migrate).values().forEach(q -> assertEquals("name-taken", q.path("refusal").path("kind").asText(), q.toString()));
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
        assertEquals("name-taken", byV1Queue(migrate).get("bull:small").path("refusal").path("kind").asText());
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
}
