package io.emq.migrate.cli;

import io.emq.migrate.wire.Endpoint;
import java.io.PrintStream;
import java.util.Optional;
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
}
