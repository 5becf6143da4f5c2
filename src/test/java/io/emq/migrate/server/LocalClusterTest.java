package io.emq.migrate.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class LocalClusterTest {
    /** A node stalled past the client's 2 s read timeout (as an fsync on a loaded CI machine did) is waited for. */
    @Test
    void aNodeThatStallsLongerThanTheReadTimeoutIsWaitedForNotFailedOn() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3)) {
            long pid = cluster.nodes().get(0).process().pid();
            signal("-STOP", pid);
            Thread resume = new Thread(() -> {
                LocalServer.sleep(3_000);
                signal("-CONT", pid);
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

    private static void signal(String signal, long pid) {
        try {
            int exit = new ProcessBuilder("kill", signal, Long.toString(pid)).start().waitFor();
            assertTrue(exit == 0, "kill " + signal + " " + pid + " exited " + exit);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
