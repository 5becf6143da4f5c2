package io.emq.migrate.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where a server is: {@code redis://[user[:pass]@]host:port[/db]}, {@code rediss://…} for TLS, and a
 * cluster as several seeds {@code redis://h1:p1,h2:p2} (or one seed with {@code redis+cluster://}).
 * Without a scheme ({@code host:port}, {@code h1:p1,h2:p2}) {@code redis://} is meant. User and
 * password are percent-decoded ({@code %2F} is {@code /}; a {@code +} stays a plus).
 * Credentials missing from the URI are read from {@code EMQ_<ROLE>_USERNAME}/{@code EMQ_<ROLE>_PASSWORD},
 * then {@code EMQ_USERNAME}/{@code EMQ_PASSWORD}, so secrets need not appear on a command line.
 * A private CA and client certificates come with {@link #withTls}. Every connection speaks RESP2, so
 * script replies decode the same on every server.
 */
public record Endpoint(List<HostAndPort> seeds, boolean cluster, boolean tls, Optional<String> user,
                       Optional<String> password, int database, TlsFiles tlsFiles) {

    public static final int TIMEOUT_MS = 10_000;
    /** What a message shows for a secret: the password, or a user named without one (see {@link #describe}). */
    private static final String UNSHOWN = "***";

    /** A URI the operator gave that cannot name a server. */
    public static final class BadEndpointException extends IllegalArgumentException {
        public BadEndpointException(String message) {
            super(message);
        }
    }

    public static Endpoint parse(String uri) {
        return parse(uri, "");
    }

    /** Parses a URI for a role ({@code SOURCE}, {@code TARGET}, or empty) whose env credentials apply. */
    public static Endpoint parse(String uri, String role) {
        return parse(uri, role, System::getenv);
    }

    /** As {@link #parse(String, String)}, reading credential variables from {@code environment}. */
    public static Endpoint parse(String uri, String role, Function<String, String> environment) {
        if (uri == null || uri.isBlank()) {
            throw new BadEndpointException("no server URI given (expected redis://host:port)");
        }
        String rest = uri.trim();
        boolean tls;
        boolean cluster = false;
        int schemeEnd = rest.indexOf("://");
        String scheme = schemeEnd < 0 ? "redis" : rest.substring(0, schemeEnd);
        switch (scheme) {
            case "redis" -> tls = false;
            case "rediss" -> tls = true;
            case "redis+cluster" -> { tls = false; cluster = true; }
            case "rediss+cluster" -> { tls = true; cluster = true; }
            default -> throw new BadEndpointException("unknown scheme '" + scheme + "' in " + redact(uri)
                    + " (use redis, rediss, redis+cluster or rediss+cluster)");
        }
        rest = schemeEnd < 0 ? rest : rest.substring(schemeEnd + 3);
        Optional<String> user = Optional.empty();
        Optional<String> password = Optional.empty();
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String info = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = info.indexOf(':');
            String u = decode(colon < 0 ? info : info.substring(0, colon), "user", uri);
            user = u.isEmpty() ? Optional.empty() : Optional.of(u);
            password = colon < 0 ? Optional.empty() : Optional.of(decode(info.substring(colon + 1), "password", uri));
        }
        int database = 0;
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            String db = rest.substring(slash + 1);
            rest = rest.substring(0, slash);
            if (!db.isEmpty()) {
                try {
                    database = Integer.parseUnsignedInt(db);
                } catch (NumberFormatException e) {
                    throw new BadEndpointException("database '" + db + "' in " + redact(uri) + " is not a number (0, 1, …)");
                }
            }
        }
        List<HostAndPort> seeds = new ArrayList<>();
        for (String hp : rest.split(",", -1)) {
            seeds.add(hostAndPort(hp.trim(), uri));
        }
        cluster = cluster || seeds.size() > 1;
        if (cluster && database != 0) {
            throw new BadEndpointException("a cluster has only database 0: " + redact(uri));
        }
        String prefix = role.isEmpty() ? "EMQ_" : "EMQ_" + role + "_";
        if (user.isEmpty()) {
            user = env(environment, prefix + "USERNAME").or(() -> env(environment, "EMQ_USERNAME"));
        }
        if (password.isEmpty()) {
            password = env(environment, prefix + "PASSWORD").or(() -> env(environment, "EMQ_PASSWORD"));
        }
        return new Endpoint(List.copyOf(seeds), cluster, tls, user, password, database, TlsFiles.NONE);
    }

    /** This endpoint with a CA and client certificate files; they need a {@code rediss://} URI. */
    public Endpoint withTls(TlsFiles files) {
        if (!files.equals(TlsFiles.NONE) && !tls) {
            throw new BadEndpointException("certificate files were given for " + describe()
                    + ", which is not a TLS URI: write it as rediss://");
        }
        files.sslOptions(); // reads the files now, so a missing or malformed one is refused before any connection
        return new Endpoint(seeds, cluster, tls, user, password, database, files);
    }

    private static HostAndPort hostAndPort(String hp, String uri) {
        int colon = hp.lastIndexOf(':');
        String host = colon < 0 ? hp : hp.substring(0, colon);
        if (host.isEmpty()) {
            throw new BadEndpointException("no host in " + redact(uri));
        }
        int port = 6379;
        if (colon >= 0) {
            try {
                port = Integer.parseInt(hp.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new BadEndpointException("port '" + hp.substring(colon + 1) + "' in " + redact(uri) + " is not a number");
            }
        }
        if (port < 1 || port > 65535) {
            throw new BadEndpointException("port " + port + " in " + redact(uri) + " is out of range");
        }
        return new HostAndPort(host, port);
    }

    /** Percent-decoding as RFC 3986 has it (no {@code +} for space); a malformed escape is refused. */
    private static String decode(String s, String what, String uri) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '%') {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            int value = i + 2 < s.length() ? hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)) : -1;
            if (value < 0) {
                throw new BadEndpointException("the " + what + " in " + redact(uri) + " has a malformed %-escape"
                        + " (write % itself as %25)");
            }
            bytes.write(value);
            i += 2;
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int hex(char c) {
        int d = Character.digit(c, 16);
        return d < 0 ? -1000 : d;
    }

    private static Optional<String> env(Function<String, String> environment, String name) {
        String v = environment.apply(name);
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    /**
     * A URI with its password replaced by {@code ***} (and a user given without one, which may be a password written as
     * redis-cli reads it, see {@link #describe}), safe for messages and logs: with or without a scheme, whatever the
     * password holds ({@code /}, {@code @}, malformed escapes).
     */
    public static String redact(String uri) {
        if (uri == null) {
            return null;
        }
        int schemeEnd = uri.indexOf("://");
        int start = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int at = uri.lastIndexOf('@');
        if (at < start) {
            return uri;
        }
        int colon = uri.indexOf(':', start);
        return uri.substring(0, start) + (colon < 0 || colon > at ? UNSHOWN : uri.substring(start, colon) + ":" + UNSHOWN)
                + uri.substring(at);
    }

    public JedisClientConfig clientConfig() {
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder().resp2()
                .timeoutMillis(TIMEOUT_MS).database(database).clientName("emq-migrate");
        if (tls) {
            b.sslOptions(tlsFiles.sslOptions());
        }
        user.ifPresent(b::user);
        password.ifPresent(b::password);
        return b.build();
    }

    /** Opens a client: a {@link RedisClusterClient} for a cluster, else a pooled {@link RedisClient}. */
    public UnifiedJedis open() {
        if (cluster) {
            Set<HostAndPort> nodes = new LinkedHashSet<>(seeds);
            return RedisClusterClient.builder().nodes(nodes).clientConfig(clientConfig()).build();
        }
        return RedisClient.builder().hostAndPort(seeds.get(0)).clientConfig(clientConfig()).build();
    }

    /** How {@link #describe} ends for a cluster. */
    public static final String CLUSTER_MARK = " (cluster)";

    /**
     * The URI of the server a {@link #describe} names (as a journal records it): its cluster mark read back as the
     * scheme; without a password, which the role's environment gives as for any URI that has none.
     */
    public static String uriOf(String described) {
        return described.endsWith(CLUSTER_MARK)
                ? described.substring(0, described.length() - CLUSTER_MARK.length()).replaceFirst("://", "+cluster://") : described;
    }

    /**
     * How to name this server in a message: scheme, user, hosts, database; never the password, nor a user given without
     * one ({@code ***}): redis-cli reads {@code redis://X@host} as the password X, so such a user may be a password.
     */
    public String describe() {
        StringBuilder s = new StringBuilder(tls ? "rediss://" : "redis://");
        user.ifPresent(u -> s.append(password.isPresent() ? u : UNSHOWN).append('@'));
        for (int i = 0; i < seeds.size(); i++) {
            s.append(i == 0 ? "" : ",").append(seeds.get(i).getHost()).append(':').append(seeds.get(i).getPort());
        }
        if (database != 0) {
            s.append('/').append(database);
        }
        return s.append(cluster ? CLUSTER_MARK : "").toString();
    }
}
