package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.DedicatedConnections;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * An optimistic lock on a v1 queue: a connection of its own to the source (taken from the run's
 * {@link DedicatedConnections}) {@code WATCH}es the add counter, the eight structures
 * ({@link SourceFence#STRUCTURES}) and the schedulers' zset {@code repeat} (BullMQ writes it to add, move or remove a
 * scheduler, which may list no job), and the server marks the watch dirty on any write to any of them by
 * anyone (a v1 client, a script, a flush), so its {@code EXEC} then does nothing and answers null. O(1)
 * on the server whatever the queue holds, where the fingerprint it replaces read every member in one
 * script (seconds at millions of jobs, answering BUSY to every client meanwhile).
 *
 * <p>A guard proves a read ({@link #held}: an empty {@code MULTI}/{@code EXEC}) or carries that proof on
 * to the retirement ({@link #retire}); either spends it and lets its connection go. Every guard is
 * closed by whoever holds it last (a dropped connection drops its watch on the server). A connection
 * goes back for reuse only once the server answered what leaves it clean (the {@code EXEC}, or the
 * {@code UNWATCH} of a guard closed unspent); after any failure it is closed.
 */
final class SourceGuard implements AutoCloseable {
    private final DedicatedConnections connections;
    private final Connection connection;
    private final QueueRef queue;
    /** Whether the connection went back or was closed. */
    private boolean released;

    private SourceGuard(DedicatedConnections connections, Connection connection, QueueRef queue) {
        this.connections = connections;
        this.connection = connection;
        this.queue = queue;
    }

    /**
     * Starts watching the queue's add counter, structures and schedulers from now on; on a connection taken idle that
     * turns out dropped (the server restarted, or closed it), once more on a new one.
     */
    static SourceGuard watch(DedicatedConnections connections, QueueRef q) {
        List<byte[]> watched = new ArrayList<>();
        watched.add(q.key("id").raw());
        SourceFence.STRUCTURES.forEach(s -> watched.add(q.key(s).raw()));
        watched.add(q.key(QueueStructure.REPEAT).raw());
        byte[][] keys = watched.toArray(byte[][]::new);
        Connection taken = connections.take(keys[0]);
        Connection c;
        try {
            c = watching(connections, taken, keys);
        } catch (JedisConnectionException dropped) {
            c = watching(connections, connections.fresh(keys[0]), keys);
        }
        return new SourceGuard(connections, c, q);
    }

    /** The connection, once it watches these keys; discarded when it fails to. */
    private static Connection watching(DedicatedConnections connections, Connection c, byte[][] keys) {
        try {
            c.sendCommand(Protocol.Command.WATCH, keys);
            c.getStatusCodeReply();
            return c;
        } catch (RuntimeException failed) {
            connections.discard(c);
            throw failed;
        }
    }

    /**
     * Whether nothing watched was written since the watch began (an empty transaction, {@code MULTI} and
     * {@code EXEC} sent together: one round trip); spends the guard.
     */
    boolean held() {
        boolean clean = false;
        try {
            connection.sendCommand(Protocol.Command.MULTI);
            connection.sendCommand(Protocol.Command.EXEC);
            connection.getStatusCodeReply();
            List<Object> done = connection.getObjectMultiBulkReply();
            clean = true;
            return done != null;
        } finally {
            release(clean);
        }
    }

    /**
     * Retires the queue's structures in one transaction, only if nothing watched was written since the
     * watch began and no token that supersedes {@code token}, nor one of another journal, took the queue (meta's
     * {@code migrating-token}, see {@link SourceToken}: refused then, {@link EmqWireException.Lock}, nothing deleted): unlinks the eight
     * structures and {@code moreKeys} (queue-level keys; the server frees their memory in the background, so a
     * list of millions costs the transaction nothing), gives the add counter and {@code meta.version} the
     * tombstone, and drops {@code meta.migrating-id} (the saved value of the frozen counter) and
     * {@code meta.migrating-was-paused} (whether v1 was paused when the window opened), keeping
     * {@code meta.migrating-token} as the record of the migration that retired the queue: a v1 producer still adding then fails (INCR of a non-integer) instead of
     * adding a job no migration sees (one that adds without the counter is not stopped: {@code Planner#stranded}). Returns the number of keys deleted, 0 when the tombstone is there
     * already (stamped under this token or one it supersedes: a tombstone a newer token stamped refuses, as its
     * lease was lost); empty when the source moved (nothing deleted). {@code meta} is watched from the tombstone
     * and token check on, so the check and the transaction are one step. Three round trips: the watch with the check;
     * {@code MULTI} alone, so that a server refusing it has been sent nothing that deletes; then the
     * transaction's commands with its {@code EXEC} (a command the server refuses to queue aborts the
     * whole transaction). With {@code replicas} above 0, the source's replicas online, {@code WAIT}s on the same
     * connection, {@code timeout} at most, for them to acknowledge the tombstone (and so the pause before it). Spends the guard.
     */
    Optional<Retirement> retire(List<byte[]> moreKeys, String token, int replicas, Duration timeout) {
        boolean clean = false;
        try {
            byte[] meta = queue.key(QueueStructure.META).raw();
            connection.sendCommand(Protocol.Command.WATCH, meta);
            connection.sendCommand(Protocol.Command.HMGET, meta, Utf8.bytes("version"), Utf8.bytes("migrating-token"));
            connection.getStatusCodeReply();
            List<byte[]> fields = connection.getBinaryMultiBulkReply();
            Optional<SourceToken> held = SourceToken.parse(Replies.asText(fields.get(1)));
            if (held.isPresent() && SourceToken.parse(token).map(mine -> held.get().supersedes(mine)
                    || held.get().ofAnotherJournal(mine)).orElse(false)) {
                throw new EmqWireException.Lock("EMQLOCK lease lost: " + queue.key(QueueStructure.META).display() + " was taken by"
                        + " the migration (or abandon) with token " + Replies.asText(fields.get(1)) + ", this migrator holds "
                        + token + ": nothing deleted");
            }
            if (SourceFence.TOMBSTONE.equals(Replies.asText(fields.get(0)))) {
                return Optional.of(new Retirement(0, replicas));
            }
            List<byte[]> deleted = new ArrayList<>();
            SourceFence.STRUCTURES.forEach(s -> deleted.add(queue.key(s).raw()));
            deleted.addAll(moreKeys);
            byte[] tombstone = Utf8.bytes(SourceFence.TOMBSTONE);
            connection.sendCommand(Protocol.Command.MULTI);
            connection.getStatusCodeReply();
            connection.sendCommand(Protocol.Command.UNLINK, deleted.toArray(byte[][]::new));
            connection.sendCommand(Protocol.Command.SET, queue.key("id").raw(), tombstone);
            connection.sendCommand(Protocol.Command.HSET, meta, Utf8.bytes("version"), tombstone);
            connection.sendCommand(Protocol.Command.HDEL, meta, Utf8.bytes("migrating-id"), Utf8.bytes("migrating-was-paused"));
            connection.sendCommand(Protocol.Command.EXEC);
            for (int queued = 0; queued < 4; queued++) {
                connection.getStatusCodeReply();
            }
            List<Object> done = connection.getObjectMultiBulkReply();
            if (done == null) {
                clean = true;
                return Optional.empty();
            }
            for (Object reply : done) {
                if (reply instanceof JedisDataException failed) {
                    clean = true;
                    throw failed;
                }
            }
            long acknowledged = replicas == 0 ? 0 : acknowledged(replicas, timeout);
            clean = true;
            return Optional.of(new Retirement(Replies.asLong(done.get(0)), acknowledged));
        } finally {
            release(clean);
        }
    }

    /**
     * What a retirement did: the keys it deleted (0 when the tombstone was there already), and how many of the
     * source's replicas acknowledged the tombstone (-1: the user may not run {@code WAIT}; as many as asked for when
     * none were, or the tombstone was there already).
     */
    record Retirement(long deleted, long acknowledged) {
    }

    /** {@code WAIT replicas timeout} on the connection that just stamped the tombstone; -1 when the server refuses it. */
    private long acknowledged(int replicas, Duration timeout) {
        connection.sendCommand(Protocol.Command.WAIT, Integer.toString(replicas), Long.toString(timeout.toMillis()));
        try {
            return connection.getIntegerReply();
        } catch (JedisDataException refused) {
            return -1;
        }
    }

    /** Lets an unspent guard go: its connection unwatches and goes back, or is closed when it does not answer. */
    @Override
    public void close() {
        if (released) {
            return;
        }
        boolean clean = false;
        try {
            connection.sendCommand(Protocol.Command.UNWATCH);
            connection.getStatusCodeReply();
            clean = true;
        } catch (RuntimeException gone) {
            // closed below: a dropped connection drops its watch on the server
        } finally {
            release(clean);
        }
    }

    private void release(boolean clean) {
        if (released) {
            return;
        }
        released = true;
        if (clean) {
            connections.giveBack(connection);
        } else {
            connections.discard(connection);
        }
    }
}
