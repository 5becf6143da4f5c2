package io.emq.migrate.wire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What {@code INFO} tells of a server that a migration must know before it writes: whether it may evict keys
 * that have no TTL (a {@code maxmemory} set and an {@code allkeys-*} policy: it drops a job, a v2 row or a
 * journal when it runs short, and a migration adds a copy of every job until retirement; the {@code volatile-*}
 * policies evict only keys with a TTL, which no job has, and {@code noeviction} refuses the write instead, which
 * stops a migration with nothing lost), on the server or each cluster master and on every replica online of each
 * (a failover promotes one); and
 * whether a single server is a replica (it refuses every write; a cluster client writes to masters only); and the
 * memory and limit of a single server, or of each master of a cluster with the slots it serves, against which a plan's
 * estimate is weighed.
 */
public final class ServerState {
    /** The most replicas asked for their eviction policy at once. */
    private static final int MOST_ASKED_AT_ONCE = 16;
    /**
     * What the server said: the nodes that may evict keys without a TTL, each as {@code host:port (policy, maxmemory
     * N bytes)} (a single server: {@code policy, maxmemory N bytes}); the master a single server replicates; the memory of a
     * single server, or of each master of a cluster, that has a {@code maxmemory}; or why it could not be asked
     * ({@code INFO} refused: an ACL without it, a renamed command), the rest then unknown; and the replicas that could
     * not be asked, each as {@code host:port (why)} (stalled, unreachable from here, or refusing {@code INFO}).
     */
    public record Readout(List<String> evicting, Optional<String> replicaOf, List<Memory> memory, Optional<String> unreadable,
                          List<String> unanswered) {
    }

    /** Slots {@code from} to {@code to}, both included. */
    public record SlotRange(int from, int to) {
    }

    /**
     * A server's {@code used_memory} and its {@code maxmemory} (above 0): how much it can take before it refuses writes;
     * for a cluster master, its {@code host:port} and the slots it serves (a single server: no node, every slot).
     */
    public record Memory(String node, List<SlotRange> slots, long used, long max) {
        public long room() {
            return Math.max(0, max - used);
        }

        public boolean serves(int slot) {
            return node.isEmpty() || slots.stream().anyMatch(r -> slot >= r.from() && slot <= r.to());
        }
    }

    private ServerState() {
    }

    /**
     * Asks the server of {@code client} (each master of a cluster) and the replicas each names online in its {@code INFO
     * replication}, reached with {@code config} (the client's credentials and timeout): a fresh cluster client knows
     * only the masters.
     */
    public static Readout of(UnifiedJedis client, JedisClientConfig config) {
        List<String> evicting = new ArrayList<>();
        List<Memory> limits = new ArrayList<>();
        List<Replica> replicas = new ArrayList<>();
        try {
            if (client instanceof RedisClusterClient cluster) {
                for (Map.Entry<String, List<SlotRange>> master : masterSlots(cluster).entrySet()) {
                    List<String> info = info(HostAndPort.from(master.getKey()), config, "memory", "replication");
                    evicting(master.getKey(), info.get(0)).ifPresent(evicting::add);
                    limit(master.getKey(), master.getValue(), info.get(0)).ifPresent(limits::add);
                    replicas.addAll(replicasOf(master.getKey(), info.get(1)));
                }
                return new Readout(evicting, Optional.empty(), limits, Optional.empty(), ask(replicas, config, evicting));
            }
            String memory = client.info("memory");
            String replication = client.info("replication");
            evicting("", memory).ifPresent(evicting::add);
            limit("", List.of(), memory).ifPresent(limits::add);
            replicas.addAll(replicasOf("", replication));
            return new Readout(evicting, replicaOf(replication), limits, Optional.empty(), ask(replicas, config, evicting));
        } catch (JedisDataException refused) {
            return new Readout(List.of(), Optional.empty(), List.of(), Optional.of(refused.getMessage()), List.of());
        }
    }

    /** A replica online of {@code master} ({@code ""}: the single server), at {@code address}. */
    private record Replica(String master, HostAndPort address) {
        String named() {
            return address + " (a replica" + (master.isEmpty() ? "" : " of " + master) + ", once a failover promotes it)";
        }
    }

    /** The replicas online that the {@code INFO replication} text {@code replication} of {@code master} names. */
    private static List<Replica> replicasOf(String master, String replication) {
        return onlineReplicaLines(replication).map(line -> new Replica(master, replicaAddress(line))).toList();
    }

    /** What a replica answered: its {@link #evicting} line, or why it did not answer ({@code unanswered}). */
    private record Answer(Optional<String> evicting, Optional<String> unanswered) {
    }

