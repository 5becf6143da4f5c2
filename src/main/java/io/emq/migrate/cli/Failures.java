package io.emq.migrate.cli;

import io.emq.migrate.migrate.ConnectionLoss;
import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.migrate.ServerRefusal;
import io.emq.migrate.wire.AclAdvice;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Endpoint;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one mapping from what stopped a command to its exit code and its one line: usage errors and
 * unusable servers exit 2 (a connection lost mid-way too: migrate tries its step again, other commands stop), refusals (of the plan, the migration, the wire) exit 3, anything else is
 * a bug and exits 4. A server failure says what went wrong and what to check, case by case.
 */
final class Failures {
    private Failures() {
    }

    /** How a server words a command it does not know. */
    private static final Pattern UNKNOWN_COMMAND = Pattern.compile("unknown command [`']([^`']+)[`']");

    /** An exit code and the line that explains it; {@code refusal}: the kind of a refusal of the migration ({@code no-such-queue}). */
    record Failure(int exitCode, String kind, String message, Optional<String> refusal) {
        Failure(int exitCode, String kind, String message) {
            this(exitCode, kind, message, Optional.empty());
        }
    }

    static Failure of(Throwable t) {
        if (t instanceof CliException e) {
            return new Failure(e.exitCode(), e.exitCode() == ExitCodes.USAGE ? "usage" : "refused", e.getMessage());
        }
        if (t instanceof Invocation.ServerProblem p) {
            return new Failure(ExitCodes.USAGE, "server", server(p.endpoint, p.side, p.getCause()));
        }
        if (t instanceof Endpoint.BadEndpointException e) {
            return new Failure(ExitCodes.USAGE, "usage", e.getMessage());
        }
        if (t instanceof MigrationRefused e) {
            return new Failure(ExitCodes.REFUSED, "refused", e.getMessage(), Optional.of(e.kind().wireName()));
        }
        if (t instanceof EmqWireException e) {
            return new Failure(ExitCodes.REFUSED, "refused", e.getMessage());
        }
        if (t instanceof JedisConnectionException lost) {
            return new Failure(ExitCodes.USAGE, "connection", ConnectionLoss.of(lost, "a server") + "; run the command again once it answers");
        }
        if (t instanceof JedisException e) {
            Optional<String> explained = ServerRefusal.explained(e);
            if (explained.isPresent()) {
                return new Failure(ExitCodes.USAGE, "server", explained.get());
            }
            String message = messages(e).get(0);
            return new Failure(ExitCodes.USAGE, "server", "a server answered an error: " + message
                    + AclAdvice.of(message).or(() -> unknownCommand(message)).map(advice -> "; " + advice).orElse(""));
        }
        if (t instanceof InterruptedException) {
            return new Failure(ExitCodes.REFUSED, "interrupted", "interrupted; what was done is journaled, a re-run goes on");
        }
        if (t instanceof UncheckedIOException e) {
            return new Failure(ExitCodes.USAGE, "file", e.getMessage() + ": " + e.getCause().getMessage());
        }
        return new Failure(ExitCodes.INTERNAL, "internal", "internal error " + t
                + " (a bug: run again with --debug for the trace, and report it)");
    }

    /**
     * What to do about a command the server does not know (renamed away or disabled by its {@code rename-command}
     * setting, or a server too old for it); empty for another error.
     */
    private static Optional<String> unknownCommand(String said) {
        Matcher unknown = UNKNOWN_COMMAND.matcher(said);
        return unknown.find() ? Optional.of("that server does not know " + unknown.group(1).toUpperCase(Locale.ROOT)
                + " (its rename-command setting renamed or disabled it, or it is too old): emq-migrate needs it, so give it"
                + " back under its own name, or name a server that has it") : Optional.empty();
    }

