package io.emq.migrate.bench;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the bench mains set up alike: the server (the one {@code --target} names, or their own on a
 * free loopback port), its version line, a v1 queue of waiting jobs, the heap and the load figures.
 */
final class BenchSetup {
    /** Every generated job's payload, in bytes. */
    static final int PAYLOAD_BYTES = 200;

    private BenchSetup() {
    }

    /** The server a bench runs against: {@code target}, or (when null) its own, which {@link #close} stops. */
    static final class Server implements AutoCloseable {
        private final LocalServer own;
        private final String uri;

        private Server(LocalServer own, String uri) {
            this.own = own;
            this.uri = uri;
        }

        String uri() {
            return uri;
        }

        public void close() {
            if (own != null) {
                own.close();
            }
        }
    }

    static Server server(String target) {
        if (target != null) {
            return new Server(null, target);
        }
        LocalServer own = LocalServer.start();
        return new Server(own, own.uri());
    }

    /** The server's {@code redis_version:…} (or {@code valkey_version:…}) line. */
    /**
     * Empties a bench's server however much a run before left on it: {@code FLUSHALL ASYNC} (a synchronous one of ten
     * million jobs outlasts the client's timeout), then waits until the server freed it all, so that the freeing takes
     * no CPU from the run measured next.
     */
    static void empty(UnifiedJedis server) {
        server.sendCommand(Protocol.Command.FLUSHALL, "ASYNC");
        try {
            while (!server.info("memory").contains("lazyfree_pending_objects:0")) {
                Thread.sleep(100);
            }
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("stopped while the server freed the run before's keys", stopped);
        }
    }

    static String version(UnifiedJedis client) {
        return client.info("server").lines()
                .filter(l -> l.startsWith("redis_version") || l.startsWith("valkey_version"))
                .findFirst().orElse("?");
    }

    /** Adds {@code jobs} waiting v1 jobs ({@value #PAYLOAD_BYTES}-byte payloads) to queue {@code bull:queue}; the seconds it took. */
    static double generateWaiting(UnifiedJedis client, String queue, int jobs) {
        return generateWaiting(client, queue, jobs, false, -1, "");
    }

    static double generateWaiting(UnifiedJedis client, String queue, int jobs, boolean deduplicated, long dedupTtlMs, String idPrefix) {
        long t0 = System.nanoTime();
        V1QueueGenerator.addWaiting(client, queue, 1, jobs, PAYLOAD_BYTES, deduplicated, dedupTtlMs, idPrefix);
        return secs(t0);
    }

    /** Gives every hundredth generated job of {@code queue} a logs list of one line, as a job that logs has; how many. */
    static long logEveryHundredth(UnifiedJedis client, String queue, int jobs, String idPrefix) {
        long logged = 0;
        try (AbstractPipeline p = client.pipelined()) {
            for (int n = 100; n <= jobs; n += 100, logged++) {
                p.rpush("bull:" + queue + ":" + idPrefix + n + ":logs", "a line of job " + n);
            }
            p.sync();
        }
        return logged;
    }

    /**
     * Adds {@code orphans} job hashes listed nowhere to {@code queue}, {@code orphan-<n>}, as v1's pause/resume wrappers
     * leave one at each add (its hash written, its listing refused WRONGTYPE).
     */
    static void addOrphans(UnifiedJedis client, String queue, int orphans) {
        try (AbstractPipeline p = client.pipelined()) {
            for (int n = 1; n <= orphans; n++) {
                p.hset("bull:" + queue + ":orphan-" + n, Map.of("name", "send", "data", "{}", "opts", "{}", "timestamp", "1"));
            }
            p.sync();
        }
    }

    /**
     * Adds {@code flows} flows to {@code queue} as BullMQ's FlowProducer leaves them: parent {@code f<n>} waiting for
     * its children {@code f<n>a} and {@code f<n>b}, which wait.
     */
    static void addFlows(UnifiedJedis client, String queue, int flows) {
        String base = "bull:" + queue + ":";
        try (AbstractPipeline p = client.pipelined()) {
            for (int n = 1; n <= flows; n++) {
                String parent = "f" + n;
                p.hset(base + parent, Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
                p.zadd(base + "waiting-children", 1, parent);
                for (String child : List.of(parent + "a", parent + "b")) {
                    p.sadd(base + parent + ":dependencies", base + child);
                    p.hset(base + child, Map.of("name", "part", "data", "{}", "opts", "{}", "timestamp", "1", "parentKey", base + parent,
                            "parent", "{\"id\":\"" + parent + "\",\"queueKey\":\"bull:" + queue + "\"}"));
                    p.lpush(base + "wait", child);
                }
            }
            p.sync();
        }
    }

    /**
     * Gives {@code queue} a few of the anomalies production queues hold, each of which migrates with a warning or is
     * dropped with the source: job {@code <prefix>5}'s opts no JSON, job {@code <prefix>9}'s attempts counter negative, an
     * id listed in {@code wait} without a hash, the logs list and lock of a job whose hash is gone (both evicted), and a
     * job scheduler's record the {@code repeat} zset no longer lists.
     * Returns what it did, for the bench's output.
     */
    static String addAnomalies(UnifiedJedis client, String queue, String idPrefix) {
        String base = "bull:" + queue + ":";
        client.hset(base + idPrefix + "5", "opts", "not json");
        client.hset(base + idPrefix + "9", "attemptsMade", "-3");
        client.lpush(base + "wait", "evicted");
        client.rpush(base + "gone:logs", "a line");
        client.set(base + "gone:lock", "a worker's token");
        client.hset(base + "repeat:old", Map.of("every", "60000", "name", "tick"));
        return "job " + idPrefix + "5's opts no JSON, job " + idPrefix + "9's attemptsMade -3, id 'evicted' listed in wait without a hash,"
                + " job 'gone''s logs list and lock without its hash, a stale scheduler record 'repeat:old'";
    }

    static long maxHeapMiB() {
        return Runtime.getRuntime().maxMemory() >> 20;
    }

    /**
     * Each heap pool's peak use so far (garbage included), summed: an upper bound of the heap in use
     * at any one moment, since the pools peak at different moments (the sum can pass the maximum).
     */
    static long peakHeapMiB() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak >> 20;
    }

    /** The 1, 5 and 15 minute load averages, or {@code ?} where the system does not tell. */
    static String loadAverage() throws IOException {
        Path proc = Path.of("/proc/loadavg");
        return Files.exists(proc) ? String.join(" ", Arrays.asList(Files.readString(proc).split(" ")).subList(0, 3)) : "?";
    }

    static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
