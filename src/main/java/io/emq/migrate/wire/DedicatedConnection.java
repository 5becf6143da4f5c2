package io.emq.migrate.wire;

import io.emq.migrate.keyspace.Slots;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
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
 * starves the pool. The caller closes it with {@link #close} (or gives it back to the {@link DedicatedConnections} it
 * came from), which counts it against its server when it broke ({@link #breaks}), as its pool counts its own.
 */
public final class DedicatedConnection {
    /** The server (its pool in the client) each dedicated connection open was made like. */
    private static final Map<Connection, Pool<Connection>> MADE = Collections.synchronizedMap(new WeakHashMap<>());
    /** How many dedicated connections closed broken, by the server they were made like. */
    private static final Map<Pool<Connection>, AtomicLong> BROKE = Collections.synchronizedMap(new WeakHashMap<>());

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
            return serverOf(cluster, Slots.slot(key));
        }
        throw new IllegalArgumentException("no dedicated connection from a " + client.getClass().getSimpleName());
    }

    /** The client's pool of connections to the master serving {@code slot}, as the client's slot map tells it. */
    private static Pool<Connection> serverOf(RedisClusterClient cluster, int slot) {
        HostAndPort node;
        try (Connection owner = cluster.getConnectionFromSlot(slot)) {
            node = owner.getHostAndPort();
        }
        return cluster.getClusterNodes().get(node.toString());
    }

    /** The client's pool of connections to each master of a cluster, once each ({@link ServerState#masterSlots}): every slot's server. */
    public static List<Pool<Connection>> masters(RedisClusterClient cluster) {
        List<Pool<Connection>> pools = new ArrayList<>();
        for (List<ServerState.SlotRange> ranges : ServerState.masterSlots(cluster).values()) {
            Pool<Connection> pool = serverOf(cluster, ranges.get(0).from());
            if (pools.stream().noneMatch(known -> known == pool)) {
                pools.add(pool);
            }
        }
        return pools;
    }

    /** A new connection made like those of {@code pool}, outside it. */
    public static Connection make(Pool<Connection> pool) {
        try {
            Connection c = pool.getFactory().makeObject().getObject();
            MADE.put(c, pool);
            return c;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not connect: " + e.getMessage(), e);
        }
    }

    /** Closes a dedicated connection; one that broke (its server closed it, or it timed out) counts against its server. */
    public static void close(Connection c) {
        Pool<Connection> server = MADE.remove(c);
        if (server != null && c.isBroken()) {
            BROKE.computeIfAbsent(server, s -> new AtomicLong()).incrementAndGet();
        }
        c.close();
    }

    /** How many dedicated connections made like those of {@code pool} closed broken so far ({@link #close}). */
    public static long breaks(Pool<Connection> pool) {
        AtomicLong broke = BROKE.get(pool);
        return broke == null ? 0 : broke.get();
    }
}