    /**
     * Asks these replicas for their eviction policy, all at once (each on a connection of its own, with {@code config}:
     * those unreachable from here cost the run's timeout once, up to {@link #MOST_ASKED_AT_ONCE} of them): a failover promotes one, which
     * then evicts as its own policy says (a replica evicts nothing until then). Adds those that may evict keys without a
     * TTL to {@code evicting}, in order; returns those that did not answer, or refused {@code INFO}, each with why.
     */
    private static List<String> ask(List<Replica> replicas, JedisClientConfig config, List<String> evicting) {
        if (replicas.isEmpty()) {
            return List.of();
        }
        ExecutorService askers = Executors.newFixedThreadPool(Math.min(replicas.size(), MOST_ASKED_AT_ONCE),
                DaemonThreads.named("emq-replica-info"));
        try {
            List<CompletableFuture<Answer>> answers = replicas.stream().map(replica -> CompletableFuture.supplyAsync(() -> {
                try {
                    return new Answer(evicting(replica.named(), info(replica.address(), config, "memory").get(0)), Optional.empty());
                } catch (JedisConnectionException | JedisDataException e) {
                    return new Answer(Optional.empty(), Optional.of(replica.address() + " (" + e.getMessage() + ")"));
                }
            }, askers)).toList();
            List<String> unanswered = new ArrayList<>();
            for (CompletableFuture<Answer> asked : answers) {
                Answer answer = asked.join();
                answer.evicting().ifPresent(evicting::add);
                answer.unanswered().ifPresent(unanswered::add);
            }
            return unanswered;
        } finally {
            askers.shutdownNow();
        }
    }

    /** The {@code INFO} texts of these sections, in order, asked of {@code node} on a connection of its own. */
    private static List<String> info(HostAndPort node, JedisClientConfig config, String... sections) {
        try (Connection c = new Connection(node, config)) {
            List<String> texts = new ArrayList<>();
            for (String section : sections) {
                c.sendCommand(Protocol.Command.INFO, section);
                texts.add(c.getBulkReply());
            }
            return texts;
        }
    }

    /** The {@code ip} and {@code port} of an {@code INFO replication} line {@code slave<n>:ip=…,port=…,state=…}. */
    private static HostAndPort replicaAddress(String line) {
        return new HostAndPort(part(line, "ip").orElse("?"), part(line, "port").map(Integer::parseInt).orElse(0));
    }

    /** The memory the {@code INFO memory} text {@code info} tells, when it names a {@code maxmemory}. */
    private static Optional<Memory> limit(String node, List<SlotRange> slots, String info) {
        long max = field(info, "maxmemory").map(Long::parseLong).orElse(0L);
        return max == 0 ? Optional.empty() : Optional.of(new Memory(node, slots, field(info, "used_memory").map(Long::parseLong).orElse(0L), max));
    }

    /**
     * Each master's {@code host:port} and the slots it serves, as {@code CLUSTER SLOTS} tells them, asked of the master
     * serving slot 0 (a master: after a failover the client knows the replicas too, one of which may be stalled or down).
     */
    public static Map<String, List<SlotRange>> masterSlots(RedisClusterClient cluster) {
        try (Connection c = cluster.getConnectionFromSlot(0)) {
            return masterSlots(c);
        }
    }

    private static Map<String, List<SlotRange>> masterSlots(Connection c) {
        c.sendCommand(Protocol.Command.CLUSTER, "SLOTS");
        Map<String, List<SlotRange>> masters = new LinkedHashMap<>();
        for (Object entry : c.getObjectMultiBulkReply()) {
            List<?> range = (List<?>) entry;
            List<?> master = (List<?>) range.get(2);
            String node = Replies.asText((byte[]) master.get(0)) + ":" + master.get(1);
            masters.computeIfAbsent(node, n -> new ArrayList<>()).add(new SlotRange(((Long) range.get(0)).intValue(),
                    ((Long) range.get(1)).intValue()));
        }
        return masters;
    }

    /** {@code node} as evicting, when the {@code INFO memory} text {@code info} tells a maxmemory and an allkeys policy. */
    static Optional<String> evicting(String node, String info) {
        String policy = field(info, "maxmemory_policy").orElse("noeviction");
        long maxmemory = field(info, "maxmemory").map(Long::parseLong).orElse(0L);
        if (maxmemory == 0 || !policy.startsWith("allkeys-")) {
            return Optional.empty();
        }
        String said = "maxmemory-policy " + policy + ", maxmemory " + maxmemory + " bytes";
        return Optional.of(node.isEmpty() ? said : node + " (" + said + ")");
    }

