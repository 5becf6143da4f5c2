package io.emq.migrate.server;

import io.emq.migrate.keyspace.Slots;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A real cluster of masters on loopback ports, slots split evenly, each with as many replicas as asked for, ready when
 * {@link #start} returns (every replica online).
 */
public final class LocalCluster implements AutoCloseable {
    /** A slot assignment waits for the node's config fsync, which a loaded machine can stall. */
    private static final int SLOW_REPLY_MILLIS = 15_000;
    /** A readiness probe gives up sooner and asks again (see {@link #nodeReady}). */
    private static final int PROBE_MILLIS = 2_000;
    /** The masters it started with, then their replicas (the i-th master's after the (i-1)-th's). */
    private final List<LocalServer> nodes;
    private final int masters;

    private LocalCluster(List<LocalServer> nodes, int masters) {
        this.nodes = nodes;
        this.masters = masters;
    }

    public static LocalCluster start(int masters) {
        return start(masters, 0);
    }

    public static LocalCluster start(int masters, int replicasEach) {
        ServerBinary binary = LocalServer.requireBinary();
        List<LocalServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasEach); i++) {
                nodes.add(LocalServer.start(binary, List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000")));
            }
            LocalCluster cluster = new LocalCluster(nodes, masters);
            cluster.assignSlots();
            cluster.awaitOk();
            cluster.attachReplicas();
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(LocalServer::close);
            throw e;
        }
    }

    /** Each node past the masters replicates master {@code i % masters}, once it knows it; returns once every replica is online. */
    private void attachReplicas() {
        for (int i = masters; i < nodes.size(); i++) {
            LocalServer master = nodes.get(i % masters);
            try (Jedis m = connect(master, SLOW_REPLY_MILLIS); Jedis replica = connect(nodes.get(i), SLOW_REPLY_MILLIS)) {
                String id = m.clusterMyId();
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (true) { // the replica learns of the master through gossip first
                    try {
                        replica.clusterReplicate(id);
                        break;
                    } catch (redis.clients.jedis.exceptions.JedisDataException unknownYet) {
                        if (System.nanoTime() > deadline) {
                            throw unknownYet;
                        }
                        LocalServer.sleep(50);
                    }
                }
            }
        }
        for (int i = 0; i < masters; i++) {
            nodes.get(i).awaitOnlineReplicas((nodes.size() - masters) / masters);
        }
    }

    private void assignSlots() {
        int per = Slots.COUNT / masters;
        for (int i = 0; i < nodes.size(); i++) {
            try (Jedis node = connect(nodes.get(i), SLOW_REPLY_MILLIS)) {
                if (i < masters) {
                    int from = i * per;
                    int to = i == masters - 1 ? Slots.COUNT - 1 : from + per - 1;
                    int[] slots = new int[to - from + 1];
                    for (int s = from; s <= to; s++) {
                        slots[s - from] = s;
                    }
                    node.clusterAddSlots(slots);
                }
                // a config epoch of its own for every node, replicas too, as redis-cli --cluster create gives: nodes
                // that share one settle it later by bumping one. A change feed watching a master so bumped takes it
                // for a slot moved; a replica so bumped may hold the greatest epoch, which CLUSTER FAILOVER TAKEOVER
                // keeps without a bump, and a master holding the same one wins the tie and takes its slots back
                node.sendCommand(Protocol.Command.CLUSTER, "SET-CONFIG-EPOCH", Integer.toString(i + 1));
                if (i > 0) {
                    node.clusterMeet(LocalServer.HOST, nodes.get(0).port());
                }
            }
        }
    }

    public void awaitOk() {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (nodes.stream().allMatch(this::nodeReady)) {
                return;
            }
            LocalServer.sleep(50);
        }
        throw new IllegalStateException("cluster did not reach cluster_state:ok within 30 s");
    }

    /**
     * Whether a node sees the whole cluster. A node that does not answer in time is not ready yet: a node
     * writes its cluster config with an fsync on each change, which a loaded machine can stall for seconds.
     */
    private boolean nodeReady(LocalServer server) {
        try (Jedis node = connect(server, PROBE_MILLIS)) {
            String info = node.clusterInfo();
            return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes.size())
                    && info.contains("cluster_slots_assigned:" + Slots.COUNT);
        } catch (JedisConnectionException stalled) {
            return false;
        }
    }

    private static Jedis connect(LocalServer server, int timeoutMillis) {
        return new Jedis(server.hostAndPort(), DefaultJedisClientConfig.builder().resp2().timeoutMillis(timeoutMillis).build());
    }

    /** The masters it started with. */
    public Set<HostAndPort> seeds() {
        return nodes().stream().map(LocalServer::hostAndPort).collect(Collectors.toSet());
    }

    /** A cluster URI of the masters it started with: {@code redis://h1:p1,h2:p2,...}. */
    public String uri() {
        return "redis://" + nodes().stream().map(n -> LocalServer.HOST + ":" + n.port()).collect(Collectors.joining(","));
    }

    /** The masters it started with. */
    public List<LocalServer> nodes() {
        return List.copyOf(nodes.subList(0, masters));
    }

    /** The index of the master it started that was given {@code slot} (which serves it until a failover or a reshard). */
    public int givenSlot(int slot) {
        return Math.min(slot / (Slots.COUNT / masters), masters - 1);
    }

    /** The replicas of the master it started {@code i}-th. */
    public List<LocalServer> replicasOf(int i) {
        List<LocalServer> out = new ArrayList<>();
        for (int n = masters + i; n < nodes.size(); n += masters) {
            out.add(nodes.get(n));
        }
        return out;
    }

    @Override
    public void close() {
        nodes.forEach(LocalServer::close);
    }
}
