package io.emq.migrate.cli;

import io.emq.migrate.wire.Endpoint;
import java.io.PrintStream;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Opens the v1 source for a read-only command and turns connection and permission failures into
 * exit code 2 with a message that names the server and what to check.
 */
final class SourceConnection {
    private SourceConnection() {
    }

    /** Runs {@code work} against the source; returns its exit code, or 2 after printing why the server could not be used. */
    static int withSource(String command, String uri, PrintStream err, Function<UnifiedJedis, Integer> work) {
        Endpoint endpoint;
        try {
            endpoint = Endpoint.parse(uri, "SOURCE");
        } catch (Endpoint.BadEndpointException e) {
            err.println("emq-migrate " + command + ": " + e.getMessage());
            return ExitCodes.USAGE;
        }
        try (UnifiedJedis jedis = endpoint.open()) {
            return work.apply(jedis);
        } catch (JedisAccessControlException e) {
            err.println("emq-migrate " + command + ": " + endpoint.describe() + " refused the user: " + e.getMessage()
                    + "; check the credentials (EMQ_SOURCE_USERNAME/EMQ_SOURCE_PASSWORD or the URI) and that the ACL"
                    + " user has +@read plus the connection commands");
            return ExitCodes.USAGE;
        } catch (JedisConnectionException e) {
            err.println("emq-migrate " + command + ": cannot reach " + endpoint.describe() + ": " + rootMessage(e)
                    + "; check that the server is running and the host, port and TLS scheme of --source");
            return ExitCodes.USAGE;
        } catch (JedisDataException e) {
            err.println("emq-migrate " + command + ": " + endpoint.describe() + " answered an error: " + e.getMessage()
                    + (e.getMessage() != null && e.getMessage().startsWith("NOPERM")
                    ? "; a dry run needs an ACL user with +@read (and the connection commands)" : ""));
            return ExitCodes.USAGE;
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
