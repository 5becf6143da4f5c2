package io.emq.migrate.bench;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.runtime.Consumer;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The runtime benchmark (never run by the test suite; see bench/README.md). Prints, per workload,
 * jobs/s through the runtime beside a baseline of bare pipelined EVALSHA calls measured in the
 * same run on the same server, and their ratio.
 *
 * <p>Arguments: {@code [--target URI] [--jobs N] [--rounds R]}. Without a target it starts its own
 * server on a free loopback port.
 */
public final class Bench {

    private static final int CHUNK = 500;
    private static final byte[] PAYLOAD = "{\"order\":12345,\"sku\":\"ABC-123\",\"qty\":2}".getBytes(StandardCharsets.UTF_8);

    private final UnifiedJedis client;
    private final Wire wire;
    private final int n;
    private final SnowflakeMinter minter = new SnowflakeMinter(7);
    private int queues;

    private Bench(UnifiedJedis client, int n) {
        this.client = client;
        this.wire = Wire.open(client);
        this.n = n;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--target", "--jobs", "--rounds"), 20_000, 3);
        String target = options.target();
        int jobs = options.jobs();
        int rounds = options.rounds();
        try (BenchSetup.Server server = BenchSetup.server(target); UnifiedJedis client = Clients.open(Endpoint.parse(server.uri()), 24)) {
            System.out.println("server: " + BenchSetup.version(client) + "  cpus: " + Runtime.getRuntime().availableProcessors()
                    + "  jobs per run: " + jobs + "  rounds: " + rounds + " (best of)");
            new Bench(client, jobs).run(rounds);
        }
    }

    private void run(int rounds) throws Exception {
        compare("enqueue (Jobs.enqueueAll, pipelined)", rounds, this::enqueueRuntime, this::enqueueBaseline);
        for (int batch : new int[] {1, 16}) {
            for (int workers : new int[] {1, 4, 16}) {
                int w = workers;
                int b = batch;
                compare("claim+complete Consumer workers=" + workers + " batch=" + batch, rounds,
                        () -> consumer(w, b), this::claimCompleteBaseline);
            }
        }
    }

    private interface Run {
        double jobsPerSecond() throws Exception;
    }

    /** Best of {@code rounds} for each side, the two sides interleaved so both see the same machine load. */
    private static void compare(String what, int rounds, Run runtime, Run baseline) throws Exception {
        double bestRuntime = 0;
        double bestBaseline = 0;
        for (int i = 0; i < rounds; i++) {
            bestBaseline = Math.max(bestBaseline, baseline.jobsPerSecond());
            bestRuntime = Math.max(bestRuntime, runtime.jobsPerSecond());
        }
        report(what, bestRuntime, bestBaseline);
    }

    private static void report(String what, double runtime, double baseline) {
        System.out.printf(Locale.ROOT, "%-44s %10.0f jobs/s   baseline %10.0f jobs/s   ratio %.2f%n",
                what, runtime, baseline, runtime / baseline);
    }

    private String freshQueue() {
        return "bench" + (++queues);
    }

    private double perSecond(long startNanos) {
        return n / ((System.nanoTime() - startNanos) / 1e9);
    }

    // ---- enqueue ---------------------------------------------------------------------------

    private double enqueueRuntime() {
        Jobs jobs = Jobs.on(wire, freshQueue(), minter);
        List<byte[]> chunk = new ArrayList<>();
        for (int i = 0; i < CHUNK; i++) {
            chunk.add(PAYLOAD);
        }
        long t0 = System.nanoTime();
        for (int done = 0; done < n; done += CHUNK) {
            jobs.enqueueAll(chunk.subList(0, Math.min(CHUNK, n - done)));
        }
        double rate = perSecond(t0);
        wipe(jobs);
        return rate;
    }

