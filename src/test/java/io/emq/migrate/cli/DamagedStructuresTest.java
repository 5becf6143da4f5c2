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

    /**
     * A job whose id is {@code id}: its hash is at the add counter's key, which the migration freezes and stamps its
     * tombstone on (a SET, which would overwrite the job). Refused by plan and migrate alike, nothing written; once the
     * job has another id, as the refusal says, it migrates with the rest.
     */
    @Test
    void aJobHashAtTheAddCountersKeyIsRefusedByPlanAndMigrateAndMigratesUnderAnotherId() throws Exception {
        SERVER.client().del("bull:small:id");
        SERVER.client().hset("bull:small:id", java.util.Map.of("name", "n", "data", "{\"the\":\"id job\"}", "opts", "{}",
                "timestamp", "1"));
        SERVER.client().lpush("bull:small:wait", "id");
        String before = new KeyspaceDump(SERVER.client()).digest();

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "small");
        assertEquals(3, plan.code(), plan.all());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("counter-taken")
                && plan.out().contains("the hash of the job whose id is 'id'")
                && plan.out().contains("RENAME bull:small:id bull:small:NEWID")
                && plan.out().contains("SET bull:small:id to the queue's highest numeric job id"), plan.out());

        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--json", "--yes", "--accept-anomalies");
        assertEquals(3, migrate.code(), migrate.all());
        JsonNode refused = Json.MAPPER.readTree(migrate.out()).path("queues").path(0);
        assertEquals("counter-taken", refused.path("refusal").path("kind").asText(), refused.toString());
        assertTrue(SERVER.client().keys("emq:{small}:*").isEmpty(), "no v2 key");
        SERVER.client().del("{emq}:version", "{emq}:migration:small");
        SERVER.client().hdel("bull:small:meta", "migrating-token");
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "v1 as it was");

        SERVER.client().rename("bull:small:id", "bull:small:job-id");
        SERVER.client().lset("bull:small:wait", SERVER.client().lpos("bull:small:wait", "id"), "job-id");
        SERVER.client().set("bull:small:id", "5");
        CliRun fixed = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "small", "--yes");
        assertEquals(0, fixed.code(), fixed.all());
        assertEquals(6, SERVER.client().zcard("emq:{small}:pending"), "the five and the job under its new id");
        assertTrue(CliRun.of("lookup", "--target", SERVER.uri(), "--queue", "small", "--v1-id", "job-id").out().contains("pending"));
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
