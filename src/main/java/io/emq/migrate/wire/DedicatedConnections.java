package io.emq.migrate.wire;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Connection;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * Dedicated connections ({@link DedicatedConnection}) to the servers of one client, kept for reuse
 * instead of a connect and a close each: a connection given back clean (no {@code WATCH} left, no
 * transaction open: its {@code EXEC} or {@code UNWATCH} answered) waits for the next taker of the same
 * server, at most {@code idle} a server (more are closed); one taken from there is handed out as it is,
 * unproven: a taker whose first command on it finds it dropped discards it and takes a {@link #fresh}
 * one (a round trip saved on every take, where a {@code PING} first cost one). A caller that does not
 * know a connection's state {@link #discard discards} it. Closing closes the idle ones; connections
 * given back after that are closed.
 */
public final class DedicatedConnections implements AutoCloseable {
    private final UnifiedJedis client;
    /** The most idle connections kept for one server. */
    private final int most;
    private final Map<Pool<Connection>, Deque<Connection>> idle = new IdentityHashMap<>();
    private final Map<Connection, Pool<Connection>> lent = new IdentityHashMap<>();
    private boolean closed;

    /** Connections of the servers of {@code client}, keeping at most {@code idle} idle ones a server. */
    public DedicatedConnections(UnifiedJedis client, int idle) {
        this.client = client;
        this.most = idle;
    }

    /** A connection of its own to the server that holds {@code key}: an idle one (unproven, see above), or a new one. */
    public Connection take(byte[] key) {
        Pool<Connection> server = DedicatedConnection.serverOf(client, key);
        Connection idle = idleOf(server);
        return lend(idle != null ? idle : DedicatedConnection.make(server), server);
    }

    /** A new connection of its own to the server that holds {@code key} (for a taker whose idle one was found dropped). */
    public Connection fresh(byte[] key) {
        Pool<Connection> server = DedicatedConnection.serverOf(client, key);
        return lend(DedicatedConnection.make(server), server);
    }

    /** Takes back a connection this lent that carries no state now (no watch, no transaction); it waits for the next taker or is closed. */
    public void giveBack(Connection c) {
        boolean kept;
        synchronized (this) {
            Deque<Connection> waiting = idle.computeIfAbsent(lent.remove(c), server -> new ArrayDeque<>());
            kept = !closed && !c.isBroken() && waiting.size() < most;
            if (kept) {
                waiting.push(c);
            }
        }
        if (!kept) {
            DedicatedConnection.close(c);
        }
    }

    /** Closes a connection this lent whose state is not known. */
    public void discard(Connection c) {
        synchronized (this) {
            lent.remove(c);
        }
        DedicatedConnection.close(c);
    }

    private synchronized Connection idleOf(Pool<Connection> server) {
        Deque<Connection> waiting = idle.get(server);
        return waiting == null ? null : waiting.poll();
    }

    private synchronized Connection lend(Connection c, Pool<Connection> server) {
        lent.put(c, server);
        return c;
    }

    @Override
    public void close() {
        List<Connection> closing = new ArrayList<>();
        synchronized (this) {
            closed = true;
            idle.values().forEach(closing::addAll);
            idle.clear();
        }
        closing.forEach(DedicatedConnection::close);
    }
}
