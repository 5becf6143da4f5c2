package io.emq.migrate.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

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

    /**
     * Every node, replicas too, starts with a config epoch of its own: no two tied, so none was bumped past the node
     * count to settle a tie. A replica so bumped could hold the greatest epoch, which {@code CLUSTER FAILOVER TAKEOVER}
     * keeps without a bump, and a master holding the same epoch won the tie and took the slots back: a failover undone.
     */
    @Test
    void everyNodeStartsWithAConfigEpochOfItsOwnSoNoneIsBumped() {
        try (LocalCluster cluster = LocalCluster.start(3, 1)) {
            List<LocalServer> all = new ArrayList<>(cluster.nodes());
            for (int i = 0; i < 3; i++) {
                all.addAll(cluster.replicasOf(i));
            }
            for (LocalServer node : all) {
                try (Jedis n = new Jedis(node.hostAndPort())) {
                    String info = n.clusterInfo();
                    assertTrue(info.contains("cluster_current_epoch:6"), node.hostAndPort() + "\n" + info);
                }
            }
        }
    }
}
