package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.server.LocalServer;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/** A server evicts keys without a TTL only with a maxmemory and an allkeys policy (each master asked, and each replica online it names); a replica names its master. */
class ServerStateTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();
    /** How the test reaches a node it has no pool for (a replica): a short timeout, for the one that stalls. */
    static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder().resp2().timeoutMillis(500).build();

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
        assertEquals(new ServerState.Readout(List.of(), Optional.empty(), List.of(), Optional.empty(), List.of()), ServerState.of(SERVER.client(), CONFIG),
                "the default: noeviction, no maxmemory, a master");
        set(SERVER, node, "volatile-lru", "1gb");
        assertEquals(List.of(), ServerState.of(SERVER.client(), CONFIG).evicting(), "volatile-* evicts only keys with a TTL");
        List<ServerState.Memory> memories = ServerState.of(SERVER.client(), CONFIG).memory();
        assertEquals(1, memories.size(), memories.toString());
        ServerState.Memory memory = memories.get(0);
        assertEquals(1L << 30, memory.max(), "the limit read with the policy");
        assertTrue(memory.serves(0) && memory.serves(16383), "a single server holds every slot");
        assertTrue(memory.used() > 0 && memory.room() == memory.max() - memory.used(), memory.toString());
        set(SERVER, node, "allkeys-lru", "0");
        assertEquals(List.of(), ServerState.of(SERVER.client(), CONFIG).evicting(), "no maxmemory: nothing is ever evicted");
        set(SERVER, node, "allkeys-lfu", "1gb");
        assertEquals(List.of("maxmemory-policy allkeys-lfu, maxmemory 1073741824 bytes"), ServerState.of(SERVER.client(), CONFIG).evicting());
    }

    @Test
    void aUserWithoutInfoLeavesThePolicyUnknown() {
        try (Jedis admin = SERVER.node(SERVER.nodes().get(0))) {
            admin.aclSetUser("noinfo", "on", ">pw", "~*", "+@all", "-info");
        }
        try (UnifiedJedis user = Endpoint.parse(SERVER.uri().replace("redis://", "redis://noinfo:pw@")).open()) {
            ServerState.Readout state = ServerState.of(user, CONFIG);
            assertTrue(state.unreadable().orElse("").startsWith("NOPERM"), state.toString());
        } finally {
            try (Jedis admin = SERVER.node(SERVER.nodes().get(0))) {
                admin.aclDelUser("noinfo");
            }
        }
    }

    @Test
    void oneEvictingNodeOfAClusterIsNamed() {
        HostAndPort node = CLUSTER.nodes().get(1);
        assertEquals(new ServerState.Readout(List.of(), Optional.empty(), List.of(), Optional.empty(), List.of()), ServerState.of(CLUSTER.client(), CONFIG),
                "a cluster's replicas are not the client's to write to");
        set(CLUSTER, node, "allkeys-random", "2gb");
        ServerState.Readout state = ServerState.of(CLUSTER.client(), CONFIG);
        assertEquals(List.of(node + " (maxmemory-policy allkeys-random, maxmemory 2147483648 bytes)"), state.evicting());
        assertEquals(1, state.memory().size(), "the one master with a maxmemory: " + state.memory());
        ServerState.Memory memory = state.memory().get(0);
        assertEquals(node.toString(), memory.node());
        assertEquals(2L << 30, memory.max());
        try (Jedis n = CLUSTER.node(node)) {
            for (int i = 0; i < 30; i++) { // the slots it serves, as CLUSTER SLOTS tells them: where keys land
                String key = "{tag" + i + "}:probe";
                CLUSTER.client().set(key, "1");
                int slot = redis.clients.jedis.util.JedisClusterCRC16.getSlot(key);
                assertEquals(n.clusterCountKeysInSlot(slot) > 0, memory.serves(slot), key + " " + memory);
                CLUSTER.client().del(key);
            }
        }
    }

    @Test
    void aReplicaNamesItsMaster() throws InterruptedException {
        try (LocalServer master = LocalServer.start(); LocalServer replica = LocalServer.start();
             UnifiedJedis copy = Endpoint.parse(replica.uri()).open()) {
            copy.sendCommand(Protocol.Command.REPLICAOF, LocalServer.HOST, Integer.toString(master.port()));
            assertEquals(Optional.of(LocalServer.HOST + ":" + master.port()), ServerState.of(copy, CONFIG).replicaOf());
        }
    }

    @Test
    void eachReplicaOnlineIsAskedAndOneThatDoesNotAnswerIsNamed() {
        try (LocalServer master = LocalServer.start(); LocalServer replica = LocalServer.startReplicaOf(master);
             UnifiedJedis client = Endpoint.parse(master.uri()).open()) {
            assertEquals(new ServerState.Readout(List.of(), Optional.empty(), List.of(), Optional.empty(), List.of()),
                    ServerState.of(client, CONFIG), "a master and its replica, neither evicting");
            try (Jedis admin = new Jedis(replica.hostAndPort())) {
                admin.configSet("maxmemory-policy", "allkeys-lru");
                admin.configSet("maxmemory", "1gb");
            }
            ServerState.Readout state = ServerState.of(client, CONFIG);
            assertEquals(List.of(replica.hostAndPort() + " (a replica, once a failover promotes it) (maxmemory-policy allkeys-lru,"
                    + " maxmemory 1073741824 bytes)"), state.evicting());
            assertEquals(List.of(), state.memory(), "the master's memory alone is weighed: the replica's is not written to");
            replica.stall();
            try {
                state = ServerState.of(client, CONFIG);
            } finally {
                replica.resume();
            }
            assertEquals(List.of(), state.evicting(), state.toString());
            assertEquals(1, state.unanswered().size(), state.toString());
            assertTrue(state.unanswered().get(0).startsWith(replica.hostAndPort() + " ("), state.toString());
        }
    }

    @Test
    void replicasThatDoNotAnswerAreAskedAtOnceSoTheyCostOneTimeoutNotOneEach() {
        JedisClientConfig oneSecond = DefaultJedisClientConfig.builder().resp2().timeoutMillis(1000).build();
        try (LocalServer master = LocalServer.start(); LocalServer first = LocalServer.startReplicaOf(master);
             LocalServer second = LocalServer.startReplicaOf(master); LocalServer third = LocalServer.startReplicaOf(master);
             UnifiedJedis client = Endpoint.parse(master.uri()).open()) {
            List<LocalServer> replicas = List.of(first, second, third);
            replicas.forEach(LocalServer::stall);
            ServerState.Readout state;
            long started = System.nanoTime();
            try {
                state = ServerState.of(client, oneSecond);
            } finally {
                replicas.forEach(LocalServer::resume);
            }
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(3, state.unanswered().size(), state.toString());
            replicas.forEach(r -> assertTrue(state.unanswered().stream().anyMatch(u -> u.startsWith(r.hostAndPort() + " (")),
                    r.hostAndPort() + " named in " + state));
            assertTrue(tookMs < 2500, "three replicas stalled, each asked with a 1 s timeout, answered after " + tookMs
                    + " ms: one at a time takes 3 s");
        }
    }
}
