package io.emq.migrate.cli;

import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.util.Optional;
import java.util.function.ToIntFunction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The CLI's one way to name a server from an option, open it, and explain a failure to use it:
 * which server, what happened, what to check. A bad URI or an unreachable server exits 2; a
 * refusal of the migration or the wire exits 3.
 */
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

    /** Opens the v1 source named by {@code --source} (no version fence: it is a v1 server) and runs the body. */
    static int withSource(String command, String uri, PrintStream err, ToIntFunction<UnifiedJedis> body) {
        Optional<Endpoint> endpoint = endpoint(command, "source", uri, "SOURCE", err);
        if (endpoint.isEmpty()) {
            return ExitCodes.USAGE;
        }
        try (UnifiedJedis client = endpoint.get().open()) {
            return body.applyAsInt(client);
        } catch (JedisException e) {
            err.println(unreachable(command, endpoint.get(), "SOURCE", e));
            return ExitCodes.USAGE;
        }
    }

    /** Opens the v2 target named by {@code --target} behind the version fence ({@code version}) and runs the body. */
    static int withTarget(String command, String uri, String version, PrintStream err, ToIntFunction<Wire> body) {
        Optional<Endpoint> endpoint = endpoint(command, "target", uri, "TARGET", err);
        if (endpoint.isEmpty()) {
            return ExitCodes.USAGE;
        }
        try (UnifiedJedis client = endpoint.get().open()) {
            return body.applyAsInt(Wire.open(client, version));
        } catch (MigrationRefused | EmqWireException e) {
            err.println("emq-migrate " + command + ": " + e.getMessage());
            return ExitCodes.REFUSED;
        } catch (JedisException e) {
            err.println(unreachable(command, endpoint.get(), "TARGET", e));
            return ExitCodes.USAGE;
        }
    }

    /** The message for a server that could not be used: which one, what happened, what to check. */
    static String unreachable(String command, Endpoint endpoint, String role, JedisException e) {
        String credentials = "the credentials (user:password in the URI, or EMQ_" + role + "_USERNAME / EMQ_" + role
                + "_PASSWORD)";
        String head = "emq-migrate " + command + ": ";
        if (e instanceof JedisAccessControlException) {
            return head + endpoint.describe() + " refused the user: " + e.getMessage() + "; check " + credentials
                    + " and the ACL user's permissions (see MIGRATION.md, least privilege)";
        }
        if (e instanceof JedisConnectionException) {
            return head + "cannot reach " + endpoint.describe() + ": " + rootMessage(e) + "; check that the server runs"
                    + " and is reachable, the host, port and TLS scheme (rediss://) of the URI, and " + credentials;
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return head + endpoint.describe() + " answered an error: " + message + (message.startsWith("NOPERM")
                ? "; the ACL user lacks a permission: a dry run needs +@read, a migration the rules in MIGRATION.md" : "");
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