    /** The same EVALSHA enqueue calls with ids and keys prepared beforehand, pipelined bare. */
    private double enqueueBaseline() {
        String q = freshQueue();
        Keys keys = Keys.queue(q);
        byte[] pending = b(keys.pending());
        byte[][] ids = new byte[n][];
        byte[][] rows = new byte[n][];
        for (int i = 0; i < n; i++) {
            BrandedId id = minter.mintJob();
            ids[i] = b(id.toString());
            rows[i] = b(keys.job(id));
        }
        byte[] sha = b(Script.ENQUEUE.sha());
        client.scriptLoad(Script.ENQUEUE.source(), pending);
        long t0 = System.nanoTime();
        for (int from = 0; from < n; from += CHUNK) {
            try (AbstractPipeline p = client.pipelined()) {
                for (int i = from; i < Math.min(n, from + CHUNK); i++) {
                    p.evalsha(sha, List.of(rows[i], pending), List.of(ids[i], PAYLOAD));
                }
                p.sync();
            }
        }
        double rate = perSecond(t0);
        wipe(Jobs.on(wire, q, minter));
        return rate;
    }

    // ---- claim + complete ------------------------------------------------------------------

    private Jobs filled() {
        Jobs jobs = Jobs.on(wire, freshQueue(), minter);
        List<byte[]> chunk = new ArrayList<>();
        for (int i = 0; i < CHUNK; i++) {
            chunk.add(PAYLOAD);
        }
        for (int done = 0; done < n; done += CHUNK) {
            jobs.enqueueAll(chunk.subList(0, Math.min(CHUNK, n - done)));
        }
        return jobs;
    }

    /** Time until the n-th completion through the Consumer with a handler that does nothing. */
    private double consumer(int workers, int batch) throws Exception {
        Jobs jobs = filled();
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong completed = new AtomicLong();
        Consumer consumer = Consumer.on(jobs, job -> { }).workers(workers).batchSize(batch)
                .listener(new ConsumerListener() {
                    @Override
                    public void completed(Delivery job) {
                        if (completed.incrementAndGet() == n) {
                            done.countDown();
                        }
                    }
                }).build();
        long t0 = System.nanoTime();
        consumer.start();
        done.await();
        double rate = perSecond(t0);
        consumer.close();
        wipe(jobs);
        return rate;
    }

    /**
     * The baseline: on one connection, pipelines of bare EVALSHA claim calls, then pipelines of
     * bare EVALSHA complete calls with the tokens the claims returned. No Java logic between.
     */
    private double claimCompleteBaseline() {
        Jobs jobs = filled();
        Keys keys = Keys.queue(jobs.queue());
        byte[] pending = b(keys.pending());
        byte[] active = b(keys.active());
        byte[] meta = b(keys.meta());
        byte[] dead = b(keys.dead());
        byte[] jobBase = b(keys.base() + "job:");
        byte[] base = b(keys.base());
        byte[] lease = b("30000");
        byte[] empty = new byte[0];
        byte[] claimSha = b(Script.CLAIM.sha());
        byte[] completeSha = b(Script.COMPLETE.sha());
        client.scriptLoad(Script.CLAIM.source(), pending);
        client.scriptLoad(Script.COMPLETE.source(), pending);
        long t0 = System.nanoTime();
        for (int from = 0; from < n; from += CHUNK) {
            int size = Math.min(CHUNK, n - from);
            List<Response<Object>> claims = new ArrayList<>(size);
            try (AbstractPipeline p = client.pipelined()) {
                for (int i = 0; i < size; i++) {
                    claims.add(p.evalsha(claimSha, List.of(pending, active, meta, dead), List.of(jobBase, lease, base)));
                }
                p.sync();
            }
            try (AbstractPipeline p = client.pipelined()) {
                for (Response<Object> r : claims) {
                    List<?> triple = (List<?>) r.get();
                    byte[] id = (byte[]) triple.get(0);
                    byte[] row = concat(jobBase, id);
                    p.evalsha(completeSha, List.of(active, row, pending),
                            List.of(id, b(triple.get(2).toString()), base, empty));
                }
                p.sync();
            }
        }
        double rate = perSecond(t0);
        wipe(jobs);
        return rate;
    }

    private void wipe(Jobs jobs) {
        jobs.pause();
        jobs.obliterate(true);
    }

    private static byte[] concat(byte[] a, byte[] c) {
        byte[] out = new byte[a.length + c.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(c, 0, out, a.length, c.length);
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
