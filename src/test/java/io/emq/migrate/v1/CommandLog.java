package io.emq.migrate.v1;

import java.util.Comparator;
import java.util.List;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Slowlog;

/** The server's slow log with every command logged: the order the server ran them in, for tests of what is asked for when. */
final class CommandLog {
    private CommandLog() {
    }

    /** Logs every command from now on (up to 100,000), the log emptied. */
    static void start(UnifiedJedis server) {
        server.sendCommand(Protocol.Command.CONFIG, "SET", "slowlog-max-len", "100000");
        server.sendCommand(Protocol.Command.CONFIG, "SET", "slowlog-log-slower-than", "0");
        server.slowlogReset();
    }

    /** The commands logged since {@link #start}, in the order they ran. */
    static List<Slowlog> entries(UnifiedJedis server) {
        @SuppressWarnings("unchecked")
        List<Object> raw = (List<Object>) server.sendCommand(Protocol.Command.SLOWLOG, "GET", "100000");
        return Slowlog.from(raw).stream().sorted(Comparator.comparingLong(Slowlog::getId)).toList();
    }

    /** Logs only slow commands again (the server's default threshold). */
    static void stop(UnifiedJedis server) {
        server.sendCommand(Protocol.Command.CONFIG, "SET", "slowlog-log-slower-than", "10000");
    }
}
