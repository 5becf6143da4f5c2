package io.emq.migrate.bench;

import io.emq.migrate.drain.Drain;
import io.emq.migrate.drain.DrainOptions;
import io.emq.migrate.drain.DrainReport;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Clients;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.UnifiedJedis;

/**
 * The drain benchmark (never run by the suite; see bench/README.md): the v2 drain loop with its
 * default settings and a handler that does nothing, beside the real BullMQ 5.65.1 {@code Worker}
 * (no-op processor, concurrency 32) measured on the same server in the same run, rounds
 * interleaved so both see the same machine load. Each side drains N small jobs of a fresh queue.
 * Beside each rate it prints what the drain cost the server per job, read from the server itself
 * (main-thread CPU and script calls, {@code INFO} before and after), so the comparison says what
 * each side asks of the server; the ratio that counts is the one of each round (same load).
 *
 * <p>Arguments: {@code [--jobs N] [--rounds R]}. Needs {@code node} and {@code bench/peer}'s
 * {@code npm install} (bench/run-drain does it).
 */
public final class DrainBench {
    private static final byte[] PAYLOAD = "{\"to\":\"user@example.com\",\"n\":1}".getBytes(StandardCharsets.UTF_8);
    private static final int PEER_CONCURRENCY = 32;

    /** One side's drain: its rate, and the server's main-thread CPU and script calls per job. */
    private record Side(double jobsPerSecond, double serverCpuUsPerJob, double scriptCallsPerJob) {
        String render() {
            return String.format(Locale.ROOT, "%,.0f jobs/s (server %.1f us CPU, %.3f script calls a job)",
                    jobsPerSecond, serverCpuUsPerJob, scriptCallsPerJob);
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--jobs", "--rounds"), 100_000, 3);
        int jobs = options.jobs();
        int rounds = options.rounds();
        try (LocalServer server = LocalServer.start(); UnifiedJedis client = Clients.open(Endpoint.parse(server.uri()), 24)) {
            System.out.println("server: " + BenchSetup.version(client) + "  cpus: " + Runtime.getRuntime().availableProcessors()
                    + "  jobs per run: " + jobs + "  rounds: " + rounds + "  load average: " + BenchSetup.loadAverage());
            System.out.printf(Locale.ROOT, "emq-migrate: drain with no tuning flags (%d worker, claim_batch %d and complete_batch"
                    + " in one pipeline a round trip, every settlement fenced by its token, judged against the journal), no-op handler%n",
                    DrainOptions.defaults().workers(), DrainOptions.BATCH_SIZE);
            System.out.printf(Locale.ROOT, "BullMQ:      5.65.1 Worker, concurrency %d, no-op processor, removeOnComplete%n",
                    PEER_CONCURRENCY);
            List<Double> ratios = new ArrayList<>();
            double drain = 0;
            double peer = 0;
            for (int r = 1; r <= rounds; r++) {
                Side d = drainOnce(client, jobs, "bench-drain-" + r);
                Side b = peerOnce(server.hostAndPort().getPort(), jobs);
                ratios.add(d.jobsPerSecond() / b.jobsPerSecond());
                System.out.printf(Locale.ROOT, "round %d: emq-migrate drain %s | BullMQ Worker %s | ratio %.2f%n", r, d.render(),
                        b.render(), d.jobsPerSecond() / b.jobsPerSecond());
                drain = Math.max(drain, d.jobsPerSecond());
                peer = Math.max(peer, b.jobsPerSecond());
            }
            Collections.sort(ratios);
            System.out.printf(Locale.ROOT, "drain (defaults) best %,.0f jobs/s | BullMQ 5.65.1 Worker best %,.0f jobs/s | ratio of"
                    + " bests %.2f | median of round ratios %.2f | load average: %s%n", drain, peer, drain / peer,
                    ratios.get(ratios.size() / 2), BenchSetup.loadAverage());
        }
    }

    /** Enqueues N jobs into a fresh v2 queue, then times the drain as {@code drain --handler noop} runs it. */
    private static Side drainOnce(UnifiedJedis client, int jobs, String queue) throws InterruptedException {
        Wire wire = Wire.open(client);
        Jobs q = Jobs.on(wire, queue);
        for (int from = 0; from < jobs; from += 1000) {
            List<byte[]> chunk = new ArrayList<>();
            for (int n = from; n < Math.min(jobs, from + 1000); n++) {
                chunk.add(PAYLOAD);
            }
            q.enqueueAll(chunk);
        }
        double[] before = serverWork(client);
        long t0 = System.nanoTime();
        DrainReport report = new Drain(wire, queue).run(DrainOptions.defaults(), job -> { }, new ConsumerListener() { });
        double seconds = (System.nanoTime() - t0) / 1e9;
        double[] after = serverWork(client);
        long completed = report.stats().map(s -> s.completed()).orElse(0L);
        if (completed != jobs) {
            throw new IllegalStateException("the drain completed " + completed + " of " + jobs);
        }
        return new Side(jobs / seconds, (after[0] - before[0]) * 1e6 / jobs, (after[1] - before[1]) / jobs);
    }

    /** The server's main-thread CPU seconds and script calls so far ({@code INFO cpu}, {@code INFO commandstats}). */
    private static double[] serverWork(UnifiedJedis client) {
        String cpu = client.info("cpu");
        String stats = client.info("commandstats");
        return new double[] {number(cpu, "used_cpu_user_main_thread:([\\d.]+)") + number(cpu, "used_cpu_sys_main_thread:([\\d.]+)"),
            number(stats, "cmdstat_evalsha:calls=(\\d+)") + number(stats, "cmdstat_eval:calls=(\\d+)")};
    }

    private static double number(String text, String pattern) {
        Matcher m = Pattern.compile(pattern).matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Runs bench/peer/drain.mjs: BullMQ adds N jobs, then its Worker drains them. */
    private static Side peerOnce(int port, int jobs) throws Exception {
        Process p = Peer.start("drain.mjs", Integer.toString(port), Integer.toString(jobs), Integer.toString(PEER_CONCURRENCY));
        String line;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            line = out.readLine();
        }
        if (p.waitFor() != 0 || line == null) {
            throw new IllegalStateException("the BullMQ peer failed (exit " + p.exitValue() + ")");
        }
        return new Side(number(line, "\"jobsPerSecond\":([\\d.]+)"), number(line, "\"serverCpuUsPerJob\":([\\d.]+)"),
                number(line, "\"scriptCallsPerJob\":([\\d.]+)"));
    }
}
