package io.emq.migrate.testing;

import redis.clients.jedis.UnifiedJedis;

/** What a test server's {@code INFO commandstats} tells: the commands scripts call are counted too. */
public final class CommandStats {
    private CommandStats() {
    }

    /** How many times the server ran {@code command} (lower case) since it started or its last {@code CONFIG RESETSTAT}. */
    public static long calls(UnifiedJedis client, String command) {
        String stat = "cmdstat_" + command + ":calls=";
        return client.info("commandstats").lines().filter(l -> l.startsWith(stat)).findFirst()
                .map(l -> Long.parseLong(l.substring(stat.length(), l.indexOf(',')))).orElse(0L);
    }
}
