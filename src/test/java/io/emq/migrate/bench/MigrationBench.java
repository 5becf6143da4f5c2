package io.emq.migrate.bench;

import static io.emq.migrate.bench.BenchSetup.secs;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.LeastPrivilegeTest;
import io.emq.migrate.migrate.LiveV1;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.StepDefinition;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The migration benchmark (never run by the test suite; see bench/README.md): generates a v1 queue
 * of N waiting jobs with 200-byte payloads, measures a bare pipelined copy of the same jobs (read
 * the hash, write the row, add to the sorted set; no journal, no checks), then the full migration
 * (all twelve steps, retire included), and prints both with their ratio, the server CPU seconds each took (the
 * server does its work on one thread, so a run lasts at least its server CPU whatever the client does: with
 * the bare copy keeping the server busy, a migration that costs the server more than twice as much cannot
 * reach half the bare copy's rate), and the heap figures: the
 * pools' peaks, the most in use after any collection (garbage of the old generation included), and
 * the most in use after a full collection forced every {@value #FULL_GC_EVERY_SECONDS} s, per job above what
 * was in use before the migration started. Beside each step's time it prints the server's and this process's
 * CPU seconds in that step and, for a step of a second or more, the commands that took the server the most
 * time in it ({@code INFO commandstats}: calls/ms, the commands scripts call included).
 * With {@code --producer RATE} a v1 producer (BullMQ's add shape) adds RATE jobs a second through the
 * whole migration; the bench then prints the v1 pause window beside the run's time, the adds v1
 * refused (from the pause on), and checks every job exactly once in v2. With {@code --editor RATE} a v1 client edits the
 * data of a generated job at random RATE times a second through the whole migration, the pause included (BullMQ's pause
 * stops workers, not edits). With {@code --dedup} every v1 job (generated
 * or added) carries a BullMQ 5 dedup key, which the migration carries into v2 and the bench checks there; with
 * {@code --custom-ids} the generated jobs have ids of their own ({@code c<n>}), whose receipts the bench checks in v2;
 * with {@code --flows N} the backlog holds N flows (parent {@code f<n>} waiting for {@code f<n>a} and {@code f<n>b}), each
 * checked in v2 (the children pending, the parent waiting for both); with {@code --anomalies} the backlog holds a few
 * anomalies that migrate with a warning ({@link BenchSetup#addAnomalies}); with {@code --orphans N} it holds N job hashes
 * listed nowhere ({@link BenchSetup#addOrphans}), migrated with {@code --accept-anomalies} and each checked dead in v2.
 * Run it with the heap capped: {@code bench/run-migration} passes {@code -Xmx256m}.
 */
public final class MigrationBench {
    static final int CHUNK = 1000;
    /** What the generated jobs' ids begin with under {@code --custom-ids}. */
    static final String CUSTOM = "c";
    /** How often the live heap is sampled after a forced full collection (each costs the run a pause). */
    static final int FULL_GC_EVERY_SECONDS = 5;

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--target", "--jobs", "--producer", "--editor", "--dedup", "--dedup-ttl", "--custom-ids",
                "--without-feed", "--resumed", "--logs", "--flows", "--orphans", "--anomalies"), 1_000_000, 0);
        String target = options.target();
        int jobs = options.jobs();
        try (BenchSetup.Server server = BenchSetup.server(target); UnifiedJedis client = Endpoint.parse(server.uri()).open();
             UnifiedJedis withoutFeed = options.withoutFeed() ? Endpoint.parse(LeastPrivilegeTest.userWithoutFeed(client, server.uri())).open() : null) {
            String uri = server.uri();
            UnifiedJedis source = withoutFeed != null ? withoutFeed : client;
            BenchSetup.empty(client);
            System.out.printf(Locale.ROOT, "generated %d v1 jobs in %.1f s (server %s, heap max %d MiB)%n", jobs,
                    BenchSetup.generateWaiting(client, "bench", jobs, options.dedup(), options.dedupTtlMs(),
                            options.customIds() ? CUSTOM : ""), uri, BenchSetup.maxHeapMiB());
            if (options.logs()) {
                System.out.printf(Locale.ROOT, "gave %d of them a logs list%n", BenchSetup.logEveryHundredth(client, "bench", jobs,
                        options.customIds() ? CUSTOM : ""));
            }

            StepCpu bareCpu = new StepCpu(client);
            bareCpu.start();
            long b0 = System.nanoTime();
            baselineCopy(client, jobs);
            double baseline = jobs / secs(b0);
            double bareServer = bareCpu.serverSince();
            client.del(Keys.queue("baseline").pending());
            deleteBaselineRows(client, jobs);
            if (options.flows() > 0) {
                BenchSetup.addFlows(client, "bench", options.flows());
                System.out.printf(Locale.ROOT, "added %d flows, each a parent waiting for two waiting children (after the bare copy)%n", options.flows());
            }
            if (options.orphans() > 0) {
                BenchSetup.addOrphans(client, "bench", options.orphans());
                System.out.printf(Locale.ROOT, "added %d job hashes listed nowhere (after the bare copy), migrated with --accept-anomalies%n",
                        options.orphans());
            }
            if (options.anomalies()) {
                System.out.println("anomalies (after the bare copy): " + BenchSetup.addAnomalies(client, "bench", options.customIds() ? CUSTOM : ""));
            }

            long before = LiveHeap.afterFullGc();
            LiveHeap.watch(FULL_GC_EVERY_SECONDS);
            Map<String, Long> stepMs = new LinkedHashMap<>();
            Map<String, Long> windowAt = new LinkedHashMap<>();
            StepCpu cpu = new StepCpu(client);
            Migrator migrator = new Migrator(Wire.unfenced(source), Wire.open(client), uri,
                    MigrationOptions.defaults().withAcceptAnomalies(options.orphans() > 0),
                    Checkpoints.observed((version, where) -> {
                        if (version == 120 && (where.equals("v1 paused") || windowAt.containsKey("v1 paused"))) {
                            windowAt.putIfAbsent(where, System.nanoTime());
                        }
                    })).listener(new Migrator.Listener() {
                        public void stepStarted(String queue, StepDefinition step) {
                            cpu.start();
                        }

                        public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long ms) {
                            String name = "V" + step.version() + " " + step.description();
                            stepMs.put(name, ms);
                            System.out.printf(Locale.ROOT, "  %-36s %8d ms  %s%s%n", name, ms, cpu.since(), step.version() == 100 || step.version() == 120
                                    ? "     (" + counts + ")" : "");
                            if (ms >= 1000) {
                                System.out.println("      server calls/time: " + cpu.busiest(8));
                            }
                        }
                    });
            System.out.println("load average before the migration: " + BenchSetup.loadAverage());
            StepCpu wholeCpu = new StepCpu(client);
            wholeCpu.start();
            long m0 = System.nanoTime();
            Producer producer = new Producer(uri, "bull", options.producer(), options.dedup());
            Editor editor = new Editor(uri, options.editor(), jobs, options.customIds() ? CUSTOM : "");
            List<MigrationResult> results;
            try {
                if (options.resumed()) {
                    long r0 = System.nanoTime();
                    MigrationResult copied = new Migrator(Wire.unfenced(source), Wire.open(client), uri,
                            MigrationOptions.defaults().withRetire(false), Checkpoints.none()).migrate(List.of("bull"), List.of("bench")).get(0);
                    if (copied.outcome() != MigrationResult.Outcome.VERIFIED) {
                        throw new IllegalStateException("the run with --no-retire did not verify: " + copied);
                    }
                    System.out.printf(Locale.ROOT, "first run, --no-retire: verified in %.1f s; then the run that retires:%n", secs(r0));
                }
                results = migrator.migrate(List.of("bull"), List.of("bench"));
            } finally {
                producer.stop();
                editor.stop();
            }
            double migrated = jobs / secs(m0);
            double migrateServer = wholeCpu.serverSince();
            if (!results.get(0).ok()) {
                throw new IllegalStateException("migration did not finish: " + results.get(0));
            }
            long window = results.get(0).pauseWindowMs().orElseThrow();
            System.out.printf(Locale.ROOT, "v1 paused %d ms of the %d ms run (window/run %.3f); producer at %d/s: %d adds"
                    + " taken, %d refused (frozen from the pause, then the tombstone)%n", window, results.get(0).millis(),
                    window / (double) results.get(0).millis(), options.producer(), producer.added, producer.refused);
            if (options.editor() > 0) {
                System.out.printf(Locale.ROOT, "editor at %d/s: %d jobs' data edited%n", options.editor(), editor.edited);
            }
            System.out.println("  inside V120, ms from the v1 pause to the first hit of each checkpoint: " + sincePause(windowAt));
            long plain = jobs + producer.added;
            LongFunction<String> v1Id = n -> n > plain ? "f" + ((n - plain + 1) / 2) + ((n - plain) % 2 == 1 ? "a" : "b") // the flows' children
                    : options.customIds() && n <= jobs ? CUSTOM + n : Long.toString(n); // the producer's ids count on
            List<String> problems = LiveV1.exactlyOnce(client, "bench", v1Id, plain + 2L * options.flows());
            problems.addAll(flowParentsLost(client, options.flows()));
            System.out.println("exactly once (" + (plain + 2L * options.flows()) + " v1 jobs -> v2 pending" + (options.flows() > 0
                    ? ", " + options.flows() + " flow parents -> v2 awaiting children" : "") + "): " + (problems.isEmpty() ? "ok" : "FAILED " + problems));
            if (options.orphans() > 0) {
                List<String> orphans = orphansLost(client, options.orphans());
                System.out.println("orphans (" + options.orphans() + " v1 hashes listed nowhere -> v2 dead, once): "
                        + (orphans.isEmpty() ? "ok" : "FAILED " + orphans));
            }
            if (options.dedup()) {
                List<String> dedup = dedupKeysLost(client, jobs + producer.added, n -> "d" + n, v1Id);
                System.out.println("dedup keys (one a job, each pointing at its job's v2 id): " + (dedup.isEmpty() ? "ok" : "FAILED " + dedup));
            }
            if (options.customIds()) {
                List<String> receipts = dedupKeysLost(client, jobs, v1Id, v1Id);
                System.out.println("receipts (one a custom id, each pointing at its job's v2 id): " + (receipts.isEmpty() ? "ok" : "FAILED " + receipts));
            }
            System.out.println("v2 holds v1's order at the cutover: " + results.get(0).orderDrift().map(drift -> "no, " + drift)
                    .orElse("yes"));
            System.out.println("load average after: " + BenchSetup.loadAverage());
            long peak = BenchSetup.peakHeapMiB();
            long live = LiveHeap.peakMiB();
            long absorb = stepMs.getOrDefault("V30 absorb pending", 0L);
            System.out.printf(Locale.ROOT, "%-44s %12s %12s %7s%n", "workload (" + jobs + " waiting jobs, 200 B)", "jobs/s",
                    "baseline", "ratio");
            System.out.printf(Locale.ROOT, "%-44s %12.0f %12.0f %7.2f%n", "migrate, all 12 steps (fence..retire)", migrated,
                    baseline, migrated / baseline);
            System.out.printf(Locale.ROOT, "%-44s %12.0f %12.0f %7.2f%n", "  of which V30 absorb pending (the copy)",
                    jobs * 1000.0 / Math.max(1, absorb), baseline, jobs * 1000.0 / Math.max(1, absorb) / baseline);
            System.out.printf(Locale.ROOT, "%-44s %10.2f s %10.2f s %7.2f%n", "server CPU, migrate against the bare copy",
                    migrateServer, bareServer, migrateServer / bareServer);
            long fence = stepMs.getOrDefault("V10 fence source", 0L);
            long catchUp = stepMs.getOrDefault("V100 catch up", 0L);
            System.out.printf(Locale.ROOT, "%-44s %9d ms %9d ms %7.2f%n", "V100 catch up beside V10 fence (a source read)",
                    catchUp, fence, catchUp / (double) Math.max(1, fence));
            System.out.printf(Locale.ROOT, "heap pools' peaks summed: %d MiB, %d MiB max (live after GC at most %d MiB)%n", peak,
                    BenchSetup.maxHeapMiB(), live);
            long most = LiveHeap.peakAfterFullGc();
            System.out.printf(Locale.ROOT, "live heap after a full GC every %d s: at most %d MiB, %.1f bytes a job above the %d MiB"
                    + " in use before the migration%n", FULL_GC_EVERY_SECONDS, most >> 20, (double) (most - before) / jobs, before >> 20);
        }
    }

    /** CPU seconds of a step: the server's (used_cpu_user + used_cpu_sys of INFO cpu) and this process's (user + sys). */
    static final class StepCpu {
        private final UnifiedJedis client;
        private double server;
        private long process;
        private Map<String, long[]> commands = Map.of();

        StepCpu(UnifiedJedis client) {
            this.client = client;
        }

        void start() {
            server = serverSeconds();
            process = processNanos();
            commands = commandStats();
        }

        /** The commands that took the most server time since {@link #start()}: name calls/usec, most first (inner calls of scripts included). */
        String busiest(int most) {
            Map<String, long[]> now = commandStats();
            List<String> out = new ArrayList<>();
            now.entrySet().stream()
                    .map(e -> {
                        long[] was = commands.getOrDefault(e.getKey(), new long[2]);
                        return Map.entry(e.getKey(), new long[] {e.getValue()[0] - was[0], e.getValue()[1] - was[1]});
                    })
                    .filter(e -> e.getValue()[0] > 0)
                    .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                    .limit(most)
                    .forEach(e -> out.add(e.getKey() + " " + e.getValue()[0] + "/" + e.getValue()[1] / 1000 + "ms"));
            return String.join(", ", out);
        }

        private Map<String, long[]> commandStats() {
            Map<String, long[]> out = new LinkedHashMap<>();
            for (String line : client.info("commandstats").split("\\r?\\n")) {
                if (line.startsWith("cmdstat_")) {
                    String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                    long calls = 0;
                    long usec = 0;
                    for (String part : line.substring(line.indexOf(':') + 1).split(",")) {
                        if (part.startsWith("calls=")) {
                            calls = Long.parseLong(part.substring("calls=".length()));
                        } else if (part.startsWith("usec=")) {
                            usec = Long.parseLong(part.substring("usec=".length()));
                        }
                    }
                    out.put(name, new long[] {calls, usec});
                }
            }
            return out;
        }

        String since() {
            return String.format(Locale.ROOT, "server cpu %6.2f s, client cpu %6.2f s", serverSince(),
                    (processNanos() - process) / 1e9);
        }

        /** The server's CPU seconds since {@link #start()}. */
        double serverSince() {
            return serverSeconds() - server;
        }

        private double serverSeconds() {
            double sum = 0;
            for (String line : client.info("cpu").split("\\r?\\n")) {
                if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                    sum += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return sum;
        }

        private static long processNanos() {
            return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }
    }

    /** Each checkpoint's first hit from "v1 paused" on, in ms from it (V120's catch-up before the pause passes the same ones). */
    static Map<String, Long> sincePause(Map<String, Long> at) {
        Map<String, Long> out = new LinkedHashMap<>();
        Long paused = at.get("v1 paused");
        at.forEach((where, t) -> out.put(where, (t - paused) / 1_000_000));
        return out;
    }

    /**
     * The jobs 1..{@code ids} whose v2 dedup key {@code de:<name(n)>} does not hold the branded id of the v1 job
     * {@code v1Id(n)} (at most ten named): their dedup keys, or the receipts of their custom ids.
     */
    static List<String> dedupKeysLost(UnifiedJedis client, long ids, LongFunction<String> name, LongFunction<String> v1Id) {
        Journal journal = new Journal(Wire.open(client), "bench");
        Keys keys = Keys.queue("bench");
        List<String> problems = new ArrayList<>();
        for (long from = 1; from <= ids && problems.size() < 10; from += CHUNK) {
            List<byte[]> batch = new ArrayList<>();
            List<String> dedup = new ArrayList<>();
            for (long n = from; n < from + CHUNK && n <= ids; n++) {
                batch.add(v1Id.apply(n).getBytes(StandardCharsets.UTF_8));
                dedup.add(keys.dedup(name.apply(n)));
            }
            List<java.util.Optional<BrandedId>> branded = journal.ids().lookupV1(batch);
            List<String> held = client.mget(dedup.toArray(String[]::new));
            for (int i = 0; i < batch.size(); i++) {
                if (branded.get(i).isEmpty() || !branded.get(i).get().toString().equals(held.get(i))) {
                    problems.add(dedup.get(i) + " holds " + held.get(i) + ", its job " + branded.get(i).orElse(null));
                }
            }
        }
        return problems;
    }

    /** The flow parents {@code f1..f<flows>} (at most ten named) whose v2 row is not waiting for its two children. */
    static List<String> flowParentsLost(UnifiedJedis client, int flows) {
        Keys keys = Keys.queue("bench");
        return rowsNotReading(client, "f", flows, id -> client.hget(keys.job(id), "state") + " " + client.get(keys.job(id, JobSub.DEPENDENCIES)),
                "awaiting_children 2");
    }

    /** Why the orphans {@code orphan-1} to {@code orphan-<orphans>} are not each a dead v2 row, once (empty when they are). */
    static List<String> orphansLost(UnifiedJedis client, int orphans) {
        Keys keys = Keys.queue("bench");
        List<String> problems = rowsNotReading(client, "orphan-", orphans, id -> client.hget(keys.job(id), "state"), "dead");
        if (client.zcard(keys.dead()) != orphans) {
            problems.add("dead holds " + client.zcard(keys.dead()) + " jobs");
        }
        return problems;
    }

    /**
     * The v1 jobs {@code <prefix>1} to {@code <prefix><count>} (at most ten named) whose v2 row does not read {@code expected}
     * as {@code read} reads it, or that have no v2 id.
     */
    private static List<String> rowsNotReading(UnifiedJedis client, String prefix, int count, Function<BrandedId, String> read,
                                               String expected) {
        List<byte[]> ids = new ArrayList<>();
        for (int n = 1; n <= count; n++) {
            ids.add((prefix + n).getBytes(StandardCharsets.UTF_8));
        }
        List<java.util.Optional<BrandedId>> branded = new Journal(Wire.open(client), "bench").ids().lookupV1(ids);
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < count && problems.size() < 10; i++) {
            String row = branded.get(i).map(read).orElse("no v2 id");
            if (!row.equals(expected)) {
                problems.add(prefix + (i + 1) + ": " + row);
            }
        }
        return problems;
    }

    /** Runs an action {@code rate} times a second on a client of its own, in a thread of its own, until stopped (never at rate 0). */
    static final class Paced {
        private final Thread thread;
        private volatile boolean stop;

        Paced(String uri, int rate, String name, Consumer<UnifiedJedis> act) {
            thread = new Thread(() -> {
                try (UnifiedJedis c = Endpoint.parse(uri).open()) {
                    long t0 = System.nanoTime();
                    for (long n = 0; !stop; n++) {
                        long wait = t0 + n * 1_000_000_000L / rate - System.nanoTime();
                        if (wait > 0) {
                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        }
                        act.accept(c);
                    }
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            if (rate > 0) {
                thread.start();
            }
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    /**
     * A v1 producer adding {@code rate} jobs a second to queue {@code bench} under {@code prefix} on its own client until
     * stopped; counts adds taken and refused.
     */
    static final class Producer {
        private final Paced paced;
        volatile long added;
        volatile long refused;

        Producer(String uri, String prefix, int rate, boolean dedup) {
            paced = new Paced(uri, rate, "v1-producer", c -> {
                if (LiveV1.add(c, prefix, "bench", dedup).isPresent()) {
                    added++;
                } else {
                    refused++;
                }
            });
        }

        void stop() throws InterruptedException {
            paced.stop();
        }
    }

    /**
     * A v1 client editing the data of a generated job of queue {@code bench}, chosen at random, {@code rate} times a
     * second until stopped, as BullMQ's updateData does (only while the job's hash exists: after retirement deleted it,
     * nothing); counts the edits made.
     */
    static final class Editor {
        private static final String UPDATE_DATA = "if redis.call('EXISTS', KEYS[1]) == 1 then"
                + " redis.call('HSET', KEYS[1], 'data', ARGV[1]) return 1 end return 0";
        private final Paced paced;
        volatile long edited;

        Editor(String uri, int rate, int jobs, String idPrefix) {
            java.util.Random random = new java.util.Random(13);
            paced = new Paced(uri, rate, "v1-editor", c -> {
                String id = idPrefix + (1 + random.nextInt(jobs));
                if (Long.valueOf(1).equals(c.eval(UPDATE_DATA, List.of("bull:bench:" + id), List.of("{\"edited\":" + edited + "}")))) {
                    edited++;
                }
            });
        }

        void stop() throws InterruptedException {
            paced.stop();
        }
    }

    /** Read each hash, write a v2 row, add it to pending: pipelined, nothing else. */
    static void baselineCopy(UnifiedJedis client, int jobs) {
        Keys keys = Keys.queue("baseline");
        byte[] pending = keys.pending().getBytes(StandardCharsets.UTF_8);
        for (int end = jobs - 1; end >= 0; end -= CHUNK) {
            List<byte[]> ids = client.lrange("bull:bench:wait".getBytes(StandardCharsets.UTF_8), Math.max(0, end - CHUNK + 1), end);
            List<Response<Map<byte[], byte[]>>> hashes = new ArrayList<>(ids.size());
            try (AbstractPipeline p = client.pipelined()) {
                for (byte[] id : ids) {
                    hashes.add(p.hgetAll(concat("bull:bench:", id)));
                }
                p.sync();
            }
            try (AbstractPipeline p = client.pipelined()) {
                for (int i = ids.size() - 1; i >= 0; i--) {
                    BrandedId id = BrandedId.job(Long.parseLong(new String(ids.get(i), StandardCharsets.US_ASCII).replace(CUSTOM, "")));
                    byte[] row = keys.job(id).getBytes(StandardCharsets.UTF_8);
                    Map<byte[], byte[]> h = hashes.get(i).get();
                    p.hset(row, Map.of("state".getBytes(), "pending".getBytes(), "attempts".getBytes(), "0".getBytes(),
                            "payload".getBytes(), h.get("data".getBytes(StandardCharsets.UTF_8)) == null ? new byte[0]
                                    : valueOf(h, "data")));
                    p.zadd(pending, 0, id.toString().getBytes(StandardCharsets.UTF_8));
                }
                p.sync();
            }
        }
    }

    private static byte[] valueOf(Map<byte[], byte[]> h, String field) {
        for (Map.Entry<byte[], byte[]> e : h.entrySet()) {
            if (new String(e.getKey(), StandardCharsets.UTF_8).equals(field)) {
                return e.getValue();
            }
        }
        return new byte[0];
    }

    private static void deleteBaselineRows(UnifiedJedis client, int jobs) {
        Keys keys = Keys.queue("baseline");
        for (int from = 1; from <= jobs; from += CHUNK) {
            try (AbstractPipeline p = client.pipelined()) {
                for (int n = from; n < from + CHUNK && n <= jobs; n++) {
                    p.unlink(keys.job(BrandedId.job(n)));
                }
                p.sync();
            }
        }
    }

    private static byte[] concat(String prefix, byte[] tail) {
        byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[p.length + tail.length];
        System.arraycopy(p, 0, out, 0, p.length);
        System.arraycopy(tail, 0, out, p.length, tail.length);
        return out;
    }
}
