package io.emq.migrate.cli;

import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/** Discovery with a progress bar (or plain lines off a terminal) on the error stream, so stdout stays the report. */
final class Scanning {
    private Scanning() {
    }

    /** The total is an upper bound: every key of the database once per prefix (keys outside the prefixes are not counted). */
    static DiscoveryResult discover(UnifiedJedis jedis, List<String> prefixes, Invocation in) {
        try (Progress progress = progress(jedis, prefixes, in)) {
            return new Discovery(jedis).discover(prefixes, progress::advance);
        }
    }

    /** As {@link #discover}, holding each queue's keys when they fit ({@link Discovery#discoverHoldingKeys}), for the dry run. */
    static Discovery.Discovered discoverHoldingKeys(UnifiedJedis jedis, List<String> prefixes, Invocation in) {
        try (Progress progress = progress(jedis, prefixes, in)) {
            return new Discovery(jedis).discoverHoldingKeys(prefixes, progress::advance);
        }
    }

    private static Progress progress(UnifiedJedis jedis, List<String> prefixes, Invocation in) {
        return in.progress("scan", (long) prefixes.size() * jedis.dbSize(), "keys");
    }
}
