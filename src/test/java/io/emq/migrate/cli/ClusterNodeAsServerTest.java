package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * One node of a cluster named as a single server is refused, with the way to name the cluster: it holds a share of the keys
 * only. A fixture is refused by a cluster.
 */
class ClusterNodeAsServerTest {
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();

    @Test
    void aClusterNodeNamedAsOneServerIsRefusedWithTheWayToNameTheCluster() {
        HostAndPort node = CLUSTER.nodes().get(0);
        String alone = "redis://" + node.getHost() + ":" + node.getPort();
        CliRun discover = CliRun.of("discover", "--source", alone);
        assertEquals(ExitCodes.USAGE, discover.code(), discover.all());
        assertTrue(discover.err().contains(alone.substring("redis://".length()) + " (the v1 server) is a node of a cluster: give --source as a"
                + " cluster, redis+cluster://host:port or several seeds"), discover.err());
        CliRun info = CliRun.of("info", "--target", alone);
        assertEquals(ExitCodes.USAGE, info.code(), info.all());
        assertTrue(info.err().contains("is a node of a cluster: give --target as a cluster"), info.err());

        CliRun asCluster = CliRun.of("discover", "--source", "redis+cluster://" + node.getHost() + ":" + node.getPort());
        assertEquals(0, asCluster.code(), asCluster.all());
    }

    /** A recorded v1 keyspace (keys without a hash tag) is refused by a cluster in one line, before its first write. */
    @Test
    void aFixtureLoadIntoAClusterIsRefusedBeforeItsFirstWrite() {
        HostAndPort node = CLUSTER.nodes().get(0);
        CliRun load = CliRun.of("fixture", "load", "--target", "redis+cluster://" + node.getHost() + ":" + node.getPort(), "node-5.65.1");
        assertEquals(ExitCodes.USAGE, load.code(), load.all());
        assertEquals("emq-migrate fixture: fixtures load into a standalone server only: their keys carry no hash tag (as BullMQ's"
                + " off a cluster), so a cluster would spread each queue over its slots, where it can be neither served nor migrated;"
                + " give --target as redis://host:port (a scratch server); nothing was written", load.err().strip());
        for (HostAndPort master : CLUSTER.nodes()) {
            try (Jedis jedis = CLUSTER.node(master)) {
                assertEquals(0, jedis.dbSize(), "nothing written on " + master);
            }
        }
    }
}
