package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A drain against a server that refuses its writes (here out of memory) says why on standard error, once, instead of
 * waiting in silence, and goes on retrying: once the server takes writes again, it drains the queue and ends.
 */
class DrainRefusedTest {
    @Test
    void aDrainWhoseWritesAreRefusedSaysWhyAndEndsOnceTheServerTakesThem() throws Exception {
        try (LocalServer server = LocalServer.start(); Jedis admin = new Jedis(server.hostAndPort())) {
            for (int id = 1; id <= 3; id++) {
                admin.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", Integer.toString(id)));
                admin.lpush("bull:q:wait", Integer.toString(id));
            }
            assertEquals(0, CliRun.of("migrate", "--yes", "--source", server.uri(), "--queue", "q").code());
            admin.configSet("maxmemory", "1");
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            AtomicInteger code = new AtomicInteger(-1);
            Thread drain = new Thread(() -> code.set(Cli.run(new String[] {"drain", "--target", server.uri(), "--queue", "q", "--handler",
                    "noop", "--no-progress"}, new PrintStream(OutputStream.nullOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8),
                    new Environment(Map.of(), Path.of("").toAbsolutePath(), false, false))));
            drain.start();
            String told = "emq-migrate drain: the server refused a call, which the drain retries until it is taken (";
            for (int i = 0; i < 500 && !err.toString(StandardCharsets.UTF_8).contains(told); i++) {
                Thread.sleep(20);
            }
            assertTrue(err.toString(StandardCharsets.UTF_8).contains(told) && err.toString(StandardCharsets.UTF_8)
                    .contains("OOM command not allowed"), err.toString(StandardCharsets.UTF_8)); // Redis 6.2 wraps a script's error
            Thread.sleep(1000); // a few more refused rounds
            admin.configSet("maxmemory", "0");
            drain.join(30_000);
            assertFalse(drain.isAlive(), "the drain ends once the server takes its writes");
            assertEquals(0, code.get(), err.toString(StandardCharsets.UTF_8));
            assertEquals(0, admin.zcard("emq:{q}:pending"));
            String said = err.toString(StandardCharsets.UTF_8);
            assertEquals(said.indexOf(told), said.lastIndexOf(told), "told once: " + said);
        }
    }
}
