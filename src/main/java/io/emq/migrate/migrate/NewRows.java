package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.wire.DedicatedConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Writes a batch of rows none of which the target holds in one transaction, without the
 * {@code migrate_write_jobs} script (whose cost a row is mostly Lua's: its arguments converted into Lua
 * and back). On a connection of its own to the server that holds the queue (in a cluster, the master
 * of its slot: every key of a queue is in one slot), opened at the first batch it takes, one round trip
 * sends {@code WATCH} of the queue's meta and the batch's row keys, the lease's fencing token
 * ({@code HGET meta migration}), {@code EXISTS} of the row keys and {@code MULTI}; when the token is this
 * run's and none of the keys exists, the second queues an {@code HSET} a row, a {@code ZREM} of every id
 * from each of pending, schedule and dead, and a {@code ZADD} into each set the rows go to (in the order
 * the rows first name it), then {@code EXEC}: what the script's all-new path writes, in the same order.
 * A takeover (the token changes) or any write to a watched key between the {@code WATCH} and the
 * {@code EXEC} (the v2 runtime writing a row) makes the {@code EXEC} write nothing.
 *
 * <p>It takes only a batch of at least {@link #LEAST} rows, every one new (the journal expected none of
 * them: guard {@code n}), in no lane (a lane needs the script's ring logic), its ids distinct. It declines
 * (writes nothing; the caller sends the batch to the script, whose guards then decide: {@code EMQLOCK},
 * {@code EMQSTATE}, or the writes) any other batch, one whose token is not this run's or any of whose keys
 * exists, and one whose {@code EXEC} wrote nothing. A server that refuses {@code WATCH} or {@code MULTI}
 * (an ACL without {@code @transaction}: {@code NOPERM}), a transaction it aborts ({@code EXECABORT}: a
 * command refused while queued; nothing written) or a connection that fails makes it decline every
 * later batch of this write: the script writes them.
 */
final class NewRows implements AutoCloseable {
    /** The fewest rows a batch it takes has: below that, opening a connection costs more than the script saves. */
    static final int LEAST = 64;
    private static final byte[] MIGRATION = Utf8.bytes("migration");
    private static final byte[] GROUP = Utf8.bytes("group");

    private final QueueMigration m;
    private final byte[] meta;
    private Connection connection;
    private boolean refused;

    NewRows(QueueMigration m) {
        this.m = m;
        this.meta = Utf8.bytes(m.keys.meta());
    }

    /** Whether it wrote these rows (see the class comment); false when it wrote none and the script must. */
    boolean write(List<RowBuilder.Row> rows, Map<BrandedId, Expectation> known) {
        if (refused || rows.size() < LEAST || !known.isEmpty() || !takes(rows)) {
            return false;
        }
        try {
            return written(connection(), rows);
        } catch (JedisException failed) {
            refused = true;
            close();
            return false;
        }
    }

    /** Whether every row is outside any lane and no id comes twice. */
    private static boolean takes(List<RowBuilder.Row> rows) {
        Set<BrandedId> ids = new HashSet<>();
        for (RowBuilder.Row row : rows) {
            if (!ids.add(row.id()) || named(row.fields(), GROUP)) {
                return false;
            }
        }
        return true;
    }

    private static boolean named(List<byte[]> fields, byte[] name) {
        for (int i = 0; i < fields.size(); i += 2) {
            if (Arrays.equals(fields.get(i), name)) {
                return true;
            }
        }
        return false;
    }

    private Connection connection() {
        if (connection == null) {
            connection = DedicatedConnection.to(m.targetWire.client(), meta);
        }
        return connection;
    }

    private boolean written(Connection c, List<RowBuilder.Row> rows) {
        byte[][] keys = new byte[rows.size()][];
        byte[][] ids = new byte[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
            keys[i] = Utf8.bytes(m.keys.job(rows.get(i).id()));
            ids[i] = Utf8.bytes(rows.get(i).id().toString());
        }
        c.sendCommand(Protocol.Command.WATCH, prepend(meta, Arrays.asList(keys)));
        c.sendCommand(Protocol.Command.HGET, meta, MIGRATION);
        c.sendCommand(Protocol.Command.EXISTS, keys);
        c.sendCommand(Protocol.Command.MULTI);
        List<Object> read = c.getMany(4);
        if (read.get(0) instanceof JedisDataException || read.get(3) instanceof JedisDataException) {
            refused = true; // WATCH or MULTI refused: nothing is queued, and closing drops whatever the connection holds
            close();
            return false;
        }
        if (!(read.get(1) instanceof byte[] token && Arrays.equals(token, Utf8.bytes(m.journal.token())))
                || !Long.valueOf(0).equals(read.get(2))) {
            c.sendCommand(Protocol.Command.DISCARD); // also ends the WATCH
            c.getOne();
            return false;
        }
        m.checkpoints.hit("new rows watched");
        int queued = 0;
        Map<String, List<byte[]>> members = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            RowBuilder.Row row = rows.get(i);
            c.sendCommand(Protocol.Command.HSET, prepend(keys[i], row.fields()));
            queued++;
            if (row.setKey() != null) {
                List<byte[]> into = members.computeIfAbsent(row.setKey(), key -> new ArrayList<>());
                into.add(Utf8.bytes(Long.toString(row.score())));
                into.add(ids[i]);
            }
        }
        for (String set : List.of(m.keys.pending(), m.keys.schedule(), m.keys.dead())) {
            c.sendCommand(Protocol.Command.ZREM, prepend(Utf8.bytes(set), Arrays.asList(ids)));
            queued++;
        }
        for (Map.Entry<String, List<byte[]>> set : members.entrySet()) {
            c.sendCommand(Protocol.Command.ZADD, prepend(Utf8.bytes(set.getKey()), set.getValue()));
            queued++;
        }
        c.sendCommand(Protocol.Command.EXEC);
        List<Object> replies = c.getMany(queued + 1);
        Object done = replies.get(replies.size() - 1);
        if (done == null) {
            return false; // a watched key was written: nothing was
        }
        if (done instanceof JedisDataException) {
            refused = true; // EXECABORT: a command was refused while queued, and nothing was written
            return false;
        }
        for (Object reply : (List<?>) done) {
            if (reply instanceof JedisDataException failed) {
                throw new IllegalStateException("the transaction writing new rows failed on the target: " + failed.getMessage(), failed);
            }
        }
        return true;
    }

    /** {@code first}, then {@code rest}: a command's arguments. */
    private static byte[][] prepend(byte[] first, List<byte[]> rest) {
        byte[][] args = new byte[rest.size() + 1][];
        args[0] = first;
        for (int i = 0; i < rest.size(); i++) {
            args[i + 1] = rest.get(i);
        }
        return args;
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
