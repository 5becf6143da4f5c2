package io.emq.migrate.migrate;

import redis.clients.jedis.UnifiedJedis;

/**
 * How a run's message names the server that refused a write: as its side and address ("the target 127.0.0.1:6380"), or,
 * on Redis 6.2, as "a server" ("that server" in the advice after it) too: 6.2 counts a refusal met inside a script as the
 * script's {@code ERR} in {@code INFO errorstats}, so the run cannot tell which server refused (the embedded server some
 * runs of the suite use is 6.2).
 */
final class RefusingServer {
    private RefusingServer() {
    }

    /** Whether {@code message} names the refusing {@code server} as {@code side} at {@code address}, {@code said} following the name. */
    static boolean named(String message, UnifiedJedis server, String side, String address, String said) {
        boolean sixTwo = server.info("server").lines().anyMatch(l -> l.startsWith("redis_version:6."));
        return message.contains("the " + side + " " + address + said)
                || sixTwo && message.contains((said.startsWith(" refused") ? "a server" : "that server") + said);
    }
}
