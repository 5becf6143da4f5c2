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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.UnifiedJedis;

/**
 * The drain benchmark (never run by the suite; see bench/README.md): the v2 drain loop with its
 * default settings and a handler that does nothing, beside the real BullMQ 5.65.1 {@code Worker}
 * (no-op processor, concurrency 32) measured on the same server in the same run, rounds
 * interleaved so both see the same machine load. Each side drains N small jobs of a fresh queue.
 *
 * <p>Arguments: {@code [--jobs N] [--rounds R]}. Needs {@code node} and {@code bench/peer}'s
 * {@code npm install} (bench/run-drain does it).
 */
public final class DrainBench {
    private static final byte[] PAYLOAD = "{\"to\":\"user@example.com\",\"n\":1}".getBytes(StandardCharsets.UTF_8);
    private static final int PEER_CONCURRENCY = 32;

    public static void main(String[] args) throws Exception {
        int jobs = 100_000;
        int rounds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        try (LocalServer server = LocalServer.start(); UnifiedJedis client = Clients.open(Endpoint.parse(server.uri()), 24)) {
            System.out.println("server: " + client.info("server").lines().filter(l -> l.startsWith("redis_version"))
                    .findFirst().orElse("?") + "  cpus: " + Runtime.getRuntime().availableProcessors()
                    + "  jobs per run: " + jobs + "  rounds: " + rounds + " (best of)");
            double drain = 0;
            double peer = 0;
            for (int r = 1; r <= rounds; r++) {
                double d = drainOnce(client, jobs, "bench-drain-" + r);
                double b = peerOnce(server.hostAndPort().getPort(), jobs);
                System.out.printf(Locale.ROOT, "round %d: emq-migrate drain %,.0f jobs/s, BullMQ Worker %,.0f jobs/s%n", r, d, b);
                drain = Math.max(drain, d);
                peer = Math.max(peer, b);
            }
            System.out.printf(Locale.ROOT, "drain (defaults: %d worker, claim_batch %d, noop) %,.0f jobs/s | BullMQ 5.65.1 Worker"
                    + " (concurrency %d, noop) %,.0f jobs/s | ratio %.2f%n", DrainOptions.defaults().workers(),
                    DrainOptions.BATCH_SIZE, drain, PEER_CONCURRENCY, peer, drain / peer);
        }
    }

    /** Enqueues N jobs into a fresh v2 queue, then times the drain as {@code drain --handler noop} runs it. */
    private static double drainOnce(UnifiedJedis client, int jobs, String queue) throws InterruptedException {
        Wire wire = Wire.open(client);
        Jobs q = Jobs.on(wire, queue);
        for (int from = 0; from < jobs; from += 1000) {
            List<byte[]> chunk = new ArrayList<>();
            for (int n = from; n < Math.min(jobs, from + 1000); n++) {
                chunk.add(PAYLOAD);
            }
            q.enqueueAll(chunk);
        }
        long t0 = System.nanoTime();
        DrainReport report = new Drain(wire, queue).run(DrainOptions.defaults(), job -> { }, new ConsumerListener() { });
        double seconds = (System.nanoTime() - t0) / 1e9;
        long completed = report.stats().map(s -> s.completed()).orElse(0L);
        if (completed != jobs) {
            throw new IllegalStateException("the drain completed " + completed + " of " + jobs);
        }
        return jobs / seconds;
    }

    /** Runs bench/peer/drain.mjs: BullMQ adds N jobs, then its Worker drains them; returns its jobs/s. */
    private static double peerOnce(int port, int jobs) throws Exception {
        Path script = Path.of("bench", "peer", "drain.mjs");
        if (!Files.exists(script.resolveSibling("node_modules"))) {
            throw new IllegalStateException("run `npm install` in bench/peer first (bench/run-drain does)");
        }
        Process p = new ProcessBuilder("node", script.toString(), Integer.toString(port), Integer.toString(jobs),
                Integer.toString(PEER_CONCURRENCY)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            line = out.readLine();
        }
        if (p.waitFor() != 0 || line == null) {
            throw new IllegalStateException("the BullMQ peer failed (exit " + p.exitValue() + ")");
        }
        return Double.parseDouble(line.replaceAll(".*\"jobsPerSecond\":(\\d+).*", "$1"));
    }
}
