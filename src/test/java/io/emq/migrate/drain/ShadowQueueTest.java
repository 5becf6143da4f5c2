package io.emq.migrate.drain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ShadowQueueTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    /**
     * Every key of the server but the fence: its type, its exact contents (binary, order-independent
     * where the type is) and whether it expires. Not DUMP: a hash's DUMP bytes change when the server
     * rehashes it, which a read can cause, though no byte of its contents changed.
     */
    private static TreeMap<String, String> keyspace() {
        TreeMap<String, String> out = new TreeMap<>();
        var c = SERVER.client();
        for (String k : c.keys("*")) {
            if (k.equals("{emq}:version")) {
                continue;
            }
            byte[] key = k.getBytes(StandardCharsets.UTF_8);
            String type = c.type(k);
            String value = switch (type) {
                case "string" -> b64(c.get(key));
                case "hash" -> new TreeMap<>(c.hgetAll(key).entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(e -> b64(e.getKey()), e -> b64(e.getValue())))).toString();
                case "zset" -> c.zrangeWithScores(key, 0, -1).stream().map(t -> b64(t.getBinaryElement()) + "@" + t.getScore()).toList().toString();
                case "list" -> c.lrange(key, 0, -1).stream().map(ShadowQueueTest::b64).toList().toString();
                case "set" -> new java.util.TreeSet<>(c.smembers(key).stream().map(ShadowQueueTest::b64).toList()).toString();
                default -> type;
            };
            out.put(k, type + " " + value + " ttl=" + (c.pttl(k) > 0));
        }
        return out;
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    private static DrainReport drainACopy(String queue) throws InterruptedException {
        Wire wire = Wire.open(SERVER.client());
        try (ShadowQueue copy = ShadowQueue.of(SERVER.client(), queue).copy()) {
            Jobs.on(wire, copy.name()).resume();
            return Drain.ofShadow(wire, queue, copy).run(DrainOptions.defaults(), job -> { }, new ConsumerListener() { });
        }
    }

    /** The keys added, removed or changed between two readings. */
    private static Set<String> changed(TreeMap<String, String> before, TreeMap<String, String> after) {
        Set<String> out = new java.util.TreeSet<>();
        before.forEach((k, v) -> {
            if (!v.equals(after.get(k))) {
                out.add(k);
            }
        });
        after.keySet().stream().filter(k -> !before.containsKey(k)).forEach(out::add);
        return out;
    }

    @Test
    void aShadowDrainPassesAndLeavesTheServerByteForByteAsItWas() throws Exception {
        MigratedFixture.migrate(SERVER, "orders");
        SERVER.client().hset("emq:{orders}:meta", "paused", "1");
        TreeMap<String, String> before = keyspace();
        DrainReport r = drainACopy("orders");
        assertTrue(r.passed(), r.checks() + " " + r.problems());
        assertEquals(12L, r.before().get("pending"), "the copy held the real backlog");
        assertEquals(0L, r.after().get("pending"));
        assertEquals(12, r.stats().orElseThrow().completed());
        assertEquals(Set.of(), changed(before, keyspace()), "the real queue (and everything else) is unchanged");
        assertEquals(Set.of(), SERVER.client().keys("emq:{orders-shadow-*"), "the copy is deleted");
    }

    @Test
    void aShadowDrainOfAFlowChildQueueNeverWritesItsParentQueue() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        var results = new Migrator(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), SERVER.uri(),
                MigrationOptions.defaults(), Checkpoints.none()).migrate(List.of("bull"), List.of("flows-parent", "flows-child"));
        assertTrue(results.stream().allMatch(MigrationResult::ok), results.toString());
        assertFalse(SERVER.client().keys("emq:{flows-parent}:job:*").isEmpty());
        TreeMap<String, String> before = keyspace();
        DrainReport r = drainACopy("flows-child");
        assertTrue(r.stats().orElseThrow().completed() > 0);
        assertEquals(Set.of(), changed(before, keyspace()), "the parent queue was not told of the copy's completions");
    }

    /**
     * The copy holds every key of the queue with its contents and whether it expires: small keys and ones past a chunk
     * (a hash, a list and a zset of 1,500 entries, read and written a chunk at a time), a set, a string; a row whose
     * parent_queue names the queue points at the copy, one naming another queue is kept. Closing it leaves none of its keys.
     */
    @Test
    void aCopyHoldsEveryKeyOfTheQueueAndClosingItLeavesNone() {
        var c = SERVER.client();
        c.flushAll();
        c.hset("emq:{q}:job:a", java.util.Map.of("state", "pending", "parent_queue", "q", "parent", "JOBp"));
        c.hset("emq:{q}:job:b", java.util.Map.of("state", "pending", "parent_queue", "other"));
        for (int i = 0; i < 1500; i++) {
            c.hset("emq:{q}:big-hash", "f" + i, "v" + i);
            c.rpush("emq:{q}:big-list", "i" + i);
            c.zadd("emq:{q}:pending", i, "m" + i);
        }
        c.sadd("emq:{q}:job:a:deps", "x", "y");
        c.set("emq:{q}:dedup:k", "JOBx");
        c.pexpire("emq:{q}:dedup:k", 600_000);
        c.rpush("emq:{q}:job:a:logs", "one", "two");
        c.set("emq:{other}:meta", "not of the queue");
        TreeMap<String, String> before = keyspace();
        try (ShadowQueue copy = ShadowQueue.of(c, "q").copy()) {
            TreeMap<String, String> after = keyspace();
            String base = "emq:{" + copy.name() + "}:";
            TreeMap<String, String> copied = new TreeMap<>();
            after.forEach((k, v) -> {
                if (k.startsWith(base)) {
                    copied.put("emq:{q}:" + k.substring(base.length()), v);
                }
            });
            TreeMap<String, String> expected = new TreeMap<>();
            before.forEach((k, v) -> {
                if (k.startsWith("emq:{q}:")) {
                    expected.put(k, v);
                }
            });
            String parentQueue = b64("parent_queue".getBytes(StandardCharsets.UTF_8)) + "=";
            expected.put("emq:{q}:job:a", expected.get("emq:{q}:job:a").replace(parentQueue + b64("q".getBytes(StandardCharsets.UTF_8)),
                    parentQueue + b64(copy.name().getBytes(StandardCharsets.UTF_8))));
            assertEquals(Set.of(), changed(expected, copied), "every key copied as it is");
            assertEquals(8, copy.keys());
            assertTrue(copied.get("emq:{q}:dedup:k").endsWith("ttl=true"), "the TTL is copied");
        }
        assertEquals(before, keyspace(), "closing the copy leaves the server as it was");
    }

    /** Rows of megabytes are copied a few at a time (a group a pipeline), each whole, between small ones. */
    @Test
    void rowsOfMegabytesAreCopiedWhole() {
        var c = SERVER.client();
        c.flushAll();
        byte[] big = new byte[3 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        for (int n = 0; n < 5; n++) {
            c.hset(("emq:{q}:job:big" + n).getBytes(StandardCharsets.UTF_8), java.util.Map.of("state".getBytes(StandardCharsets.UTF_8),
                    "pending".getBytes(StandardCharsets.UTF_8), "payload".getBytes(StandardCharsets.UTF_8), big));
            c.hset("emq:{q}:job:small" + n, java.util.Map.of("state", "pending", "payload", "{}"));
        }
        c.set("emq:{q}:dedup:big".getBytes(StandardCharsets.UTF_8), big);
        try (ShadowQueue copy = ShadowQueue.of(c, "q").copy()) {
            assertEquals(11, copy.keys());
            for (int n = 0; n < 5; n++) {
                assertTrue(java.util.Arrays.equals(big, c.hget(("emq:{" + copy.name() + "}:job:big" + n).getBytes(StandardCharsets.UTF_8),
                        "payload".getBytes(StandardCharsets.UTF_8))), "row big" + n);
                assertEquals("{}", c.hget("emq:{" + copy.name() + "}:job:small" + n, "payload"));
            }
            assertTrue(java.util.Arrays.equals(big, c.get(("emq:{" + copy.name() + "}:dedup:big").getBytes(StandardCharsets.UTF_8))));
        }
    }
}
