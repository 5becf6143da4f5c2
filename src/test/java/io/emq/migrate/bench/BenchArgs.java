package io.emq.migrate.bench;

import java.util.Set;

/**
 * The options the bench mains share: {@code --target URI} (a server to use instead of one the bench
 * starts), {@code --jobs N}, {@code --rounds R}, {@code --producer RATE} (v1 adds a second during the
 * run, 0: none), {@code --dedup} (a switch: every v1 job, generated or added, carries a BullMQ 5 dedup key); each
 * main names the ones it takes, anything else is refused.
 */
record BenchArgs(String target, int jobs, int rounds, int producer, boolean dedup) {
    static BenchArgs parse(String[] args, Set<String> taken, int jobs, int rounds) {
        String target = null;
        int producer = 0;
        boolean dedup = false;
        for (int i = 0; i < args.length; i++) {
            if (taken.contains(args[i]) && args[i].equals("--dedup")) {
                dedup = true;
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
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        return new BenchArgs(target, jobs, rounds, producer, dedup);
    }
}
