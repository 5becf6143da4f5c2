package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.server.LocalServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * {@code migrate} refuses a source or target that may evict keys without a TTL (an allkeys policy under a
 * maxmemory), or that is a replica, before it writes anything, naming the server and what to change, and
 * {@code plan} reports it blocked; a server it may not ask ({@code INFO} refused) is noted, and the migration goes on.
 */
class UnfitServerTest {
    private static void v1Queue(LocalServer server) {
        try (Jedis admin = new Jedis(server.hostAndPort())) {
            admin.hset("bull:q:1", Map.of("name", "n", "data", "{}", "timestamp", "1"));
            admin.lpush("bull:q:wait", "1");
        }
    }

    private static void evicting(LocalServer server) {
        try (Jedis admin = new Jedis(server.hostAndPort())) {
            admin.configSet("maxmemory-policy", "allkeys-lru");
            admin.configSet("maxmemory", "1gb");
        }
    }

    private static Set<String> keys(LocalServer server) {
        try (Jedis admin = new Jedis(server.hostAndPort())) {
            return admin.keys("*");
        }
    }

    /** migrate from {@code source} to {@code target} is refused (exit 3) saying each of {@code said}, and writes nothing to either. */
    /** Migrate is refused saying {@code said}, nothing written; what it printed on standard error. */
    private static String assertRefusedUntouched(LocalServer source, LocalServer target, String... said) {
        CliRun r = CliRun.of("migrate", "--yes", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, r.code(), r.all());
        for (String words : said) {
            assertTrue(r.err().contains(words), r.err());
        }
        assertEquals(Set.of(), keys(target), "nothing written to the target");
        assertEquals(Set.of("bull:q:1", "bull:q:wait"), keys(source), "v1 untouched");
        return r.err();
    }

    @Test
    void anEvictingTargetIsRefusedBeforeAnythingIsWritten() {
        try (LocalServer source = LocalServer.start(); LocalServer target = LocalServer.start()) {
            v1Queue(source);
            evicting(target);
            assertRefusedUntouched(source, target, target.uri() + " (the v2 server or cluster) may evict keys that have no TTL when it"
                    + " runs short of memory (maxmemory-policy allkeys-lru, maxmemory 1073741824 bytes)",
                    "set its maxmemory-policy to noeviction", "; then migrate: nothing was written");
        }
    }

    @Test
    void anEvictingSourceIsRefusedToo() {
        try (LocalServer source = LocalServer.start(); LocalServer target = LocalServer.start()) {
            v1Queue(source);
            evicting(source);
            assertRefusedUntouched(source, target, source.uri() + " (the v1 server) may evict keys");
        }
    }

    @Test
    void aServerWhosePolicyCannotBeReadIsNotedAndMigrated() {
        try (LocalServer server = LocalServer.start()) {
            v1Queue(server);
            try (Jedis admin = new Jedis(server.hostAndPort())) {
                admin.aclSetUser("migrator", "on", ">pw", "~*", "&*", "+@all", "-info");
            }
            String uri = "redis://migrator:pw@127.0.0.1:" + server.port();
            CliRun r = CliRun.of("migrate", "--yes", "--source", uri, "--target", uri, "--queue", "q");
            assertEquals(0, r.code(), r.all());
            assertTrue(r.err().contains("could not read the eviction policy of") && r.err().contains("INFO was refused (NOPERM")
                    && r.err().contains("nor can retirement count its replicas"), r.err());
            assertFalse(keys(server).contains("bull:q:1"), "migrated and retired: " + keys(server));
        }
    }

    /** The wire scenarios write: a replica named as their target is refused in one line, nothing run. */
    @Test
    void conformanceAgainstAReplicaIsRefusedInOneLine() {
        try (LocalServer master = LocalServer.start(); LocalServer replica = LocalServer.startReplicaOf(master)) {
            CliRun r = CliRun.of("conformance", "--target", replica.uri());
            assertEquals(ExitCodes.REFUSED, r.code(), r.all());
            assertTrue(r.err().contains(replica.uri() + " is a read-only replica of") && r.err().contains("point --target at the master"),
                    r.all());
            assertEquals("", r.out(), "no scenario ran");
        }
    }

