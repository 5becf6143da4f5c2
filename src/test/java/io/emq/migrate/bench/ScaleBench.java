package io.emq.migrate.bench;

import static io.emq.migrate.bench.BenchSetup.secs;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.server.LocalCluster;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The many-queues benchmark (never run by the test suite; see bench/README.md): Q v1 queues of J
 * waiting jobs each (200-byte payloads) on a standalone source, migrated with {@code migrate --all
 * --parallel N} for each N asked, into the source server itself or (with {@code --cluster}) into a
 * local three-master cluster; each run is preceded by a bare pipelined copy of the same jobs into the
 * same target (read each hash, write a row, add it to a pending set; no journal, no checks), and
 * prints both in jobs per second with their ratio, and the most heap live after a collection.
 */
public final class ScaleBench {
    static final int QUEUES_PER_PIPELINE = 250;

    public static void main(String[] args) throws Exception {
        int queues = 1000;
        int jobs = 4;
        List<Integer> parallel = List.of(1, 2, 4);
        boolean cluster = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--queues" -> queues = Integer.parseInt(args[++i]);
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--parallel" -> parallel = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--cluster" -> cluster = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        try (LocalServer server = LocalServer.start();
             LocalCluster targets = cluster ? LocalCluster.start(3) : null;
             UnifiedJedis source = Endpoint.parse(server.uri()).open();
             UnifiedJedis target = cluster ? Endpoint.parse(targets.uri()).open() : source) {
            System.out.printf(Locale.ROOT, "source %s (%s), target %s; %d queues of %d jobs, heap max %d MiB%n",
                    server.uri(), BenchSetup.version(source),
                    cluster ? "a three-master cluster " + targets.uri() : "the source server", queues, jobs,
                    BenchSetup.maxHeapMiB());
            for (int n : parallel) {
                source.flushAll();
                if (cluster) {
                    targets.nodes().forEach(node -> {
                        try (UnifiedJedis one = Endpoint.parse(node.uri()).open()) {
                            one.flushAll();
                        }
                    });
                }
                for (int q = 0; q < queues; q++) {
                    BenchSetup.generateWaiting(source, "t" + q, jobs);
                }
                long b0 = System.nanoTime();
                long copied = baselineCopy(source, target, queues);
                double baseline = copied / secs(b0);
                LiveHeap.watch();
                Migrator migrator = new Migrator(Wire.unfenced(source), Wire.open(target), server.uri(),
                        MigrationOptions.defaults(), Checkpoints.none()).parallel(n);
                long m0 = System.nanoTime();
                List<MigrationResult> results = migrator.migrate(List.of("bull"), List.of());
                double seconds = secs(m0);
                long moved = results.stream().mapToLong(MigrationResult::jobs).sum();
                long ok = results.stream().filter(MigrationResult::ok).count();
                if (ok != queues || moved != (long) queues * jobs) {
                    throw new IllegalStateException(ok + " of " + queues + " queues done, " + moved + " jobs moved: "
                            + results.stream().filter(r -> !r.ok()).findFirst().orElse(null));
                }
                source.info("commandstats").lines().filter(l -> l.startsWith("cmdstat")).sorted(java.util.Comparator.comparingLong(
                        (String l) -> -Long.parseLong(l.replaceAll(".*usec=(\\d+).*", "$1")))).limit(3).forEach(l -> System.out.println("  server time: " + l));
                source.sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");
                System.out.printf(Locale.ROOT, "migrate --all --parallel %d: %d queues in %.1f s, %.0f jobs/s | bare pipelined"
                        + " copy %.0f jobs/s | ratio %.3f | live heap after GC at most %d MiB%n", n, queues, seconds,
                        moved / seconds, baseline, moved / seconds / baseline, LiveHeap.peakMiB());
            }
        }
    }

    /** Every queue's waiting jobs read and written as v2 rows of queue {@code baseline}, pipelined over many queues; then removed. */
    static long baselineCopy(UnifiedJedis source, UnifiedJedis target, int queues) {
        long copied = 0;
        long rank = 0;
        List<byte[]> rows = new ArrayList<>();
        Keys keys = Keys.queue("baseline");
        for (int from = 0; from < queues; from += QUEUES_PER_PIPELINE) {
            int to = Math.min(queues, from + QUEUES_PER_PIPELINE);
            List<Response<List<byte[]>>> ids = new ArrayList<>();
            try (AbstractPipeline p = source.pipelined()) {
                for (int q = from; q < to; q++) {
                    ids.add(p.lrange(bytes("bull:t" + q + ":wait"), 0, -1));
                }
                p.sync();
            }
            List<Response<Map<byte[], byte[]>>> hashes = new ArrayList<>();
            try (AbstractPipeline p = source.pipelined()) {
                for (int q = from; q < to; q++) {
                    for (byte[] id : ids.get(q - from).get()) {
                        hashes.add(p.hgetAll(bytes("bull:t" + q + ":" + new String(id, StandardCharsets.UTF_8))));
                    }
                }
                p.sync();
            }
            try (AbstractPipeline p = target.pipelined()) {
                for (Response<Map<byte[], byte[]>> h : hashes) {
                    BrandedId id = BrandedId.job(++rank);
                    byte[] row = bytes(keys.job(id));
                    byte[] data = h.get().entrySet().stream().filter(e -> new String(e.getKey(), StandardCharsets.UTF_8).equals("data"))
                            .map(Map.Entry::getValue).findFirst().orElse(new byte[0]);
                    p.hset(row, Map.of(bytes("state"), bytes("pending"), bytes("attempts"), bytes("0"), bytes("payload"), data));
                    p.zadd(bytes(keys.pending()), 0, bytes(id.toString()));
                    rows.add(row);
                }
                p.sync();
            }
            copied += hashes.size();
        }
        for (int from = 0; from < rows.size(); from += 1000) {
            try (AbstractPipeline p = target.pipelined()) {
                rows.subList(from, Math.min(rows.size(), from + 1000)).forEach(p::unlink);
                p.sync();
            }
        }
        target.unlink(keys.pending());
        return copied;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
