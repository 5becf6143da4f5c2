package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.RawArguments;
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
 * Writes a batch of rows none of which the target holds in transactions, without the
 * {@code migrate_write_jobs} script (whose cost a row is mostly Lua's: its arguments converted into Lua
 * and back). The batch is split into {@link #SHARES} shares, each on a connection of its own to the
 * server that holds the queue (in a cluster, the master of its slot: every key of a queue is in one
 * slot), opened at the first batch it takes. Each share's first round trip (all shares' at once) sends
 * {@code WATCH} of the queue's meta and the share's row keys, the lease's fencing token ({@code HGET meta
 * migration}), {@code EXISTS} of the row keys and {@code MULTI}; when the token is this run's and none of
 * the keys exists, the second queues an {@code HSET} a row, a {@code ZREM} of every id from each of
 * pending, schedule and dead, and a {@code ZADD} into each set the rows go to (in the order the rows
 * first name it), then {@code EXEC}: what the script's all-new path writes, in the same order; else it
 * sends {@code DISCARD}. A takeover (the token changes) or any write to a watched key between the
 * {@code WATCH} and the {@code EXEC} (the v2 runtime writing a row) makes the {@code EXEC} write nothing.
 * The rows of a share it did not write go back to the caller, for the script, whose guards then decide:
 * {@code EMQLOCK}, {@code EMQSTATE}, or the writes.
 *
 * <p>A batch of fresh rows ({@link FreshIds}: ids V20 minted in this run, no row of which this run wrote yet)
 * cannot meet a row or a listing of its ids, so it is written in one transaction that watches the meta alone,
 * with no {@code EXISTS} and no {@code ZREM}: the token, then the rows and their {@code ZADD}s.
 *
 * <p>It takes only a batch of at least {@link #LEAST} rows, every one new (the journal expected none of
 * them: guard {@code n}), in no lane (a lane needs the script's ring logic), its ids distinct; it hands
 * any other batch back whole. A server that refuses {@code WATCH} or {@code MULTI} (an ACL without
 * {@code @transaction}: {@code NOPERM}), a transaction it aborts ({@code EXECABORT}: a command refused
 * while queued; nothing written) or a connection that fails or cannot be opened makes it hand back every later batch of this
 * write whole: the script writes them.
 */
final class NewRows implements AutoCloseable {
    /** The fewest rows a batch it takes has: below that, opening connections costs more than the script saves. */
    static final int LEAST = 64;
    /**
     * The transactions a batch is split into, each on a connection of its own: the server checks each key a
     * {@code WATCH} adds against every key that connection watches already (Redis 7.0), so a quarter of
     * the keys a connection costs a quarter of the checks per key.
     */
    static final int SHARES = 4;
    private static final byte[] MIGRATION = Utf8.bytes("migration");
    private static final byte[] GROUP = Utf8.bytes("group");

    private final QueueMigration m;
    private final byte[] meta;
    /** The keys of the sets a row goes into, by the set's number ({@link RowBuilder#SET_PENDING}…; none for {@link RowBuilder#SET_NONE}). */
    private final byte[][] sets;
    /** The connections opened so far (at the first batch it takes). */
    private final List<Connection> connections = new ArrayList<>(SHARES);
    private boolean refused;

    NewRows(QueueMigration m) {
        this.m = m;
        this.meta = Utf8.bytes(m.keys.meta());
        this.sets = new byte[][] {null, Utf8.bytes(m.keys.pending()), Utf8.bytes(m.keys.schedule()), Utf8.bytes(m.keys.dead())};
    }

    /**
     * Writes what it can of these rows (see the class comment), {@code fresh} when every one's id is
     * ({@link FreshIds}); returns, in order, those it did not write, which the script must.
     */
    List<RowBuilder.Row> write(List<RowBuilder.Row> rows, Map<BrandedId, Expectation> known, boolean fresh) {
        if (refused || rows.size() < LEAST || !known.isEmpty() || !takes(rows)) {
            return rows;
        }
        if (!opened()) {
            refused = true;
            close();
            return rows;
        }
        try {
            return unwritten(rows, fresh);
        } catch (JedisException failed) {
            refused = true; // whatever a transaction wrote, the script finds in line (present, with the attempts it writes)
            close();
            return rows;
        }
    }

    /** Whether its connections are open, opening those missing (false when the server refuses one). */
    private boolean opened() {
        try {
            while (connections.size() < SHARES) {
                connections.add(DedicatedConnection.to(m.targetWire.client(), meta));
            }
            return true;
        } catch (RuntimeException refused) {
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

    /** One share of a batch (never empty): its rows, their keys and ids. */
    private record Share(List<RowBuilder.Row> rows, List<byte[]> keys, List<byte[]> ids) {
        static Share of(QueueMigration m, List<RowBuilder.Row> rows) {
            List<byte[]> keys = new ArrayList<>(rows.size());
            List<byte[]> ids = new ArrayList<>(rows.size());
            for (RowBuilder.Row row : rows) {
                keys.add(Utf8.bytes(m.keys.job(row.id())));
                ids.add(Utf8.bytes(row.id().toString()));
            }
            return new Share(rows, keys, ids);
        }
    }

    private List<RowBuilder.Row> unwritten(List<RowBuilder.Row> rows, boolean fresh) {
        int count = fresh ? 1 : SHARES; // the shares spread the watched rows' keys; fresh rows are not watched
        List<Share> shares = new ArrayList<>(count);
        int size = (rows.size() + count - 1) / count;
        for (int from = 0; from < rows.size(); from += size) {
            shares.add(Share.of(m, rows.subList(from, Math.min(rows.size(), from + size))));
        }
        for (int i = 0; i < shares.size(); i++) {
            Connection c = connections.get(i);
            List<byte[]> keys = shares.get(i).keys();
            c.sendCommand(new RawArguments(Protocol.Command.WATCH, meta, fresh ? List.of() : keys));
            c.sendCommand(Protocol.Command.HGET, meta, MIGRATION);
            if (!fresh) {
                c.sendCommand(new RawArguments(Protocol.Command.EXISTS, keys.get(0), keys.subList(1, keys.size())));
            }
            c.sendCommand(Protocol.Command.MULTI);
            c.getMany(0); // flushed: every share's round trip is on its way before any reply is read
        }
        byte[] token = Utf8.bytes(m.journal.token());
        boolean[] open = new boolean[shares.size()];
        boolean anyOpen = false;
        for (int i = 0; i < shares.size(); i++) {
            List<Object> read = connections.get(i).getMany(fresh ? 3 : 4);
            if (read.get(0) instanceof JedisDataException || read.get(read.size() - 1) instanceof JedisDataException) {
                refused = true; // WATCH or MULTI refused (no @transaction): nothing is queued, and closing drops what the connections hold
                close();
                return rows;
            }
            open[i] = read.get(1) instanceof byte[] held && Arrays.equals(held, token) && (fresh || Long.valueOf(0).equals(read.get(2)));
            anyOpen |= open[i];
        }
        if (anyOpen) {
            m.checkpoints.hit("new rows watched");
        }
        int[] queued = new int[shares.size()];
        for (int i = 0; i < shares.size(); i++) {
            Connection c = connections.get(i);
            if (open[i]) {
                queued[i] = queue(c, shares.get(i), fresh);
            }
            c.sendCommand(open[i] ? Protocol.Command.EXEC : Protocol.Command.DISCARD); // DISCARD also ends the WATCH
            c.getMany(0);
        }
        List<RowBuilder.Row> left = new ArrayList<>();
        for (int i = 0; i < shares.size(); i++) {
            List<Object> replies = connections.get(i).getMany(queued[i] + 1);
            Object done = replies.get(replies.size() - 1);
            if (!open[i] || done == null) {
                left.addAll(shares.get(i).rows()); // declined, or a watched key was written: nothing was
            } else if (done instanceof JedisDataException) {
                refused = true; // EXECABORT: a command was refused while queued, and nothing was written
                left.addAll(shares.get(i).rows());
            } else {
                for (Object reply : (List<?>) done) {
                    if (reply instanceof JedisDataException failed) {
                        throw new IllegalStateException("the transaction writing new rows failed on the target: " + failed.getMessage(), failed);
                    }
                }
            }
        }
        return left;
    }

    /**
     * Queues a share's writes after its MULTI: what the script's all-new path writes (but the {@code ZREM}s when
     * the rows are fresh: no set lists their ids); returns how many commands it queued.
     */
    private int queue(Connection c, Share share, boolean fresh) {
        int queued = 0;
        Map<Integer, List<byte[]>> members = new LinkedHashMap<>();
        for (int i = 0; i < share.rows().size(); i++) {
            RowBuilder.Row row = share.rows().get(i);
            c.sendCommand(new RawArguments(Protocol.Command.HSET, share.keys().get(i), row.fields()));
            queued++;
            if (row.set() != RowBuilder.SET_NONE) {
                List<byte[]> into = members.computeIfAbsent(row.set(), set -> new ArrayList<>());
                into.add(Utf8.bytes(Long.toString(row.score())));
                into.add(share.ids().get(i));
            }
        }
        for (int set : fresh ? List.<Integer>of() : List.of(RowBuilder.SET_PENDING, RowBuilder.SET_SCHEDULE, RowBuilder.SET_DEAD)) {
            c.sendCommand(new RawArguments(Protocol.Command.ZREM, sets[set], share.ids()));
            queued++;
        }
        for (Map.Entry<Integer, List<byte[]>> set : members.entrySet()) {
            c.sendCommand(new RawArguments(Protocol.Command.ZADD, sets[set.getKey()], set.getValue()));
            queued++;
        }
        return queued;
    }

    @Override
    public void close() {
        connections.forEach(DedicatedConnection::close);
        connections.clear();
    }
}
