package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A v1 structure of the wrong type that the migration itself writes: a meta that is not a hash is refused by plan
 * and migrate alike, nothing written, with the fix named; a paused that is not a list is dropped with the source, as
 * the plan says, and the queue migrates (the pause's script fails on nothing after its first write).
 */
class DamagedStructuresTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void aQueueOfFiveWaitingJobs() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "small", 1, 5, 40);
    }

    @Test
    void aMetaThatIsNotAHashIsRefusedByPlanAndMigrateWithTheFixAndNothingWritten() throws Exception {
        SERVER.client().del("bull:small:meta");
        SERVER.client().sadd("bull:small:meta", "paused");
        String before = new KeyspaceDump(SERVER.client()).digest();

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "small");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("damaged-meta")
                && plan.out().contains("RENAME bull:small:meta bull:small:meta.damaged"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--json", "--yes");
        assertEquals(3, migrate.code(), migrate.all());
        JsonNode refused = Json.MAPPER.readTree(migrate.out()).path("queues").path(0);
        assertEquals("damaged-meta", refused.path("refusal").path("kind").asText(), refused.toString());
        assertTrue(refused.path("refusal").path("reason").asText().contains("meta is a set, expected a hash"), refused.toString());
        assertTrue(SERVER.client().keys("emq:{small}:*").isEmpty(), "no v2 key");
        SERVER.client().del("{emq}:version", "{emq}:migration:small");
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "v1 as it was");

        SERVER.client().rename("bull:small:meta", "bull:small:meta.damaged");
        CliRun fixed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--yes");
        assertEquals(0, fixed.code(), fixed.all());
        assertEquals(5, SERVER.client().zcard("emq:{small}:pending"), "once meta was moved aside, as the refusal says");
    }

    @Test
    void aPausedThatIsNotAListIsDroppedWithTheSourceAndTheQueueMigrates() {
        SERVER.client().set("bull:small:paused", "1");
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "small");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().contains("paused is a string"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--yes");
        assertEquals(0, migrate.code(), migrate.all());
        assertEquals(5, SERVER.client().zcard("emq:{small}:pending"), "every waiting job, none lost");
        assertFalse(SERVER.client().exists("bull:small:paused"), "dropped with the source");
        assertFalse(SERVER.client().exists("bull:small:wait"));
    }
}
