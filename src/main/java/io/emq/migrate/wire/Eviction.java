package io.emq.migrate.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Whether a server may evict keys that have no TTL, as {@code INFO memory} tells: a {@code maxmemory}
 * set and an {@code allkeys-*} policy. Such a server drops a job (a v1 hash, a v2 row, a journal) when
 * it runs short of memory, and a migration adds a copy of every job to it until retirement. The
 * {@code volatile-*} policies evict only keys with a TTL (no job has one) and {@code noeviction}
 * refuses the write instead ({@code OOM}), which stops a migration with nothing lost. On a cluster,
 * every node is asked (a replica becomes a master on failover).
 */
public final class Eviction {
    private Eviction() {
    }

    /** What the servers said: the nodes that evict keys without a TTL ({@code host:port (policy, maxmemory N)}), or why they could not be asked. */
    public sealed interface Finding {
    }

    /** Every node evicts no key without a TTL. */
    public record None() implements Finding {
    }

    /** These nodes may evict keys without a TTL, each as {@code host:port (policy, maxmemory N bytes)}. */
    public record Evicting(List<String> nodes) implements Finding {
    }

    /** A node refused {@code INFO} (an ACL without it, a renamed command): its policy is unknown. */
    public record Unknown(String refusal) implements Finding {
    }

    /** Asks every node of {@code client} (one for a single server). */
    public static Finding of(UnifiedJedis client) {
        List<String> evicting = new ArrayList<>();
        try {
            if (client instanceof RedisClusterClient cluster) {
                for (Map.Entry<String, ConnectionPool> node : cluster.getClusterNodes().entrySet()) {
                    try (Connection c = node.getValue().getResource()) {
                        c.sendCommand(redis.clients.jedis.Protocol.Command.INFO, "memory");
                        evicting(node.getKey(), c.getBulkReply()).ifPresent(evicting::add);
                    }
                }
            } else {
                evicting("", client.info("memory")).ifPresent(evicting::add);
            }
        } catch (JedisDataException refused) {
            return new Unknown(refused.getMessage());
        }
        return evicting.isEmpty() ? new None() : new Evicting(evicting);
    }

    /** {@code node} as evicting, when the {@code INFO memory} text {@code info} tells a maxmemory and an allkeys policy. */
    static Optional<String> evicting(String node, String info) {
        String policy = field(info, "maxmemory_policy").orElse("noeviction");
        long maxmemory = field(info, "maxmemory").map(Long::parseLong).orElse(0L);
        if (maxmemory == 0 || !policy.startsWith("allkeys-")) {
            return Optional.empty();
        }
        return Optional.of((node.isEmpty() ? "" : node + " ") + "(maxmemory-policy " + policy + ", maxmemory " + maxmemory + " bytes)");
    }

    private static Optional<String> field(String info, String name) {
        return info.lines().filter(l -> l.startsWith(name + ":")).findFirst().map(l -> l.substring(name.length() + 1).trim());
    }
}
