package io.emq.migrate.bench;

import java.util.Set;

/**
 * The options the bench mains share: {@code --target URI} (a server to use instead of one the bench
 * starts), {@code --jobs N}, {@code --rounds R}, {@code --producer RATE} (v1 adds a second during the
 * run, 0: none), {@code --editor RATE} (edits of v1 jobs' data a second during the run, 0: none), {@code --flows N} (N flows
 * of a parent waiting for two waiting children added to the backlog, 0: none), {@code --orphans N} (N job hashes listed
 * nowhere added, as v1's pause/resume wrappers leave one at each add, and migrated with {@code --accept-anomalies}; 0:
 * none), and switches: {@code --dedup} (every v1 job, generated or added, carries a BullMQ 5 dedup key),
 * {@code --custom-ids} (the generated jobs have ids of their own, {@code c<n>}), {@code --without-flows} (a backlog of the
 * real BullMQ soak holds no flow), {@code --logs} (one generated job in a hundred has a logs list of a line), {@code --anomalies} (a few of the
 * anomalies production queues hold: a job whose opts are no JSON, one with a negative attempts counter, an id listed
 * without its hash), {@code --without-feed} (the migration reads
 * v1 as a user the change feed's commands are refused to), {@code --resumed} (the migration stops at {@code --no-retire},
 * then a second run retires: MIGRATION.md §8); {@code --dedup-ttl MS} (with
 * {@code --dedup}: the generated jobs' dedup keys expire after MS, as BullMQ's throttled deduplication's); each main
 * names the ones it takes, anything else is refused.
 */
record BenchArgs(String target, int jobs, int rounds, int producer, int editor, int flows, int orphans, boolean dedup, boolean customIds, boolean withoutFeed,
                 boolean resumed, boolean withoutFlows, boolean logs, boolean anomalies, long dedupTtlMs) {
    private static final Set<String> SWITCHES = Set.of("--dedup", "--custom-ids", "--without-feed", "--resumed", "--without-flows", "--logs",
            "--anomalies");

    static BenchArgs parse(String[] args, Set<String> taken, int jobs, int rounds) {
        String target = null;
        int producer = 0;
        int editor = 0;
        int flows = 0;
        int orphans = 0;
        long dedupTtlMs = -1;
        Set<String> on = new java.util.HashSet<>();
        for (int i = 0; i < args.length; i++) {
            if (taken.contains(args[i]) && SWITCHES.contains(args[i])) {
                on.add(args[i]);
                continue;
            }
            if (!taken.contains(args[i]) || i + 1 == args.length) {
                throw new IllegalArgumentException("unknown argument or missing value: " + args[i] + " (takes " + taken + ")");
            }
            switch (args[i]) {
                case "--target" -> target = args[++i];
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--producer" -> producer = Integer.parseInt(args[++i]);
                case "--editor" -> editor = Integer.parseInt(args[++i]);
                case "--flows" -> flows = Integer.parseInt(args[++i]);
                case "--orphans" -> orphans = Integer.parseInt(args[++i]);
                case "--dedup-ttl" -> dedupTtlMs = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        return new BenchArgs(target, jobs, rounds, producer, editor, flows, orphans, on.contains("--dedup"), on.contains("--custom-ids"),
                on.contains("--without-feed"), on.contains("--resumed"), on.contains("--without-flows"), on.contains("--logs"),
                on.contains("--anomalies"), dedupTtlMs);
    }
}
