package io.emq.migrate.wire;

import java.util.LinkedHashSet;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Opens a client for an {@link Endpoint} whose pool holds enough connections for {@code n}
 * threads working at once (the default pool of 8 would make 16 consumer workers queue for a
 * connection). Standalone or cluster, RESP2, as {@link Endpoint#clientConfig()} says.
 */
public final class Clients {

    private Clients() {
    }

    public static UnifiedJedis open(Endpoint endpoint, int concurrency) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(Math.max(8, concurrency));
        pool.setMaxIdle(Math.max(8, concurrency));
        if (endpoint.cluster()) {
            return RedisClusterClient.builder().nodes(new LinkedHashSet<>(endpoint.seeds()))
                    .clientConfig(endpoint.clientConfig()).poolConfig(pool).build();
        }
        return RedisClient.builder().hostAndPort(endpoint.seeds().get(0))
                .clientConfig(endpoint.clientConfig()).poolConfig(pool).build();
    }
}
