package io.emq.migrate.migrate;

import io.emq.migrate.wire.DaemonThreads;
import io.emq.migrate.wire.DedicatedConnection;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.Pool;

/**
 * Whether the servers of a client answer, for what a run says while it waits on one: a daemon thread sends {@code PING}
 * to each (a cluster's masters in turn) every second, on a connection of its own made like the client's but outside its
 * pool (so a pool the run's threads all hold never makes a server look silent), and keeps since when a {@code PING} has
 * gone unanswered. Any reply is an answer, an error too ({@code LOADING}, {@code NOPERM}).
 */
final class ServerWatch implements AutoCloseable {
    /** How long a server goes without answering before it is told silent. */
    static final Duration SILENT = Duration.ofSeconds(3);
    private static final long EVERY_MS = 1000;

    /** A server silent for a while: {@code name} says which ({@code the target 127.0.0.1:6379}). */
    record Silence(String name, Duration silentFor) {
        /** {@code the target 127.0.0.1:6379, which has not answered for 15 s}. */
        @Override
        public String toString() {
            return name + ", which has not answered for " + silentFor.toSeconds() + " s";
        }
    }

    private final String role;
    private final UnifiedJedis client;
    private final List<Node> nodes;
    private final ScheduledExecutorService pinger = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("emq-migrate-watch"));

    /** Watches the servers of {@code client}, named {@code role} ({@code the source}, {@code the target}). */
    ServerWatch(String role, UnifiedJedis client) {
        this.role = role;
        this.client = client;
        this.nodes = servers(client).stream().map(pool -> new Node(role, pool)).toList();
        pinger.scheduleWithFixedDelay(this::pingAll, 0, EVERY_MS, TimeUnit.MILLISECONDS);
    }

    /** The server watched ({@code the target 127.0.0.1:6379}) once its address is known, else its role; a cluster's role. */
    String name() {
        return nodes.size() == 1 ? nodes.get(0).name() : role;
    }

    /**
     * The server silent the longest, when one has been silent for {@link #SILENT} or more; not a cluster's master the
     * client no longer knows, as its slot map renewed after a failover that replaced it (a dead master, not waited on).
     */
    Optional<Silence> silence() {
        long now = System.nanoTime();
        Collection<?> known = client instanceof RedisClusterClient cluster ? cluster.getClusterNodes().values() : null;
        return nodes.stream().filter(n -> n.unansweredSince != 0 && (known == null || known.contains(n.pool)))
                .map(n -> new Silence(n.name(), Duration.ofNanos(now - n.unansweredSince)))
                .filter(s -> s.silentFor().compareTo(SILENT) >= 0)
                .max(Comparator.comparing(Silence::silentFor));
    }

    /**
     * How many of each server's connections broke so far (closed by the server, timed out): its pooled ones (given back
     * to their pool broken) and its dedicated ones ({@link DedicatedConnection#breaks}: a guard's {@code WATCH}, the
     * change feed's), for {@link #brokeSince}.
     */
    long[] breaks() {
        return nodes.stream().mapToLong(Node::breaks).toArray();
    }

    /** The servers ({@code the target 127.0.0.1:6379}) a connection of which broke since {@code before} ({@link #breaks}). */
    List<String> brokeSince(long[] before) {
        return IntStream.range(0, nodes.size()).filter(i -> nodes.get(i).breaks() > before[i]).mapToObj(i -> nodes.get(i).name()).toList();
    }

    private void pingAll() {
        nodes.forEach(Node::ping);
    }

    /** Stops the pings; the watch's connections close once a PING under way ended (it never waits for one). */
    @Override
    public void close() {
        pinger.execute(() -> nodes.forEach(Node::close));
        pinger.shutdown();
    }

    /** The pools of the client's servers: its one server, or a cluster's masters (none when they cannot be listed). */
    private static List<Pool<Connection>> servers(UnifiedJedis client) {
        try {
            return client instanceof RedisClusterClient cluster ? DedicatedConnection.masters(cluster)
                    : List.of(DedicatedConnection.serverOf(client, new byte[0]));
        } catch (RuntimeException unlisted) {
            return List.of();
        }
    }

    /** One server pinged: its connection (made again after a loss), and since when a PING is unanswered (0: none is). */
    private static final class Node {
        private final String role;
        private final Pool<Connection> pool;
        private Connection connection;
        private volatile String address = "";
        private volatile long unansweredSince;

        Node(String role, Pool<Connection> pool) {
            this.role = role;
            this.pool = pool;
        }

        String name() {
            return address.isEmpty() ? role : role + " " + address;
        }

        /**
         * The pool's connections destroyed other than as idle or failing a test (those given back broken), and the
         * dedicated connections made like them that closed broken.
         */
        long breaks() {
            return pool.getDestroyedCount() - pool.getDestroyedByEvictorCount() - pool.getDestroyedByBorrowValidationCount()
                    + DedicatedConnection.breaks(pool);
        }

        void ping() {
            if (unansweredSince == 0) {
                unansweredSince = System.nanoTime();
            }
            try {
                if (connection == null) {
                    connection = DedicatedConnection.make(pool);
                    address = connection.getHostAndPort().toString();
                }
                connection.ping();
                unansweredSince = 0;
            } catch (JedisDataException answered) {
                unansweredSince = 0;
            } catch (JedisConnectionException | IllegalStateException silent) {
                close();
            }
        }

        void close() {
            if (connection != null) {
                connection.close();
                connection = null;
            }
        }
    }
}
