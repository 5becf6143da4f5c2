package io.emq.migrate.migrate;

import io.emq.migrate.wire.Endpoint;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How a lost connection reads in a run's report: what happened, in plain words and without a Java class name (the
 * server did not answer within the read timeout, closed the connection, refused it), naming the server when one is
 * known to be silent, or for a closed connection, when one server's connections broke meanwhile ({@link ServerWatch}).
 */
public final class ConnectionLoss {
    private ConnectionLoss() {
    }

    /**
     * What {@code lost} says happened; {@code silent}: the server that has not answered for a while, if one has not;
     * {@code broke}: the one server whose connections broke while the work that lost {@code lost} ran, if only one's did.
     */
    static String of(RuntimeException lost, Optional<ServerWatch.Silence> silent, Optional<String> broke) {
        return of(lost, silent, broke, "a server (the source or the target)");
    }

    /**
     * What {@code lost} says happened to the one server the work that lost it went to ({@code the target 127.0.0.1:6379}),
     * watched by {@code server}: with how long it has not answered, when it has not for a while.
     */
    static String of(RuntimeException lost, ServerWatch server) {
        return of(lost, server.silence(), Optional.empty(), server.name());
    }

    /** {@code unknown}: the server named when none is known to be silent. */
    private static String of(RuntimeException lost, Optional<ServerWatch.Silence> silent, Optional<String> broke, String unknown) {
        String server = silent.map(ServerWatch.Silence::name).orElse(unknown);
        return told(lost, server, broke.orElse(server), silent.map(s -> ", and has not answered for " + s.silentFor().toSeconds() + " s").orElse(""));
    }

    /** What {@code lost} says happened to {@code server} (a command's one server, or "a server" where it cannot tell which). */
    public static String of(RuntimeException lost, String server) {
        return told(lost, server, server, "");
    }

    /** {@code server} named for a timeout, a refused or unusable connection, {@code closer} for a closed one; {@code since}: how long it has been silent. */
    private static String told(RuntimeException lost, String server, String closer, String since) {
        if (has(lost, SocketTimeoutException.class)) {
            return server + " did not answer within the read timeout (" + Endpoint.TIMEOUT_MS / 1000 + " s)" + since;
        }
        if (has(lost, ConnectException.class)) {
            return server + " refused the connection (nothing listens at its address: it is down or restarting)" + since;
        }
        if (closed(lost)) {
            return closer + " closed the connection (a restart, CLIENT KILL, a proxy or the network)" + since;
        }
        return server + " could not be used: " + innermost(lost) + since;
    }

    /** Whether the server closed the connection {@code lost} was on (not a timeout, not a refused connection): a new one may do. */
    static boolean closed(RuntimeException lost) {
        String said = innermost(lost);
        return said.contains("Unexpected end of stream") || said.contains("Connection reset") || said.contains("Broken pipe");
    }

    /** Whether {@code t}, a cause of it, or one it suppressed (Jedis keeps each address it tried so) is a {@code kind}. */
    private static boolean has(Throwable t, Class<? extends Throwable> kind) {
        List<Throwable> next = new ArrayList<>(List.of(t));
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!next.isEmpty() && seen.size() < 50) { // each once: causes and suppressed ones may form a cycle
            Throwable c = next.remove(next.size() - 1);
            if (c == null || !seen.add(c)) {
                continue;
            }
            if (kind.isInstance(c)) {
                return true;
            }
            next.add(c.getCause());
            next.addAll(Arrays.asList(c.getSuppressed()));
        }
        return false;
    }

    /** The message of the deepest cause that has one, without the class name Jedis puts before a cause's message. */
    private static String innermost(Throwable t) {
        String said = t.getClass().getSimpleName();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            if (c.getMessage() != null) {
                said = c.getMessage();
            }
        }
        return said.replaceFirst("^([a-z]+\\.)+[A-Za-z]+(Exception|Error): ", "");
    }
}
