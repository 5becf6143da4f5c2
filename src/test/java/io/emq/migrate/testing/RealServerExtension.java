package io.emq.migrate.testing;

import io.emq.migrate.server.LocalCluster;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.server.ServerBinary;
import io.emq.migrate.wire.Endpoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Gives a test class a real server: {@code valkey-server} or {@code redis-server} from PATH, else the
 * embedded-redis binary, else a {@code valkey/valkey} container when Docker is present
 * ({@code EMQ_SERVER=valkey|redis|embedded|container} forces one). Every node is flushed before each
 * test; the servers stop after the class, leaving no files behind.
 *
 * <pre>{@code @RegisterExtension static final RealServerExtension SERVER = RealServerExtension.standalone();}</pre>
 */
public final class RealServerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private static final String CONTAINER_IMAGE = "valkey/valkey:8";

    private final int masters;
    private LocalServer server;
    private LocalCluster cluster;
    private GenericContainer<?> container;
    private UnifiedJedis client;

    private RealServerExtension(int masters) {
        this.masters = masters;
    }

    public static RealServerExtension standalone() {
        return new RealServerExtension(0);
    }

    /** Three masters on loopback ports, all slots assigned, ready before the first test. */
    public static RealServerExtension cluster() {
        return new RealServerExtension(3);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        boolean forceContainer = "container".equalsIgnoreCase(System.getenv(ServerBinary.FORCE_ENV));
        if (masters > 0) {
            cluster = LocalCluster.start(masters);
        } else if (!forceContainer && ServerBinary.find().isPresent()) {
            server = LocalServer.start();
        } else if (DockerClientFactory.instance().isDockerAvailable()) {
            container = new GenericContainer<>(CONTAINER_IMAGE).withExposedPorts(6379);
            container.start();
        } else {
            throw new IllegalStateException("no server for tests: no valkey-server/redis-server on PATH,"
                    + " no embedded binary for this platform, and no Docker engine");
        }
        client = endpoint().open();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        for (HostAndPort node : nodes()) {
            try (Jedis jedis = new Jedis(node, DefaultJedisClientConfig.builder().resp2().build())) {
                jedis.flushAll();
                jedis.scriptFlush();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (server != null) {
            server.close();
        }
        if (container != null) {
            container.stop();
        }
    }

    public String uri() {
        if (cluster != null) {
            return cluster.uri();
        }
        HostAndPort hp = nodes().get(0);
        return "redis://" + hp.getHost() + ":" + hp.getPort();
    }

    public Endpoint endpoint() {
        return Endpoint.parse(uri());
    }

    /** A shared client for the class: a cluster client for a cluster. */
    public UnifiedJedis client() {
        return client;
    }

    /** Every node's address: one for a standalone server, each master for a cluster. */
    public List<HostAndPort> nodes() {
        if (cluster != null) {
            return new ArrayList<>(cluster.nodes().stream().map(LocalServer::hostAndPort).toList());
        }
        if (server != null) {
            return List.of(server.hostAndPort());
        }
        return List.of(new HostAndPort(container.getHost(), container.getMappedPort(6379)));
    }

    /** A direct connection to one node, for tests that inspect where keys landed. */
    public Jedis node(HostAndPort node) {
        return new Jedis(node, DefaultJedisClientConfig.builder().resp2().build());
    }

    /** Cuts every client connection of every node ({@code CLIENT KILL TYPE normal}; not the one that asks), as a drop does. */
    public void dropConnections() {
        for (HostAndPort n : nodes()) {
            try (Jedis admin = node(n)) {
                admin.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "normal");
            }
        }
    }

    /**
     * Cuts the client connections of every node whose {@code CLIENT LIST} line holds {@code marker} ({@code " cmd=watch "},
     * {@code "sub=1"}), as a drop of those alone does; how many it cut.
     */
    public int dropConnections(String marker) {
        int cut = 0;
        for (HostAndPort n : nodes()) {
            try (Jedis admin = node(n)) {
                for (String line : admin.clientList().lines().filter(line -> line.contains(marker)).toList()) {
                    admin.sendCommand(Protocol.Command.CLIENT, "KILL", "ID", line.substring(3, line.indexOf(' ')));
                    cut++;
                }
            }
        }
        return cut;
    }

    /** Which binary serves the tests: valkey, redis, embedded or container. */
    public String source() {
        if (container != null) {
            return "container";
        }
        return (cluster != null ? cluster.nodes().get(0) : server).binary().source();
    }
}
