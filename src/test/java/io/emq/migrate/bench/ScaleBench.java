package io.emq.migrate.bench;

import static io.emq.migrate.bench.BenchSetup.secs;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.StepDefinition;
import io.emq.migrate.server.LocalCluster;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The many-queues benchmark (never run by the test suite; see bench/README.md): Q v1 queues of J
 * waiting jobs each (200-byte payloads) on a standalone source, migrated with {@code migrate --all
 * --parallel N} for each N asked, into the source server itself or (with {@code --cluster}) into a
 * local three-master cluster; each run is preceded by a bare pipelined copy of the same jobs into the
 * same target (read each hash, write a row, add it to a pending set; no journal, no checks), and
 * prints both in jobs per second with their ratio, the most heap live after a collection, each step's
 * milliseconds summed over the queues, and what the source server saw during the migration alone
 * (connections received, SCAN/EVALSHA/WATCH calls, main-thread CPU seconds). The
 * migration opens its clients as {@code migrate --parallel N} does ({@link Migrator#connections}).
 */
public final class ScaleBench {
    static final int JOBS_PER_PIPELINE = 1000;

    public static void main(String[] args) throws Exception {
        int queues = 1000;
        int jobs = 4;
        List<Integer> parallel = List.of(1, 2, 4);
        boolean cluster = false;
        boolean retire = true;
        int fullGcEvery = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--queues" -> queues = Integer.parseInt(args[++i]);
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--parallel" -> parallel = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--cluster" -> cluster = true;
                case "--no-retire" -> retire = false;
                case "--full-gc-every" -> fullGcEvery = Integer.parseInt(args[++i]);
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
                BenchSetup.empty(source);
                if (cluster) {
                    targets.nodes().forEach(node -> {
                        try (UnifiedJedis one = Endpoint.parse(node.uri()).open()) {
                            BenchSetup.empty(one);
                        }
                    });
                }
                for (int q = 0; q < queues; q++) {
                    BenchSetup.generateWaiting(source, "t" + q, jobs);
                }
                long b0 = System.nanoTime();
                long copied = baselineCopy(source, target, queues, jobs);
                double baseline = copied / secs(b0);
                source.sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");
                double cpu0 = serverCpu(source);
                LiveHeap.watch(fullGcEvery);
                java.util.Comparator<String> byVersion = java.util.Comparator.comparingInt(
                        (String name) -> Integer.parseInt(name.substring(1, name.indexOf(' '))));
                Map<String, LongAdder> stepMs = new ConcurrentSkipListMap<>(byVersion);
                Map<String, LongAccumulator> firstStart = new ConcurrentSkipListMap<>(byVersion);
                Map<String, LongAccumulator> lastEnd = new ConcurrentSkipListMap<>(byVersion);
                Map<String, double[]> cpuAtStart = new ConcurrentSkipListMap<>(byVersion);
                List<MigrationResult> results;
                double seconds;
                try (UnifiedJedis from = Clients.open(Endpoint.parse(server.uri()), Migrator.connections(n));
                     UnifiedJedis to = cluster ? Clients.open(Endpoint.parse(targets.uri()), Migrator.connections(n)) : from) {
                    Migrator migrator = new Migrator(Wire.unfenced(from), Wire.open(to), server.uri(),
                            MigrationOptions.defaults().withRetire(retire), Checkpoints.none()).parallel(n).listener(new Migrator.Listener() {
                                public void stepStarted(String queue, StepDefinition step) {
                                    if (!cpuAtStart.containsKey(stepName(step))) {
                                        cpuAtStart.putIfAbsent(stepName(step), new double[] {serverCpu(source), processCpu()});
                                    }
                                    firstStart.computeIfAbsent(stepName(step), k -> new LongAccumulator(Math::min, Long.MAX_VALUE))
                                            .accumulate(System.nanoTime());
                                }

                                public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long ms) {
                                    stepMs.computeIfAbsent(stepName(step), k -> new LongAdder()).add(ms);
                                    lastEnd.computeIfAbsent(stepName(step), k -> new LongAccumulator(Math::max, Long.MIN_VALUE))
                                            .accumulate(System.nanoTime());
                                }
                            });
                    long m0 = System.nanoTime();
                    results = migrator.migrate(List.of("bull"), List.of());
                    seconds = secs(m0);
                }
                long moved = results.stream().mapToLong(MigrationResult::jobs).sum();
                long ok = results.stream().filter(MigrationResult::ok).count();
                if (ok != queues || moved != (long) queues * jobs) {
                    throw new IllegalStateException(ok + " of " + queues + " queues done, " + moved + " jobs moved: "
                            + results.stream().filter(r -> !r.ok()).findFirst().orElse(null));
                }
                double serverCpu = serverCpu(source) - cpu0;
                String stats = source.info("stats");
                String commands = source.info("commandstats");
                source.info("commandstats").lines().filter(l -> l.startsWith("cmdstat")).sorted(java.util.Comparator.comparingLong(
                        (String l) -> -Long.parseLong(l.replaceAll(".*usec=(\\d+).*", "$1")))).limit(12).forEach(l -> System.out.println("  server time: " + l));
                System.out.println("  ms in each step, summed over the queues: " + stepMs);
                Map<String, Long> stepWall = new LinkedHashMap<>();
                firstStart.forEach((step, start) -> stepWall.put(step, (lastEnd.get(step).get() - start.get()) / 1_000_000));
                System.out.println("  ms from each step's first start to its last finish (steps run one after another): " + stepWall);
                List<String> steps = new ArrayList<>(cpuAtStart.keySet());
                double[] end = {serverCpu(source), processCpu()};
                StringBuilder cpu = new StringBuilder("  CPU s from each step's first start to the next's (server | this process):");
                for (int i = 0; i < steps.size(); i++) {
                    double[] from = cpuAtStart.get(steps.get(i));
                    double[] to = i + 1 < steps.size() ? cpuAtStart.get(steps.get(i + 1)) : end;
                    cpu.append(String.format(Locale.ROOT, " %s %.1f | %.1f;", steps.get(i).substring(0, steps.get(i).indexOf(' ')),
                            to[0] - from[0], to[1] - from[1]));
                }
                System.out.println(cpu);
                System.out.printf(Locale.ROOT, "source server during the migration: %d connections received, %d SCAN, %d EVALSHA,"
                        + " %d WATCH calls, %.1f s CPU%n", field(stats, "total_connections_received"),
                        calls(commands, "scan"), calls(commands, "evalsha"), calls(commands, "watch"), serverCpu);
                System.out.printf(Locale.ROOT, "migrate --all --parallel %d: %d queues in %.1f s, %.0f jobs/s | bare pipelined"
                        + " copy %.0f jobs/s | ratio %.3f | live heap after GC at most %d MiB%s%n", n, queues, seconds,
                        moved / seconds, baseline, moved / seconds / baseline, LiveHeap.peakMiB(), fullGcEvery == 0 ? ""
                        : String.format(Locale.ROOT, " | after a full GC every %d s at most %d MiB, %.0f bytes a job",
                        fullGcEvery, LiveHeap.peakAfterFullGc() >> 20, (double) LiveHeap.peakAfterFullGc() / moved));
                if (retire) {
                    reRun(server, cluster ? targets.uri() : server.uri(), source, n, queues, seconds);
                }
            }
        }
    }

    /**
     * The same {@code migrate --all} again over the queues it retired (an operator's re-run after a partial failure): each
     * queue is read for jobs stranded under its tombstone and ends at once; timed beside the first run.
     */
    private static void reRun(LocalServer server, String targetUri, UnifiedJedis source, int n, int queues, double firstRun) {
        source.sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");
        try (UnifiedJedis from = Clients.open(Endpoint.parse(server.uri()), Migrator.connections(n));
             UnifiedJedis to = Clients.open(Endpoint.parse(targetUri), Migrator.connections(n))) {
            long r0 = System.nanoTime();
            List<MigrationResult> results = new Migrator(Wire.unfenced(from), Wire.open(to), server.uri(),
                    MigrationOptions.defaults(), Checkpoints.none()).parallel(n).migrate(List.of("bull"), List.of());
            double seconds = secs(r0);
            long ok = results.stream().filter(MigrationResult::ok).count();
            if (ok != queues) {
                throw new IllegalStateException("re-run: " + ok + " of " + queues + " queues done: "
                        + results.stream().filter(r -> !r.ok()).findFirst().orElse(null));
            }
            System.out.printf(Locale.ROOT, "re-run of migrate --all --parallel %d over the %d retired queues: %.1f s, %d SCAN calls"
                    + " on the source | the first run %.1f s | ratio %.3f%n", n, queues, seconds,
                    calls(source.info("commandstats"), "scan"), firstRun, seconds / firstRun);
        }
    }

    /**
     * Every queue's waiting jobs (ids 1..J, as generated) read and written as v2 rows of queue
     * {@code baseline}, {@link #JOBS_PER_PIPELINE} jobs of any queues per pipeline; then removed.
     */
    static long baselineCopy(UnifiedJedis source, UnifiedJedis target, int queues, int jobs) {
        Keys keys = Keys.queue("baseline");
        long total = (long) queues * jobs;
        for (long from = 0; from < total; from += JOBS_PER_PIPELINE) {
            long to = Math.min(total, from + JOBS_PER_PIPELINE);
            List<Response<Map<byte[], byte[]>>> hashes = new ArrayList<>();
            try (AbstractPipeline p = source.pipelined()) {
                for (long n = from; n < to; n++) {
                    hashes.add(p.hgetAll(bytes("bull:t" + n / jobs + ":" + (n % jobs + 1))));
                }
                p.sync();
            }
            try (AbstractPipeline p = target.pipelined()) {
                long rank = from;
                for (Response<Map<byte[], byte[]>> h : hashes) {
                    BrandedId id = BrandedId.job(++rank);
                    byte[] data = h.get().entrySet().stream().filter(e -> new String(e.getKey(), StandardCharsets.UTF_8).equals("data"))
                            .map(Map.Entry::getValue).findFirst().orElse(new byte[0]);
                    p.hset(bytes(keys.job(id)), Map.of(bytes("state"), bytes("pending"), bytes("attempts"), bytes("0"), bytes("payload"), data));
                    p.zadd(bytes(keys.pending()), 0, bytes(id.toString()));
                }
                p.sync();
            }
        }
        for (long from = 0; from < total; from += JOBS_PER_PIPELINE) {
            try (AbstractPipeline p = target.pipelined()) {
                for (long rank = from + 1; rank <= Math.min(total, from + JOBS_PER_PIPELINE); rank++) {
                    p.unlink(bytes(keys.job(BrandedId.job(rank))));
                }
                p.sync();
            }
        }
        target.unlink(keys.pending());
        return total;
    }

    /** The server's main thread CPU seconds so far (user + system). */
    /** Seconds of CPU this process has used. */
    private static double processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }

    private static double serverCpu(UnifiedJedis server) {
        String cpu = server.info("cpu");
        return Double.parseDouble(value(cpu, "used_cpu_user")) + Double.parseDouble(value(cpu, "used_cpu_sys"));
    }

    private static long field(String info, String name) {
        return Long.parseLong(value(info, name));
    }

    /** A command's calls since the last CONFIG RESETSTAT (0 if never called). */
    private static long calls(String commandstats, String command) {
        return commandstats.lines().filter(l -> l.startsWith("cmdstat_" + command + ":")).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).orElse(0L);
    }

    private static String value(String info, String name) {
        return info.lines().filter(l -> l.startsWith(name + ":")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + name + " in INFO")).substring(name.length() + 1).trim();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String stepName(StepDefinition step) {
        return "V" + step.version() + " " + step.description();
    }
}
