package io.emq.migrate.wire;

import io.emq.migrate.keyspace.Slots;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * A connection of its own to the server that holds a key (in a cluster, the master owning the key's
 * slot), made with the client's settings (credentials, TLS, protocol) but outside its pool: for state a
 * pooled connection must not carry back to the pool (a {@code WATCH}), and so that holding it never
 * starves the pool. The caller closes it (or gives it back to the {@link DedicatedConnections} it came from).
 */
public final class DedicatedConnection {
    private DedicatedConnection() {
    }

    public static Connection to(UnifiedJedis client, byte[] key) {
        return make(serverOf(client, key));
    }

    /** The client's pool of connections to the server that holds {@code key}: what a dedicated connection is made like. */
    public static Pool<Connection> serverOf(UnifiedJedis client, byte[] key) {
        if (client instanceof RedisClient standalone) {
            return standalone.getPool();
        }
        if (client instanceof RedisClusterClient cluster) {
            HostAndPort node;
            try (Connection owner = cluster.getConnectionFromSlot(Slots.slot(key))) {
                node = owner.getHostAndPort();
            }
            return cluster.getClusterNodes().get(node.toString());
        }
        throw new IllegalArgumentException("no dedicated connection from a " + client.getClass().getSimpleName());
    }

    /** A new connection made like those of {@code pool}, outside it. */
    public static Connection make(Pool<Connection> pool) {
        try {
            return pool.getFactory().makeObject().getObject();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not connect: " + e.getMessage(), e);
        }
    }
}