    /**
     * The replication ids of the data {@code key} lives in ({@code INFO replication} of the server, or of the cluster master
     * that serves the key's slot): its {@code master_replid} (a replica shows its master's) and, when it took over from
     * another master (a failover), that one's ({@code master_replid2}). Two servers sharing an id hold the same data
     * history: a master and its replica, a promoted replica and the master it replaced. Empty for a server that
     * refuses {@code INFO}.
     */
    public static List<String> replicationIds(UnifiedJedis client, byte[] key) {
        try {
            String info = replication(client, key);
            return Stream.of("master_replid", "master_replid2").map(name -> field(info, name)).flatMap(Optional::stream)
                    .filter(id -> !id.chars().allMatch(c -> c == '0')).toList();
        } catch (JedisDataException refused) {
            return List.of();
        }
    }

    /**
     * How many replicas the server that holds {@code key} (in a cluster, the master serving its slot) has online: its
     * {@code INFO replication} lines {@code slave<n>:…,state=online,…}. Empty for a server that refuses {@code INFO}.
     */
    public static Optional<Integer> onlineReplicas(UnifiedJedis client, byte[] key) {
        try {
            return Optional.of((int) onlineReplicaLines(replication(client, key)).count());
        } catch (JedisDataException refused) {
            return Optional.empty();
        }
    }

    /**
     * Whether every replica online of the server that holds {@code key} (in a cluster, the master serving its slot) has
     * acknowledged the offset the server is at now ({@code INFO replication}: {@code master_repl_offset}, and each
     * {@code slave<n>:}'s {@code offset}), asked again until {@code timeout} (a replica acknowledges once a second).
     * Empty for a server that refuses {@code INFO}.
     */
    public static Optional<Boolean> replicasAtOffset(UnifiedJedis client, byte[] key, Duration timeout) {
        try {
            String info = replication(client, key);
            long offset = field(info, "master_repl_offset").map(Long::parseLong).orElse(0L);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (onlineReplicaLines(info).anyMatch(l -> replicaOffset(l) < offset)) {
                if (System.nanoTime() > deadline) {
                    return Optional.of(false);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.of(false);
                }
                info = replication(client, key);
            }
            return Optional.of(true);
        } catch (JedisDataException refused) {
            return Optional.empty();
        }
    }

    /** The lines of an {@code INFO replication} text {@code info} that name a replica online: {@code slave<n>:…,state=online,…}. */
    public static Stream<String> onlineReplicaLines(String info) {
        return info.lines().filter(l -> l.startsWith("slave") && l.contains(":") && l.contains(",state=online,"));
    }

    /** The {@code offset=} of an {@code INFO replication} line {@code slave<n>:ip=…,offset=…,lag=…}. */
    private static long replicaOffset(String line) {
        return part(line, "offset").map(Long::parseLong).orElse(-1L);
    }

    /** The value of {@code name=} in an {@code INFO replication} line {@code slave<n>:ip=…,port=…,…}. */
    private static Optional<String> part(String line, String name) {
        return Arrays.stream(line.substring(line.indexOf(':') + 1).split(",")).filter(p -> p.startsWith(name + "="))
                .findFirst().map(p -> p.substring(name.length() + 1));
    }

    /** The {@code INFO replication} text of the server that holds {@code key} (in a cluster, the master serving its slot). */
    private static String replication(UnifiedJedis client, byte[] key) {
        return info(client, key, "replication");
    }

    /**
     * Whether the server that holds {@code key} (in a cluster, the master serving its slot) keeps an append-only file
     * ({@code INFO persistence}: {@code aof_enabled}); empty for a server that refuses {@code INFO}.
     */
    public static Optional<Boolean> appendOnly(UnifiedJedis client, byte[] key) {
        try {
            return Optional.of(field(info(client, key, "persistence"), "aof_enabled").orElse("0").equals("1"));
        } catch (JedisDataException refused) {
            return Optional.empty();
        }
    }

    private static String info(UnifiedJedis client, byte[] key, String section) {
        if (client instanceof RedisClusterClient) {
            try (Connection c = DedicatedConnection.serverOf(client, key).getResource()) {
                c.sendCommand(Protocol.Command.INFO, section);
                return c.getBulkReply();
            }
        }
        return client.info(section);
    }

    /** The master ({@code host:port}) the {@code INFO replication} text {@code info} names, when the server is a replica. */
    static Optional<String> replicaOf(String info) {
        if (!field(info, "role").orElse("master").equals("slave")) {
            return Optional.empty();
        }
        return Optional.of(field(info, "master_host").orElse("?") + ":" + field(info, "master_port").orElse("?"));
    }

    private static Optional<String> field(String info, String name) {
        return info.lines().filter(l -> l.startsWith(name + ":")).findFirst().map(l -> l.substring(name.length() + 1).trim());
    }
}
