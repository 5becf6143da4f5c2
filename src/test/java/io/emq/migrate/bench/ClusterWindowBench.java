package io.emq.migrate.bench;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.LiveV1;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.StepDefinition;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalCluster;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The v1 pause window of a migration from a cluster source ({@code bench/run-cluster-window}). Starts a local
 * three-master cluster (the v1 source: queue {@code bench} under the hash-tagged prefix {@code {bull}}) beside the
 * target ({@code --target}, else a server it starts), then migrates N generated waiting jobs twice, each time from a
 * queue generated afresh: first as a source user without {@code +cluster|nodes}, so the change feed cannot tell that the
 * queue's slot stayed and every re-sync pass reads the whole queue (the baseline: a cluster source before the feed
 * tracked one), then as one with every right. With {@code --producer RATE} a v1 producer adds RATE jobs a second
 * (BullMQ's add shape) through each migration. Prints each run's steps, its window and an exactly-once check, then the
 * window and the run's time beside the baseline's.
 */
public final class ClusterWindowBench {
    static final String PREFIX = "{bull}";
    static final String QUEUE = "bench";
    static final String WITHOUT_NODES = "without-cluster-nodes";

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--target", "--jobs", "--producer"), 1_000_000, 0);
        try (LocalCluster cluster = LocalCluster.start(3); BenchSetup.Server server = BenchSetup.server(options.target());
             UnifiedJedis target = Endpoint.parse(server.uri()).open()) {
            String source = "redis+cluster://" + cluster.uri().substring("redis://".length());
            for (LocalServer node : cluster.nodes()) {
                try (Jedis n = new Jedis(node.hostAndPort())) {
                    n.aclSetUser(WITHOUT_NODES, "on", ">bench", "~*", "&*", "+@all", "-cluster|nodes");
                }
            }
            String withoutNodes = "redis+cluster://" + WITHOUT_NODES + ":bench@" + source.substring("redis+cluster://".length());
            System.out.printf(Locale.ROOT, "source: a local cluster of 3 masters; target %s; %d waiting jobs, producer at %d/s%n",
                    server.uri(), options.jobs(), options.producer());
            System.out.println("baseline: as a user without +cluster|nodes (the feed cannot tell the slot stayed)");
            MigrationResult baseline = migrate(withoutNodes, source, target, options);
            System.out.println("with the change feed on the queue's master");
            MigrationResult fed = migrate(source, source, target, options);
            System.out.printf(Locale.ROOT, "%-44s %12s %12s %7s%n", "cluster source (" + options.jobs() + " waiting jobs)", "with feed",
                    "baseline", "ratio");
            long window = fed.pauseWindowMs().orElseThrow();
            long without = baseline.pauseWindowMs().orElseThrow();
            System.out.printf(Locale.ROOT, "%-44s %9d ms %9d ms %7.3f%n", "v1 pause window", window, without, window / (double) without);
            System.out.printf(Locale.ROOT, "%-44s %9d ms %9d ms %7.3f%n", "whole run", fed.millis(), baseline.millis(),
                    fed.millis() / (double) baseline.millis());
        }
    }

    /** Generates the queue on the cluster afresh and migrates it reading v1 through {@code readAs}; its result. */
    private static MigrationResult migrate(String readAs, String cluster, UnifiedJedis target, BenchArgs options) throws Exception {
        try (UnifiedJedis admin = Endpoint.parse(cluster).open(); UnifiedJedis reader = Endpoint.parse(readAs).open()) {
            BenchSetup.empty(target);
            admin.keys(PREFIX + ":" + QUEUE + ":*").forEach(admin::del); // what the run before left: the tombstone, the add counter
            V1QueueGenerator.addWaiting(admin, PREFIX, QUEUE, 1, options.jobs(), BenchSetup.PAYLOAD_BYTES);
            MigrationBench.Producer producer = new MigrationBench.Producer(cluster, PREFIX, options.producer(), false);
            MigrationResult r;
            try {
                r = new Migrator(Wire.unfenced(reader), Wire.open(target), cluster, MigrationOptions.defaults(), Checkpoints.none())
                        .listener(new Migrator.Listener() {
                            public void stepStarted(String queue, StepDefinition step) {
                            }

                            public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long ms) {
                                System.out.printf(Locale.ROOT, "  %-36s %8d ms%s%n", "V" + step.version() + " " + step.description(), ms,
                                        step.version() == 100 || step.version() == 120 ? "     (" + counts + ")" : "");
                            }
                        }).migrate(List.of(PREFIX), List.of(QUEUE)).get(0);
            } finally {
                producer.stop();
            }
            if (!r.ok()) {
                throw new IllegalStateException("migration did not finish: " + r);
            }
            System.out.printf(Locale.ROOT, "v1 paused %d ms of the %d ms run; producer: %d adds taken, %d refused; without the feed: %s%n",
                    r.pauseWindowMs().orElseThrow(), r.millis(), producer.added, producer.refused, r.withoutFeed().orElse("no"));
            List<String> problems = LiveV1.exactlyOnce(target, QUEUE, options.jobs() + producer.added);
            System.out.println("exactly once (" + (options.jobs() + producer.added) + " v1 jobs -> v2 pending): "
                    + (problems.isEmpty() ? "ok" : "FAILED " + problems));
            System.out.println("v2 holds v1's order at the cutover: " + r.orderDrift().map(drift -> "no, " + drift).orElse("yes"));
            return r;
        }
    }
}
