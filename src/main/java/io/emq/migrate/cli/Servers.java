package io.emq.migrate.cli;

import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.util.Optional;
import java.util.function.ToIntFunction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/** The CLI's one way to name a server from an option, and to explain a failure to reach it. */
final class Servers {
    private Servers() {
    }

    /** Parses a URI option; on a bad URI prints why and returns empty (the caller exits 2). */
    static Optional<Endpoint> endpoint(String command, String option, String uri, String role, PrintStream err) {
        if (uri == null) {
            err.println("emq-migrate " + command + ": --" + option + " URI is required (redis://host:port)");
            return Optional.empty();
        }
        try {
            return Optional.of(Endpoint.parse(uri, role));
        } catch (Endpoint.BadEndpointException e) {
            err.println("emq-migrate " + command + ": --" + option + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /** The message for a server that could not be used: which one, what happened, what to check. */
    static String unreachable(String command, Endpoint endpoint, String role, JedisException e) {
        String envRole = role.isEmpty() ? "" : role + "_";
        return "emq-migrate " + command + ": cannot use " + endpoint.describe() + ": " + e.getMessage()
                + " (check that the server runs and is reachable, the URI, TLS (rediss://) and the credentials:"
                + " user:password in the URI or EMQ_" + envRole + "USERNAME / EMQ_" + envRole + "PASSWORD)";
    }

    /**
     * Opens the v2 target named by {@code --target} behind the version fence, runs the body, and turns
     * failures into the CLI's exit codes: 2 for a bad URI or an unreachable server, 3 for a refusal.
     */
    static int withTarget(String command, String uri, PrintStream err, ToIntFunction<Wire> body) {
        Optional<Endpoint> endpoint = endpoint(command, "target", uri, "TARGET", err);
        if (endpoint.isEmpty()) {
            return ExitCodes.USAGE;
        }
        try (UnifiedJedis client = endpoint.get().open()) {
            return body.applyAsInt(Wire.open(client));
        } catch (MigrationRefused | EmqWireException e) {
            err.println("emq-migrate " + command + ": " + e.getMessage());
            return ExitCodes.REFUSED;
        } catch (JedisException e) {
            err.println(unreachable(command, endpoint.get(), "TARGET", e));
            return ExitCodes.USAGE;
        }
    }
}
