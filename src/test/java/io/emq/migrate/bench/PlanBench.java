package io.emq.migrate.bench;

import io.emq.migrate.wire.Endpoint;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * The dry-run benchmark (never run by the test suite; see bench/README.md): generates a v1 queue of
 * N waiting jobs with 200-byte payloads, then times, alternately, the whole {@code emq-migrate plan
 * --queue bench} command as operators run it ({@code bin/emq-migrate} over the built jar, its JVM
 * options, the heap capped at 256 MiB, start-up included) and a baseline in this process: a bare
 * pipelined {@code HGETALL} of the same job keys, 1000 at a time.
 * Prints the best of R rounds of each, in jobs per second, and their ratio.
 */
public final class PlanBench {
    static final int CHUNK = 1000;

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--target", "--jobs", "--rounds"), 1_000_000, 3);
        String target = options.target();
        int jobs = options.jobs();
        int rounds = options.rounds();
        try (BenchSetup.Server server = BenchSetup.server(target); UnifiedJedis client = Endpoint.parse(server.uri()).open()) {
            String uri = server.uri();
            BenchSetup.empty(client);
            double generated = BenchSetup.generateWaiting(client, "bench", jobs);
            System.out.printf(Locale.ROOT, "generated %d v1 jobs in %.1f s (server %s, %s; load average %s)%n", jobs, generated,
                    uri, BenchSetup.version(client), BenchSetup.loadAverage());
            double bestPlan = Double.MAX_VALUE;
            double bestBaseline = Double.MAX_VALUE;
            for (int round = 1; round <= rounds; round++) {
                long b0 = System.nanoTime();
                long read = baseline(client);
                double baseline = BenchSetup.secs(b0);
                if (read != jobs) {
                    throw new IllegalStateException("baseline read " + read + " hashes, not " + jobs);
                }
                double plan = planCommand(uri);
                System.out.printf(Locale.ROOT, "round %d: plan (whole command, -Xmx256m) %.2f s, baseline %.2f s%n",
                        round, plan, baseline);
                bestPlan = Math.min(bestPlan, plan);
                bestBaseline = Math.min(bestBaseline, baseline);
            }
            System.out.printf(Locale.ROOT, "plan --queue bench (%d waiting jobs) %.0f jobs/s | bare pipelined HGETALL %.0f"
                    + " jobs/s | ratio %.2f | load average %s%n", jobs, jobs / bestPlan, jobs / bestBaseline,
                    bestBaseline / bestPlan, BenchSetup.loadAverage());
        }
    }

    /** {@code LRANGE} the ids 1000 at a time and {@code HGETALL} each job hash in one pipeline per chunk; the hashes read. */
    static long baseline(UnifiedJedis client) {
        byte[] wait = "bull:bench:wait".getBytes(StandardCharsets.UTF_8);
        long n = client.llen(wait);
        long read = 0;
        for (long from = 0; from < n; from += CHUNK) {
            List<byte[]> ids = client.lrange(wait, from, from + CHUNK - 1);
            List<Response<Map<byte[], byte[]>>> hashes = new ArrayList<>(ids.size());
            try (AbstractPipeline p = client.pipelined()) {
                for (byte[] id : ids) {
                    hashes.add(p.hgetAll(("bull:bench:" + new String(id, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8)));
                }
                p.sync();
            }
            for (Response<Map<byte[], byte[]>> h : hashes) {
                read += h.get().isEmpty() ? 0 : 1;
            }
        }
        return read;
    }

    /** Seconds the whole {@code plan} command takes through the launcher ({@code EMQ_JAVA_OPTS=-Xmx256m}); its report is discarded. */
    static double planCommand(String uri) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bin" + File.separator + "emq-migrate", "plan", "--source", uri,
                "--queue", "bench", "--no-progress")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("EMQ_JAVA_OPTS", "-Xmx256m");
        long t0 = System.nanoTime();
        int code = pb.start().waitFor();
        double s = BenchSetup.secs(t0);
        if (code != 0) {
            throw new IllegalStateException("plan exited " + code);
        }
        return s;
    }
}
