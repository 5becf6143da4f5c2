package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain whose server closes its connections mid-way goes on, and says what happened in migrate's plain words: not
 * that the server refused a call (what an out-of-memory or read-only server does), in Jedis's words for a closed stream.
 */
class LostConnectionTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aDrainWhoseServerClosesItsConnectionsSaysSoAndGoesOn(@TempDir Path dir) throws Exception {
        Jobs jobs = Jobs.on(Wire.open(SERVER.client()), "plain");
        for (int i = 0; i < 3; i++) {
            jobs.enqueue(("job " + i).getBytes(StandardCharsets.UTF_8));
        }
        Path began = dir.resolve("began");
        Path go = dir.resolve("go");
        // the first job's handler says it began, then waits (at most 20 s) while the test closes the drain's connections
        String handler = "touch " + began + "; for i in $(seq 200); do test -e " + go + " && exit 0; sleep 0.1; done; exit 0";
        CompletableFuture<CliRun> drain = CompletableFuture.supplyAsync(() ->
                CliRun.of("drain", "--target", SERVER.uri(), "--queue", "plain", "--handler", "exec", handler));
        for (int i = 0; i < 200 && !Files.exists(began); i++) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(began), "the drain's handler never ran");
        SERVER.dropConnections();
        Files.writeString(go, "");
        CliRun r = drain.get(30, TimeUnit.SECONDS);
        assertEquals(ExitCodes.OK, r.code(), r.all());
        assertTrue(r.out().contains("3 claimed, 3 completed"), r.all());
        assertTrue(r.err().contains("emq-migrate drain: the target " + SERVER.endpoint().describe() + " closed the connection (a restart,"
                + " CLIENT KILL, a proxy or the network), which the drain tries again on a new connection"), r.all());
        assertFalse(r.err().contains("refused a call") || r.err().contains("Unexpected end of stream"), r.all());
    }
}
