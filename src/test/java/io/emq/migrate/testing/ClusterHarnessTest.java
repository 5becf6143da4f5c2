package io.emq.migrate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Slots;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

class ClusterHarnessTest {
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @Test
    void keysOfThreeQueuesLandOnTheNodesTheirSlotsSay() {
        List<String> queues = List.of("orders", "payments", "invoices");
        for (String q : queues) {
            Keys keys = Keys.queue(q);
            CLUSTER.client().zadd(keys.pending(), 0, "JOB00000000001");
            CLUSTER.client().hset(keys.meta(), "paused", "1");
        }
        Set<HostAndPort> owners = new HashSet<>();
        for (String q : queues) {
            Keys keys = Keys.queue(q);
            int slot = Slots.slot(keys.pending());
            assertEquals(Slots.slot(q), slot);
            HostAndPort owner = null;
            for (HostAndPort node : CLUSTER.nodes()) {
                try (Jedis jedis = CLUSTER.node(node)) {
                    if (jedis.clusterCountKeysInSlot(slot) > 0) {
                        owner = node;
                        assertTrue(jedis.clusterGetKeysInSlot(slot, 10).contains(keys.pending()));
                        assertTrue(jedis.clusterGetKeysInSlot(slot, 10).contains(keys.meta()));
                        assertEquals(serverSlotOf(jedis, keys.pending()), slot);
                    }
                }
            }
            assertTrue(owner != null, "no node holds slot " + slot + " of " + q);
            owners.add(owner);
        }
        assertEquals(3, owners.size(), "orders (105), payments (8507) and invoices (13262) fall in the three masters' ranges");
    }

    private static long serverSlotOf(Jedis jedis, String key) {
        return jedis.clusterKeySlot(key);
    }
}
