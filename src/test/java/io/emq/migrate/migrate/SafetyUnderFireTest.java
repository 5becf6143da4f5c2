package io.emq.migrate.migrate;

import io.emq.migrate.payload.PayloadPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The migrator killed for real (SIGKILL of a child JVM, and a halt at chosen points), its connections
 * dropped mid-step (CLIENT KILL), and a v1 producer adding jobs while it runs: a re-run always ends
 * with every job exactly once, payloads intact, in serve order.
 */
class SafetyUnderFireTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final int JOBS = 3000;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofMillis(300));

    /**
     * A new connection pool, as a re-run by an operator (a new process) has: after CLIENT KILL the
     * shared pool of the extension still holds the killed connections.
     */
    private static UnifiedJedis fresh() {
        return SERVER.endpoint().open();
    }

    private static void generate() {
        try (UnifiedJedis client = fresh()) {
            client.flushAll();
            V1QueueGenerator.addWaiting(client, "big", 1, JOBS, 200);
        }
    }

    /** Every v1 job 1..n is exactly one pending row, in v1 serve order (job 1 first), payload intact. */
    private static void assertMigrated(int n) {
        try (UnifiedJedis client = fresh()) {
            assertMigrated(client, n);
        }
    }

    private static void assertMigrated(UnifiedJedis client, int n) {
        Keys keys = Keys.queue("big");
        List<String> pending = client.zrange(keys.pending(), 0, -1);
        assertEquals(n, pending.size(), "one row per job");
        Journal journal = new Journal(Wire.open(client), "big");
        for (int i = 0; i < n; i++) {
            BrandedId id = BrandedId.of(pending.get(i));
            String v1 = new String(journal.ids().lookupV2(id).orElseThrow());
            assertEquals(Integer.toString(i + 1), v1, "serve order at position " + i);
            byte[] payload = client.hget(keys.job(id).getBytes(), "payload".getBytes());
            assertEquals(V1QueueGenerator.payload(i + 1, 200), new String(PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()));
        }
        assertEquals("retired", journal.header().get(JournalHeader.STATE).orElseThrow().wireName());
        assertEquals(java.util.Set.of("bull:big:meta", "bull:big:id"), client.keys("bull:big:*"));
    }

    private static Process child(String crashAt) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.emq.migrate.cli.Main", "migrate",
                "--source", SERVER.uri(), "--all", "--lease", "300ms", "--yes"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File("/dev/null"));
        if (crashAt != null) {
            pb.environment().put("EMQ_CRASH_AT", crashAt);
        }
        return pb.start();
    }

    private static void rerun() throws InterruptedException {
        Thread.sleep(400);
        try (UnifiedJedis client = fresh()) {
            List<MigrationResult> r = new Migrator(Wire.unfenced(client), Wire.open(client), SERVER.uri(), OPTIONS,
                    Checkpoints.none()).migrate(List.of("bull"), List.of());
            assertTrue(r.get(0).ok(), r.toString());
        }
    }

    @Test
    void sigkillOfAChildMigratorAtAnyMomentThenARerunLosesAndDoublesNothing() throws Exception {
        for (long killAfterMs : new long[] {300, 700, 1100}) {
            generate();
            Process p = child(null);
            Thread.sleep(killAfterMs);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            rerun();
            assertMigrated(JOBS);
        }
    }

    @Test
    void aChildHaltedInsideStepsThenARerunLosesAndDoublesNothing() throws Exception {
        for (String at : List.of("20:ids minted#2", "30:rows written#2", "120:job keys deleted")) {
            generate();
            Process p = child(at);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(137, p.exitValue(), "the child died at " + at);
            rerun();
            assertMigrated(JOBS);
        }
    }

    @Test
    void droppedConnectionsMidStepAreRetriedOrFailCleanlyAndARerunCompletes() throws Exception {
        for (long dropAfterMs : new long[] {20, 80, 200}) {
            generate();
            CompletableFuture<List<MigrationResult>> run = CompletableFuture.supplyAsync(() ->
                    MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.none(), List.of("bull")));
            Thread.sleep(dropAfterMs);
            try (Jedis admin = SERVER.node(SERVER.nodes().get(0))) {
                admin.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "normal", "SKIPME", "yes");
            }
            try {
                run.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException failedCleanly) {
                // a dropped connection may end the run; the re-run below must complete it
            }
            rerun();
            assertMigrated(JOBS);
        }
    }

    /**
     * A v1 producer's add of 20 jobs, {@code from} on, in one step as BullMQ adds (the add counter
     * {@code INCRBY}, then the hashes and the ids pushed onto wait, or paused while the queue is paused).
     * A counter the migration froze or stamped with its tombstone is no integer: the add is refused
     * before it writes anything, and the producer stops (false).
     */
    private static boolean addTwenty(long from) {
        try {
            SERVER.client().eval("""
                    local last = redis.call('INCRBY', KEYS[1], 20)
                    local list = redis.call('HEXISTS', KEYS[2], 'paused') == 1 and KEYS[4] or KEYS[3]
                    for n = last - 19, last do
                      redis.call('HSET', ARGV[1] .. n, 'name', 'send', 'data', ARGV[n - last + 21], 'opts', '{"attempts":3}',
                        'timestamp', tostring(1700000000000 + n), 'delay', '0', 'priority', '0')
                      redis.call('LPUSH', list, n)
                    end
                    return last
                    """, List.of("bull:big:id", "bull:big:meta", "bull:big:wait", "bull:big:paused"), addArgs(from));
            return true;
        } catch (JedisDataException refused) {
            return false;
        }
    }

    /** The key prefix, then the payloads of jobs {@code from} .. {@code from + 19}. */
    private static List<String> addArgs(long from) {
        List<String> args = new ArrayList<>(List.of("bull:big:"));
        for (long n = from; n < from + 20; n++) {
            args.add(V1QueueGenerator.payload(n, 200));
        }
        return args;
    }

    @Test
    void jobsAV1ProducerAddsDuringTheMigrationAreMigratedBeforeRetirement() throws Exception {
        generate();
        CompletableFuture<Integer> producer = CompletableFuture.supplyAsync(() -> {
            int added = 0;
            while (added < 200 && addTwenty(JOBS + added + 1)) {
                added += 20;
                try {
                    Thread.sleep(15);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return added;
        });
        List<MigrationResult> r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.none(), List.of("bull"));
        int added = producer.get(30, TimeUnit.SECONDS);
        if (!r.get(0).ok()) {
            rerun();
        }
        int total = JOBS + added;
        List<String> bigKeys;
        try (UnifiedJedis client = fresh()) {
            bigKeys = new ArrayList<>(client.keys("bull:big:*"));
        }
        if (bigKeys.size() > 1) {
            rerun();
        }
        assertMigrated(total);
    }
}
