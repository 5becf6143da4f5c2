package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The plan's memory estimate is what a migration adds to the target (within a quarter), and the plan warns, without
 * blocking, when a target with a maxmemory has less room left than that.
 */
class PlanMemoryTest {
    static final int JOBS = 5000;

    private static long usedMemory(UnifiedJedis server) {
        return server.info("memory").lines().filter(l -> l.startsWith("used_memory:")).mapToLong(l -> Long.parseLong(l.substring(12).trim()))
                .findFirst().orElseThrow();
    }

    private static JsonNode plan(LocalServer source, LocalServer target) throws Exception {
        CliRun r = CliRun.of("plan", "--json", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
        assertEquals(0, r.code(), "a warning blocks nothing: " + r.all());
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void theEstimateIsWhatTheMigrationAddsAndATargetWithLessRoomIsWarnedOf() throws Exception {
        try (LocalServer source = LocalServer.start(); LocalServer target = LocalServer.start();
             UnifiedJedis v1 = Endpoint.parse(source.uri()).open(); UnifiedJedis v2 = Endpoint.parse(target.uri()).open()) {
            V1QueueGenerator.addWaiting(v1, "q", 1, JOBS, 200);
            JsonNode doc = plan(source, target);
            long estimated = doc.get("queues").get(0).get("estimatedBytes").asLong();
            assertEquals(0, doc.get("warnings").size(), doc.toString());

            v2.configSet("maxmemory", Long.toString(usedMemory(v2) + estimated / 2));
            JsonNode warned = plan(source, target);
            assertEquals(1, warned.get("warnings").size(), warned.toString());
            assertTrue(warned.get("warnings").get(0).asText().startsWith("the target " + target.uri() + " may run short of memory:"
                    + " the plan estimates "), warned.toString());
            CliRun text = CliRun.of("plan", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertTrue(text.out().contains("\nWARNING: the target " + target.uri() + " may run short of memory"), text.out());
            assertFalse(text.out().contains("BLOCKED"), text.out());

            v2.configSet("maxmemory", "0");
            long before = usedMemory(v2);
            CliRun migrated = CliRun.of("migrate", "--no-retire", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(0, migrated.code(), migrated.all());
            long added = usedMemory(v2) - before;
            assertTrue(added > 0.75 * estimated && added < 1.25 * estimated, "the migration added " + added + " bytes, the plan"
                    + " estimated " + estimated);
        }
    }
}