    /** A fresh client reaches the master alone: the replicas are those its {@code INFO replication} names online. */
    @Test
    void anEvictingReplicaOfTheTargetIsRefusedToo() {
        try (LocalServer source = LocalServer.start(); LocalServer target = LocalServer.start();
             LocalServer replica = LocalServer.startReplicaOf(target)) {
            v1Queue(source);
            evicting(replica);
            assertRefusedUntouched(source, target, target.uri() + " (the v2 server or cluster) may evict keys that have no TTL when it"
                    + " runs short of memory (" + replica.hostAndPort() + " (a replica, once a failover promotes it) (maxmemory-policy"
                    + " allkeys-lru, maxmemory 1073741824 bytes))");
        }
    }

    /** A replica that refuses the run's user (ACL users are not replicated) is noted; the run goes on, its retirement waits for it. */
    @Test
    void aReplicaWhosePolicyCannotBeReadIsNotedAndMigrated() {
        try (LocalServer server = LocalServer.start(); LocalServer replica = LocalServer.startReplicaOf(server)) {
            v1Queue(server);
            try (Jedis admin = new Jedis(server.hostAndPort())) {
                admin.aclSetUser("migrator", "on", ">pw", "~*", "&*", "+@all");
            }
            String uri = "redis://migrator:pw@127.0.0.1:" + server.port();
            CliRun r = CliRun.of("migrate", "--yes", "--source", uri, "--target", uri, "--queue", "q");
            assertEquals(0, r.code(), r.all());
            assertTrue(r.err().contains("could not read the eviction policy of the replicas " + replica.hostAndPort() + " (WRONGPASS")
                    && r.err().contains("as a failover promotes one"), r.err());
            assertFalse(keys(server).contains("bull:q:1"), "migrated and retired: " + keys(server));
        }
    }

    @Test
    void planReportsAnEvictingServerAsBlocked(@TempDir Path dir) throws Exception {
        try (LocalServer source = LocalServer.start(); LocalServer target = LocalServer.start()) {
            v1Queue(source);
            evicting(target);
            CliRun text = CliRun.of("plan", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, text.code(), text.all());
            assertTrue(text.out().startsWith("BLOCKED: " + target.uri() + " (the v2 server or cluster) may evict keys that have no TTL")
                    && text.out().contains("; migrate refuses it as it is\n"), text.out());
            assertTrue(text.out().contains("  ready"), "the queue itself is ready: " + text.out());
            CliRun json = CliRun.of("plan", "--json", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, json.code(), json.all());
            JsonNode doc = new ObjectMapper().readTree(json.out());
            assertTrue(doc.get("blocked").asBoolean(), json.out());
            assertEquals(1, doc.get("serverProblems").size(), json.out());
            Path html = dir.resolve("plan.html");
            CliRun page = CliRun.of("plan", "--html", html.toString(), "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, page.code(), page.all());
            String written = Files.readString(html);
            assertTrue(written.contains("BLOCKED: a server above is not fit for a migration") && !written.contains("a queue above has anomalies"),
                    written);
            try (Jedis admin = new Jedis(target.hostAndPort())) {
                admin.configSet("maxmemory-policy", "noeviction");
            }
            CliRun ready = CliRun.of("plan", "--source", source.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(0, ready.code(), ready.all());
            assertFalse(ready.out().contains("BLOCKED"), ready.out());
        }
    }

    @Test
    void aReplicaIsRefusedByMigrateAndReportedByPlan() throws InterruptedException {
        try (LocalServer master = LocalServer.start(); LocalServer replica = LocalServer.start(); LocalServer target = LocalServer.start()) {
            v1Queue(master);
            try (Jedis copy = new Jedis(replica.hostAndPort())) {
                copy.replicaof(LocalServer.HOST, master.port());
                for (int i = 0; i < 500 && !copy.exists("bull:q:wait"); i++) {
                    Thread.sleep(20);
                }
            }
            String problem = replica.uri() + " (the v1 server) is a read-only replica of " + LocalServer.HOST + ":" + master.port()
                    + ": a migration writes to both servers; point --source at the master";
            String refusal = assertRefusedUntouched(replica, target, problem);
            assertFalse(refusal.contains("first write claims"), "the refusal alone, no note of the fence a write would claim: "
                    + refusal);
            CliRun plan = CliRun.of("plan", "--source", replica.uri(), "--target", target.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
            assertTrue(plan.out().startsWith("BLOCKED: " + problem + "; migrate refuses it as it is"), plan.out());
            assertFalse(plan.err().contains("first write claims"), "a blocked plan: " + plan.err());
        }
    }
}
