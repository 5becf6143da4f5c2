package io.emq.migrate.cli;

import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongConsumer;
import redis.clients.jedis.UnifiedJedis;

/** Discovery with a progress bar (or plain lines off a terminal) on the error stream, so stdout stays the report. */
final class Scanning {
    private Scanning() {
    }

    /**
     * Names the prefixes outside those given whose keys look like v1 queues ({@link Discovery#outsideToo}), for
     * {@code discover}. The total is an upper bound: every key of the database once per prefix (keys outside the prefixes are not counted);
     * a scan that ends counts what it met as all of it ({@link Progress#complete}).
     */
    static DiscoveryResult discover(UnifiedJedis jedis, List<String> prefixes, Invocation in) {
        return scanning(jedis, prefixes, in, scanned -> new Discovery(jedis).outsideToo().discover(prefixes, scanned));
    }

    /** As {@link #discover}, holding each queue's keys when they fit ({@link Discovery#discoverHoldingKeys}), for the dry run. */
    static Discovery.Discovered discoverHoldingKeys(UnifiedJedis jedis, List<String> prefixes, Invocation in) {
        return scanning(jedis, prefixes, in, scanned -> new Discovery(jedis).discoverHoldingKeys(prefixes, scanned));
    }

    /** Runs a discovery of {@code prefixes} on {@code jedis}, each page of its walk counted on the progress ({@code scanned}). */
    static <T> T scanning(UnifiedJedis jedis, List<String> prefixes, Invocation in, Function<LongConsumer, T> discovery) {
        try (Progress progress = in.progress("scan", (long) prefixes.size() * jedis.dbSize(), "keys")) {
            T result = discovery.apply(progress::advance);
            progress.complete();
            return result;
        }
    }
}
