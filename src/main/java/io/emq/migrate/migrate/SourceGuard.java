package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * An optimistic lock on a v1 queue: a connection of its own to the source ({@link DedicatedConnection})
 * {@code WATCH}es the add counter and the eight structures ({@link SourceFence#STRUCTURES}), and the
 * server marks the watch dirty on any write to any of them by anyone (a v1 client, a script, a flush),
 * so its {@code EXEC} then does nothing and answers null. O(1) on the server whatever the queue holds,
 * where the fingerprint it replaces read every member in one script (seconds at millions of jobs,
 * answering BUSY to every client meanwhile).
 *
 * <p>A guard proves a read ({@link #held}: an empty {@code MULTI}/{@code EXEC}) or carries that proof on
 * to the retirement ({@link #retire}); either spends it and closes its connection. Every guard is
 * closed by whoever holds it last (a dropped connection drops its watch on the server).
 */
final class SourceGuard implements AutoCloseable {
    private final Connection connection;
    private final QueueRef queue;

    private SourceGuard(Connection connection, QueueRef queue) {
        this.connection = connection;
        this.queue = queue;
    }

    /** Starts watching the queue's add counter and structures from now on. */
    static SourceGuard watch(Wire source, QueueRef q) {
        List<byte[]> watched = new ArrayList<>();
        watched.add(q.key("id").raw());
        SourceFence.STRUCTURES.forEach(s -> watched.add(q.key(s).raw()));
        Connection c = DedicatedConnection.to(source.client(), watched.get(0));
        try {
            c.sendCommand(Protocol.Command.WATCH, watched.toArray(byte[][]::new));
            c.getStatusCodeReply();
        } catch (RuntimeException failed) {
            c.close();
            throw failed;
        }
        return new SourceGuard(c, q);
    }

    /** Whether nothing watched was written since the watch began (an empty transaction); spends the guard. */
    boolean held() {
        try {
            connection.sendCommand(Protocol.Command.MULTI);
            connection.getStatusCodeReply();
            connection.sendCommand(Protocol.Command.EXEC);
            return connection.getObjectMultiBulkReply() != null;
        } finally {
            close();
        }
    }

    /**
     * Retires the queue's structures in one transaction, only if nothing watched was written since the
     * watch began: unlinks the eight structures and {@code moreKeys} (queue-level keys; the server frees
     * their memory in the background, so a list of millions costs the transaction nothing), gives the add
     * counter and {@code meta.version} the tombstone, and drops {@code meta.migrating-id} (the saved value
     * of the frozen counter): a v1 producer still adding then fails (INCR of a non-integer) instead of
     * adding a job no migration sees. Returns the number of keys deleted, 0 when the tombstone is there
     * already; empty when the source moved (nothing deleted). {@code meta} is watched from the tombstone
     * check on, so the check and the transaction are one step. Spends the guard.
     */
    OptionalLong retire(List<byte[]> moreKeys) {
        try {
            byte[] meta = queue.key(QueueStructure.META).raw();
            connection.sendCommand(Protocol.Command.WATCH, meta);
            connection.getStatusCodeReply();
            connection.sendCommand(Protocol.Command.HGET, meta, Utf8.bytes("version"));
            if (SourceFence.TOMBSTONE.equals(Replies.asText(connection.getBinaryBulkReply()))) {
                return OptionalLong.of(0);
            }
            List<byte[]> deleted = new ArrayList<>();
            SourceFence.STRUCTURES.forEach(s -> deleted.add(queue.key(s).raw()));
            deleted.addAll(moreKeys);
            byte[] tombstone = Utf8.bytes(SourceFence.TOMBSTONE);
            connection.sendCommand(Protocol.Command.MULTI);
            connection.getStatusCodeReply();
            send(Protocol.Command.UNLINK, deleted.toArray(byte[][]::new));
            send(Protocol.Command.SET, queue.key("id").raw(), tombstone);
            send(Protocol.Command.HSET, meta, Utf8.bytes("version"), tombstone);
            send(Protocol.Command.HDEL, meta, Utf8.bytes("migrating-id"));
            connection.sendCommand(Protocol.Command.EXEC);
            List<Object> done = connection.getObjectMultiBulkReply();
            if (done == null) {
                return OptionalLong.empty();
            }
            for (Object reply : done) {
                if (reply instanceof JedisDataException failed) {
                    throw failed;
                }
            }
            return OptionalLong.of(Replies.asLong(done.get(0)));
        } finally {
            close();
        }
    }

    private void send(Protocol.Command command, byte[]... args) {
        connection.sendCommand(command, args);
        connection.getStatusCodeReply();
    }

    @Override
    public void close() {
        connection.close();
    }
}
