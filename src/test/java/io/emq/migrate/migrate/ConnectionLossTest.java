package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ClientKillParams;

/**
 * A lost connection reads in plain words, without a Java class name: a stalled server (SIGSTOP) did not answer within
 * the read timeout and is named, with how long it has been silent, once the watch of its server finds it silent; a
 * server that closed the connection, or that nothing listens for, is told as such.
 */
class ConnectionLossTest {
    private static final Pattern JAVA_NAME = Pattern.compile("Exception|java\\.|redis\\.clients");

    @Test
    void aStalledServerIsNamedAsNotAnsweringWithinTheReadTimeout() {
        try (LocalServer server = LocalServer.start(); UnifiedJedis client = Endpoint.parse(server.uri()).open();
             ServerWatch watch = new ServerWatch("the target", client);
             Jedis shortWait = new Jedis(server.hostAndPort(), DefaultJedisClientConfig.builder().resp2().timeoutMillis(200).build())) {
            shortWait.ping();
            for (int i = 0; i < 5; i++) {
                pause(); // the watch's first PING, at once on its own thread, learns the server's address (a loaded suite may delay it)
            }
            server.stall();
            try {
                JedisConnectionException lost = assertThrows(JedisConnectionException.class, shortWait::ping);
                long started = System.nanoTime();
                while (watch.silence().isEmpty() && System.nanoTime() - started < 20_000_000_000L) {
                    pause();
                }
                String said = ConnectionLoss.of(lost, watch.silence(), Optional.empty());
                assertTrue(said.matches("the target " + Pattern.quote(server.hostAndPort().toString()) + " did not answer within the"
                        + " read timeout \\(10 s\\), and has not answered for \\d+ s"), said);
                assertTrue(JAVA_NAME.matcher(said).results().findAny().isEmpty(), said);
            } finally {
                server.resume();
            }
            long started = System.nanoTime();
            while (watch.silence().isPresent() && System.nanoTime() - started < 20_000_000_000L) {
                pause();
            }
            assertEquals(Optional.empty(), watch.silence(), "a server that answers again is silent no more");
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aClosedOrRefusedConnectionIsToldAsSuch() {
        try (LocalServer server = LocalServer.start(); Jedis victim = new Jedis(server.hostAndPort());
             Jedis admin = new Jedis(server.hostAndPort())) {
            victim.ping();
            admin.clientKill(ClientKillParams.clientKillParams().type(ClientType.NORMAL));
            JedisConnectionException closed = assertThrows(JedisConnectionException.class, victim::ping);
            assertEquals("a server (the source or the target) closed the connection (a restart, CLIENT KILL, a proxy or the network)",
                    ConnectionLoss.of(closed, Optional.empty(), Optional.empty()));
        }
        HostAndPort nobody;
        try (LocalServer gone = LocalServer.start()) {
            nobody = gone.hostAndPort(); // nothing listens there once it stopped
        }
        JedisConnectionException refused = assertThrows(JedisConnectionException.class, () -> {
            try (Jedis none = new Jedis(nobody)) {
                none.ping();
            }
        });
        assertEquals("a server (the source or the target) refused the connection (nothing listens at its address: it is down or"
                + " restarting)", ConnectionLoss.of(refused, Optional.empty(), Optional.empty()));
    }
}
