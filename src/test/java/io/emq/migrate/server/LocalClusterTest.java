package io.emq.migrate.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LocalClusterTest {
    /** A node stalled past the client's 2 s read timeout (as an fsync on a loaded CI machine did) is waited for. */
    @Test
    void aNodeThatStallsLongerThanTheReadTimeoutIsWaitedForNotFailedOn() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3)) {
            LocalServer node = cluster.nodes().get(0);
            node.stall();
            Thread resume = new Thread(() -> {
                LocalServer.sleep(3_000);
                node.resume();
            });
            resume.start();
            long started = System.nanoTime();
            try {
                assertDoesNotThrow(cluster::awaitOk);
            } finally {
                resume.join();
            }
            assertTrue(System.nanoTime() - started >= 2_500_000_000L, "awaitOk returned while the node was stopped");
        }
    }
}