    /** What went wrong using a server, and what to check, from the causes Jedis and the JVM give. */
    static String server(Endpoint endpoint, Side side, Throwable cause) {
        List<String> chain = messages(cause);
        String all = String.join(" | ", chain);
        String where = endpoint.describe();
        String option = "--" + side.word();
        String role = side.name();
        if (has(all, "unable to find valid certification path", "PKIX path", "certificate_unknown")) {
            return endpoint.tlsFiles().caCert().map(ca -> where + " presented a TLS certificate that the CA given (" + ca
                    + ") did not sign: give the CA that signed it (its issuer: openssl s_client -connect HOST:PORT shows it)")
                    .orElse(where + " presented a TLS certificate this JVM does not trust: give the CA that signed it with "
                    + option + "-cacert FILE (or EMQ_" + role + "_CACERT, or " + side.word() + ".cacert in emq-migrate.conf)");
        }
        if (has(all, "Unknown reply")) {
            return where + " does not speak the Redis protocol (its first reply was not RESP: an HTTP server, a proxy, or"
                    + " another service listens there): check the host and port";
        }
        if (has(all, "No subject alternative", "No name matching", "doesn't match any of the subject alternative")) {
            return where + "'s TLS certificate does not name the host in the URI: connect by a name or address the"
                    + " certificate lists";
        }
        if (has(all, "bad_certificate", "certificate required", "certificate_required")
                || endpoint.tls() && has(all, "Broken pipe", "Connection reset", "Unexpected end of stream")) {
            return where + " closed the TLS connection at the handshake, as a server that requires a client certificate"
                    + " does: give it with " + option + "-cert FILE and " + option + "-key FILE (or EMQ_" + role + "_CERT / EMQ_"
                    + role + "_KEY)";
        }
        if (has(all, "Unsupported or unrecognized SSL message", "plaintext connection")) {
            return where + " does not speak TLS on that port: write the URI as redis://, or give the server's TLS port";
        }
        if (has(all, "NOAUTH", "Authentication required", "HELLO must be called")) {
            return where + " requires a password and none was given: put it in the URI (redis://user:password@host:port)"
                    + " or in EMQ_" + role + "_PASSWORD" + (endpoint.user().isPresent() ? "; a user is given without a"
                    + " password (redis-cli reads redis://X@host as the password X: for a password alone write"
                    + " redis://:PASSWORD@host)" : "");
        }
        if (has(all, "WRONGPASS", "invalid username-password", "invalid password")) {
            return where + " refused the user name and password: check them (in the URI, or EMQ_" + role
                    + "_USERNAME / EMQ_" + role + "_PASSWORD) and that the ACL user is enabled";
        }
        Optional<String> grant = AclAdvice.of(all);
        if (grant.isPresent()) {
            return "the " + side.word() + " " + where + " refused a command to this user: " + chain.get(chain.size() - 1) + "; " + grant.get();
        }
        if (has(all, "DB index is out of range")) {
            return where + " has no such database (ERR DB index is out of range: its `databases` setting is lower): give the"
                    + " database the queues are in as the URI's /N, or none for database 0";
        }
        if (has(all, "cluster support disabled")) {
            return where + " is not a cluster (cluster support is disabled there): for a standalone server give one"
                    + " seed, redis://host:port";
        }
        if (has(all, "Connection refused")) {
            return "nothing accepts connections at " + where + " (connection refused): check that the server runs"
                    + " and the host and port of " + option;
        }
        if (has(all, "UnknownHostException", "Name or service not known", "nodename nor servname")) {
            return "the host of " + where + " is unknown: check the host name in " + option;
        }
        if (endpoint.tls() && has(all, "Read timed out")) {
            return where + " took the connection but did not answer the TLS handshake within " + Endpoint.TIMEOUT_MS / 1000
                    + " s, as a server without TLS on that port does: write the URI as redis://, or give the server's TLS port"
                    + " (else check that the server is not overloaded)";
        }
        if (has(all, "timed out", "Read timed out")) {
            return where + " did not answer within " + Endpoint.TIMEOUT_MS / 1000 + " s: check the address, firewalls,"
                    + " and that the server is not overloaded";
        }
        if (!endpoint.tls() && has(all, "Unexpected end of stream", "Connection reset")) {
            return where + " closed the connection at once: if it serves only TLS, write the URI as rediss://";
        }
        if (has(all, "Pool not open")) {
            return "a node of " + where + " left while the command connected (the cluster client closed its connections to"
                    + " it: a node that died or failed over): run the command again; if it recurs, check CLUSTER NODES";
        }
        if (has(all, "cluster slots cache")) {
            return "no cluster node of " + where + " answered: " + chain.get(chain.size() - 1) + "; check the seeds";
        }
        return "cannot use " + where + ": " + chain.get(chain.size() - 1);
    }

    private static boolean has(String text, String... needles) {
        for (String n : needles) {
            if (text.contains(n)) {
                return true;
            }
        }
        return false;
    }

    /** The messages along the cause chain and its suppressed causes (class names where there is none), outermost first. */
    private static List<String> messages(Throwable t) {
        List<String> out = new ArrayList<>();
        collect(t, out);
        return out;
    }

    private static void collect(Throwable t, List<String> out) {
        if (t == null || out.size() >= 20) {
            return;
        }
        String name = t.getClass().getSimpleName();
        out.add(t.getMessage() == null ? name : name.equals("UnknownHostException") || name.equals("ConnectException")
                ? name + " " + t.getMessage() : t.getMessage());
        for (Throwable s : t.getSuppressed()) {
            collect(s, out);
        }
        collect(t.getCause(), out);
    }
}
