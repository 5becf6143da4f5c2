package io.emq.migrate.bench;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.UnifiedJedis;

/**
 * The live soak with the real BullMQ 5.65.1 on the v1 side (never run by the test suite; see bench/README.md): where
 * {@link LiveSoak} acts on v1 through BullMQ-shaped scripts of its own, here Node's BullMQ does ({@code bench/peer/live.mjs}).
 * Each round, on a fresh server of its own: the peer adds a backlog of the mix it adds throughout (plain, delayed an
 * hour, prioritized, LIFO, custom-id, deduplicated and retried jobs) and 20 flows of a parent and two children; then a
 * {@code Queue} adds jobs at the producer's rate, a {@code Worker} (concurrency 4, some jobs failing, some of them retried)
 * serves the queue and an editor updates data and progress and adds log lines to waiting jobs, while this process
 * migrates the queue as {@code migrate --accept-order-drift} does (the LIFO and prioritized adds move jobs ahead of
 * the copy), and runs it again after a refusal, the clients still live, at most {@value #RUNS} times. Two seconds after
 * the last run the clients stop, and the peer checks every job BullMQ said it added: with v1 retired, exactly one
 * v2 row (listed once, or a flow parent awaiting its children), or finished by the v1 worker (completed: no row;
 * failed for good: a dead row at most); with v1 not retired, its v1 hash kept unless the worker finished it.
 * Prints a line a round, then {@code N rounds, L lost, D doubled, R not retired, E runs failed with an unexpected error},
 * and exits 1 unless L, D and E are 0 (a round not retired was refused each time, v1 kept: the check says). Arguments:
 * {@code [--rounds N] [--jobs BACKLOG] [--producer ADDS_A_SECOND]} (3, 20,000 and, from bench/run-live-bullmq, 300) and
 * {@code --without-flows} (a backlog with no flow: a queue the change feed's refresh carries from one read to the next).
 */
public final class BullmqLiveSoak {
    static final String QUEUE = "live";
    /** Runs of migrate a round: the first, and re-runs after refusals. */
    static final int RUNS = 5;
    private static final Pattern COUNT = Pattern.compile("\"(lost|doubled)\":(\\d+)");

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--rounds", "--jobs", "--producer", "--without-flows"), 20_000, 3);
        int rounds = options.rounds();
        int rate = options.producer();
        long lost = 0;
        long doubled = 0;
        long notRetired = 0;
        long unexpected = 0;
        for (int round = 1; round <= rounds; round++) {
            Path dir = Files.createTempDirectory("emq-live-bullmq");
            try (LocalServer server = LocalServer.start()) {
                Round r = round(server, options.jobs(), options.withoutFlows() ? 0 : 20, rate, dir);
                lost += r.count("lost");
                doubled += r.count("doubled");
                notRetired += r.retired() ? 0 : 1;
                unexpected += r.unexpected();
                System.out.printf(Locale.ROOT, "round %d: %s%n  %s%n", round, String.join("; ", r.runs()), r.check());
            }
        }
        System.out.printf(Locale.ROOT, "%d rounds, %d lost, %d doubled, %d not retired, %d runs failed with an unexpected error%n",
                rounds, lost, doubled, notRetired, unexpected);
        if (lost + doubled + unexpected > 0) {
            System.exit(1);
        }
    }

    /**
     * A round's migrate runs (each told in a few words), whether the last retired the queue, how many failed with an
     * error the migrator did not expect (kind {@code error}, which asks the operator for a repair), and the peer's check line.
     */
    private record Round(List<String> runs, boolean retired, long unexpected, String check) {
        long count(String what) {
            Matcher m = COUNT.matcher(check);
            while (m.find()) {
                if (m.group(1).equals(what)) {
                    return Long.parseLong(m.group(2));
                }
            }
            throw new IllegalStateException("the peer's check says nothing of " + what + ": " + check);
        }
    }

    private static Round round(LocalServer server, int backlog, int flows, int rate, Path dir) throws Exception {
        String port = Integer.toString(server.port());
        finish(Peer.start("live.mjs", "setup", port, QUEUE, Integer.toString(backlog), dir.toString(), Integer.toString(flows)), "setup");
        Process clients = Peer.start("live.mjs", "run", port, QUEUE, Integer.toString(rate), dir.toString());
        List<String> runs = new ArrayList<>();
        boolean retired = false;
        long unexpected = 0;
        try (UnifiedJedis source = Endpoint.parse(server.uri()).open(); UnifiedJedis target = Endpoint.parse(server.uri()).open()) {
            Thread.sleep(2000); // the clients at work before the migration begins
            MigrationOptions migrate = MigrationOptions.defaults().withAcceptOrderDrift(true);
            for (int run = 0; run < RUNS && !retired; run++) {
                Map<String, Long> windowAt = new LinkedHashMap<>();
                int[] passes = {0};
                Checkpoints inTheWindow = Checkpoints.observed((version, where) -> {
                    if (version == 120 && (where.equals("v1 paused") || windowAt.containsKey("v1 paused"))) {
                        windowAt.putIfAbsent(where, System.nanoTime());
                        passes[0] += where.equals("before retire") ? 1 : 0;
                    }
                });
                MigrationResult r = new Migrator(Wire.unfenced(source), Wire.open(target), server.uri(), migrate, inTheWindow)
                        .migrate(List.of("bull"), List.of(QUEUE)).get(0);
                retired = r.outcome() == MigrationResult.Outcome.RETIRED;
                unexpected += r.refusalKind().equals(Optional.of(MigrationRefused.Kind.ERROR)) ? 1 : 0;
                runs.add(retired ? "retired, v1 paused " + r.pauseWindowMs().orElse(-1L) + " ms, " + passes[0]
                        + " pass(es) under the pause, ms from the pause to the first hit of each checkpoint: " + MigrationBench.sincePause(windowAt)
                        : r.outcome().wireName() + " " + r.refusalKind().map(k -> k.wireName()).orElse("") + ": " + firstWords(r.message()));
            }
            Thread.sleep(2000); // the clients go on against the tombstone
        } finally {
            Files.writeString(dir.resolve("stop"), "");
            finish(clients, "run");
        }
        Process check = Peer.start("live.mjs", "check", port, QUEUE, dir.toString());
        String line;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(check.getInputStream(), StandardCharsets.UTF_8))) {
            line = out.readLine();
        }
        check.waitFor();
        if (line == null) {
            throw new IllegalStateException("the peer's check printed nothing (exit " + check.exitValue() + ")");
        }
        return new Round(runs, retired, unexpected, line);
    }

    private static void finish(Process peer, String mode) throws IOException, InterruptedException {
        peer.getInputStream().transferTo(System.out);
        if (peer.waitFor() != 0) {
            throw new IllegalStateException("the BullMQ peer's " + mode + " failed (exit " + peer.exitValue() + ")");
        }
    }

    private static String firstWords(String message) {
        return message.length() <= 160 ? message : message.substring(0, 160) + "...";
    }
}
