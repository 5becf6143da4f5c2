package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.migrate.V1QueueGenerator;
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

    /**
     * A queue of a cluster source whose keys spread over the slots (no hash tag in its prefix or name) is refused by migrate
     * before anything is written (it failed its first step with the client's words before), saying why and what to do;
     * plan blocks it with a refusal of the same kind ({@code cross-slot}) and words, in its text and its JSON. A queue
     * whose prefix has the tag is not.
     */
    @Test
    void aClusterQueueWithoutAHashTagIsRefusedNamingTheTag() throws Exception {
        CLUSTER.client().flushAll();
        V1QueueGenerator.addWaiting(CLUSTER.client(), "bull", "emails", 1, 3, 20);
        V1QueueGenerator.addWaiting(CLUSTER.client(), "{bull}", "orders", 1, 3, 20);
        String why = "the v1 keys of bull:emails spread over the cluster's slots (neither its prefix nor its name holds a hash"
                + " tag), where no script can read or pause the queue at once, and BullMQ cannot serve it: BullMQ on a cluster"
                + " needs a prefix with a hash tag, such as {bull} (keys {bull}:emails:…); give the prefix your v1 app uses"
                + " (--prefix '{bull}'), or migrate these keys from a standalone server";
        CliRun migrate = CliRun.of("migrate", "--source", CLUSTER.uri(), "--target", CLUSTER.uri(), "--queue", "emails",
                "--no-retire");
        assertEquals(ExitCodes.REFUSED, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("bull:emails refused (cross-slot): " + why + "; nothing was written"), migrate.all());
        assertFalse(CLUSTER.client().exists("{emq}:migration:emails"), "no journal: nothing was written");
        CliRun plan = CliRun.of("plan", "--source", CLUSTER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().lines().anyMatch(line -> line.startsWith("cross-slot ") && line.endsWith(why)), plan.all());
        CliRun json = CliRun.of("plan", "--json", "--source", CLUSTER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, json.code(), json.all());
        JsonNode doc = new ObjectMapper().readTree(json.out());
        JsonNode queue = doc.get("queues").get(0);
        assertTrue(doc.get("blocked").asBoolean() && queue.get("blocked").asBoolean(), json.out());
        assertEquals("cross-slot", queue.get("refusals").get(0).get("kind").asText(), json.out());
        assertEquals(why, queue.get("refusals").get(0).get("reason").asText(), json.out());
        assertFalse(queue.get("refusals").get(0).get("lifted").asBoolean(), json.out());
        CliRun tagged = CliRun.of("plan", "--source", CLUSTER.uri(), "--prefix", "{bull}", "--queue", "orders");
        assertFalse(tagged.out().contains("BLOCKED"), tagged.all());
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
