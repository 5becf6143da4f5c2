package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.testing.RealServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.UnifiedJedis;

/**
 * The plan's memory estimate is what a migration adds to the target (within a quarter), and the plan warns, without
 * blocking, when a target with a maxmemory has less room left than that.
 */
class PlanMemoryTest {
    static final int JOBS = 5000;
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    private static long usedMemory(String memoryInfo) {
        return memoryInfo.lines().filter(l -> l.startsWith("used_memory:")).mapToLong(l -> Long.parseLong(l.substring(12).trim()))
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

            v2.configSet("maxmemory", Long.toString(usedMemory(v2.info("memory")) + estimated / 2));
            JsonNode warned = plan(source, target);
            assertEquals(1, warned.get("warnings").size(), warned.toString());
            assertTrue(warned.get("warnings").get(0).asText().startsWith("the target " + target.uri() + " may run short of memory:"
                    + " the plan estimates "), warned.toString());
            CliRun text = CliRun.of("plan", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertTrue(text.out().contains("\nWARNING: the target " + target.uri() + " may run short of memory"), text.out());
            assertFalse(text.out().contains("BLOCKED"), text.out());

            v2.configSet("maxmemory", "0");
            long before = usedMemory(v2.info("memory"));
            CliRun migrated = CliRun.of("migrate", "--no-retire", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(0, migrated.code(), migrated.all());
            long added = usedMemory(v2.info("memory")) - before;
            assertTrue(added > 0.75 * estimated && added < 1.25 * estimated, "the migration added " + added + " bytes, the plan"
                    + " estimated " + estimated);
        }
    }

    /** The master of the cluster that serves {@code key}'s slot. */
    private static HostAndPort masterOf(String key) {
        CLUSTER.client().set(key, "1");
        try {
            return CLUSTER.nodes().stream().filter(n -> {
                try (Jedis node = CLUSTER.node(n)) {
                    return node.clusterCountKeysInSlot(JedisClusterCRC16.getSlot(key)) > 0;
                }
            }).findFirst().orElseThrow();
        } finally {
            CLUSTER.client().del(key);
        }
    }

    /** On a cluster target each master is weighed against the estimate of the keys that hash to its slots. */
    @Test
    void aClusterMasterWithLessRoomThanTheKeysOfItsSlotsIsWarnedOfByName() throws Exception {
        try (LocalServer source = LocalServer.start(); UnifiedJedis v1 = Endpoint.parse(source.uri()).open()) {
            V1QueueGenerator.addWaiting(v1, "q", 1, JOBS, 200);
            HostAndPort queues = masterOf("emq:{q}:probe");
            HostAndPort journals = masterOf("{emq}:probe");
            try (Jedis node = CLUSTER.node(queues)) {
                node.configSet("maxmemory", Long.toString(usedMemory(node.info("memory")) + JOBS * 100L)); // a fifth of what the queue takes
                CliRun r = CliRun.of("plan", "--json", "--source", source.uri(), "--target", CLUSTER.uri(), "--queue", "q");
                assertEquals(0, r.code(), r.all());
                JsonNode warnings = new ObjectMapper().readTree(r.out()).get("warnings");
                assertEquals(1, warnings.size(), warnings.toString());
                assertTrue(warnings.get(0).asText().startsWith("the target " + CLUSTER.endpoint().describe() + " (its master "
                        + queues.getHost() + ":" + queues.getPort() + ") may run short of memory: the plan estimates "), warnings.toString());

                node.configSet("maxmemory", "0");
                List<HostAndPort> others = CLUSTER.nodes().stream().filter(n -> !n.equals(queues)).toList();
                for (HostAndPort other : others) { // the masters that hold none of the queue's keys, each nearly full
                    try (Jedis o = CLUSTER.node(other)) {
                        o.configSet("maxmemory", Long.toString(usedMemory(o.info("memory")) + 1024));
                    }
                }
                JsonNode quiet = new ObjectMapper().readTree(CliRun.of("plan", "--json", "--source", source.uri(), "--target",
                        CLUSTER.uri(), "--queue", "q").out()).get("warnings");
                for (HostAndPort other : others) {
                    try (Jedis o = CLUSTER.node(other)) {
                        o.configSet("maxmemory", "0");
                    }
                }
                assertEquals(journals.equals(queues) ? 0 : 1, quiet.size(), "the master of the journals' slot only: " + quiet);
                quiet.forEach(w -> assertTrue(w.asText().contains("(its master " + journals.getHost() + ":" + journals.getPort() + ")"),
                        quiet.toString()));
            }
        }
    }
}
