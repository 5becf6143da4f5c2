package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** A server evicts keys without a TTL only with a maxmemory and an allkeys policy; on a cluster, every node is asked. */
class EvictionTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    private static void set(RealServerExtension server, HostAndPort node, String policy, String maxmemory) {
        try (Jedis admin = server.node(node)) {
            admin.configSet("maxmemory-policy", policy);
            admin.configSet("maxmemory", maxmemory);
        }
    }

    @AfterEach
    void defaults() {
        set(SERVER, SERVER.nodes().get(0), "noeviction", "0");
        CLUSTER.nodes().forEach(node -> set(CLUSTER, node, "noeviction", "0"));
    }

    @Test
    void onlyAnAllkeysPolicyUnderAMaxmemoryEvictsKeysWithoutATtl() {
        HostAndPort node = SERVER.nodes().get(0);
        assertEquals(new Eviction.None(), Eviction.of(SERVER.client()), "the default: noeviction, no maxmemory");
        set(SERVER, node, "volatile-lru", "1gb");
        assertEquals(new Eviction.None(), Eviction.of(SERVER.client()), "volatile-* evicts only keys with a TTL");
        set(SERVER, node, "allkeys-lru", "0");
        assertEquals(new Eviction.None(), Eviction.of(SERVER.client()), "no maxmemory: nothing is ever evicted");
        set(SERVER, node, "allkeys-lfu", "1gb");
        assertEquals(new Eviction.Evicting(List.of("(maxmemory-policy allkeys-lfu, maxmemory 1073741824 bytes)")), Eviction.of(SERVER.client()));
    }

    @Test
    void aUserWithoutInfoLeavesThePolicyUnknown() {
        try (Jedis admin = SERVER.node(SERVER.nodes().get(0))) {
            admin.aclSetUser("noinfo", "on", ">pw", "~*", "+@all", "-info");
        }
        try (redis.clients.jedis.UnifiedJedis user = Endpoint.parse(SERVER.uri().replace("redis://", "redis://noinfo:pw@")).open()) {
            Eviction.Finding finding = Eviction.of(user);
            assertTrue(finding instanceof Eviction.Unknown u && u.refusal().startsWith("NOPERM"), finding.toString());
        } finally {
            try (Jedis admin = SERVER.node(SERVER.nodes().get(0))) {
                admin.aclDelUser("noinfo");
            }
        }
    }

    @Test
    void oneEvictingNodeOfAClusterIsNamed() {
        HostAndPort node = CLUSTER.nodes().get(1);
        assertEquals(new Eviction.None(), Eviction.of(CLUSTER.client()));
        set(CLUSTER, node, "allkeys-random", "2gb");
        assertEquals(new Eviction.Evicting(List.of(node + " (maxmemory-policy allkeys-random, maxmemory 2147483648 bytes)")),
                Eviction.of(CLUSTER.client()));
    }
}
