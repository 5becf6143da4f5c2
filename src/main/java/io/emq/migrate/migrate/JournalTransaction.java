package io.emq.migrate.migrate;

import io.emq.migrate.wire.DedicatedConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Writes to one queue's journal in transactions fenced by the lease token, without a journal script
 * (whose cost is mostly Lua's: its arguments converted into Lua and back), on a connection of its own to
 * the server that holds the journal, opened at the first write it is asked for. Each write takes
 * two round trips: the first sends {@code WATCH <journal>}, {@code HMGET <journal> lock_token <fields>}
 * and {@code MULTI}; when {@code lock_token} holds this run's token (all that {@code holds_lease} checks),
 * the caller's plan decides from the fields' values what to write, and the second sends those writes and
 * {@code EXEC}; else (or when the plan writes nothing) it sends {@code DISCARD}, which also ends the
 * {@code WATCH}. A takeover, the lease renewed, or any other write to the journal between the
 * {@code WATCH} and the {@code EXEC} makes the {@code EXEC} write nothing; the write is then tried once
 * more, from the {@code WATCH} (the lease's renewal writes the journal every third of the lease, so a step
 * of more than a few seconds meets it). A write that did not happen is the caller's to make with the
 * script, whose guards then decide ({@code EMQLOCK}, or the same writes).
 * A caller with other round trips to make first sends the first round trip ahead ({@link #watch}), makes
 * them, then completes the write ({@link #write(Function)}).
 *
 * <p>A server that refuses {@code WATCH} or {@code MULTI} (an ACL without {@code @transaction}:
 * {@code NOPERM}), a transaction it aborts ({@code EXECABORT}: nothing written) or a connection that
 * fails or cannot be opened makes every later write decline at once: the script writes.
 */
final class JournalTransaction implements AutoCloseable {
    private static final byte[] LOCK_TOKEN = Utf8.bytes("lock_token");

    /** One write queued after {@code MULTI}. */
    record Write(Protocol.Command command, byte[]... args) {
    }

    /** How many times a write is tried: once more when a write to the journal made its {@code EXEC} write nothing. */
    static final int TRIES = 2;

    private final QueueMigration m;
    private final byte[] key;
    /** The checkpoint passed when the token was found and the writes are about to be sent (for tests to act between WATCH and EXEC). */
    private final String watched;
    private Connection connection;
    private boolean refused;
    /** The fields of the last {@link #watch}, and whether its replies are yet for {@link #write(Function)} to read. */
    private List<byte[]> fields;
    private boolean watching;
    /** Whether the last {@code EXEC} wrote nothing because the journal was written after the {@code WATCH}. */
    private boolean spoiled;

    JournalTransaction(QueueMigration m, String watched) {
        this.m = m;
        this.key = Utf8.bytes(m.journal.key());
        this.watched = watched;
    }

    /**
     * Reads {@code fields} under {@code WATCH} and writes what {@code plan} makes of their values (in
     * order, null where absent; an empty list: nothing), in one transaction fenced by the lease token:
     * {@link #watch} then {@link #write(Function)}. Returns the {@code EXEC}'s replies, one a write; empty
     * when nothing was written (see the class comment).
     */
    Optional<List<Object>> write(List<byte[]> fields, Function<List<byte[]>, List<Write>> plan) {
        watch(fields);
        return write(plan);
    }

    /**
     * Sends the first round trip ({@code WATCH}, {@code HMGET lock_token <fields>}, {@code MULTI}) without
     * waiting for its replies, so that the caller's other round trips travel beside it; {@link #write(Function)}
     * reads them. The transaction stays open until then: whatever writes the journal meanwhile (a takeover,
     * the lease renewed) makes its {@code EXEC} write nothing. Sends nothing when it declines (see the class comment).
     */
    void watch(List<byte[]> fields) {
        if (refused || !opened()) {
            return;
        }
        try {
            connection.sendCommand(Protocol.Command.WATCH, key);
            byte[][] read = new byte[fields.size() + 2][];
            read[0] = key;
            read[1] = LOCK_TOKEN;
            for (int i = 0; i < fields.size(); i++) {
                read[i + 2] = fields.get(i);
            }
            connection.sendCommand(Protocol.Command.HMGET, read);
            connection.sendCommand(Protocol.Command.MULTI);
            connection.getMany(0); // flushed: on its way while the caller works
            this.fields = fields;
            watching = true;
        } catch (JedisException failed) {
            refuse();
        }
    }

    /**
     * Reads the replies of the {@link #watch} sent last and writes what {@code plan} makes of the fields'
     * values, in its transaction; returns the {@code EXEC}'s replies, one a write; empty when nothing was
     * written, and when no {@link #watch} was sent (it declined). An {@code EXEC} that a write to the journal
     * made write nothing is tried again from the {@code WATCH}, up to {@link #TRIES} in all: {@code plan}
     * decides again from the fields read again.
     */
    Optional<List<Object>> write(Function<List<byte[]>, List<Write>> plan) {
        for (int tried = 1; watching; tried++) {
            watching = false;
            try {
                Optional<List<Object>> done = written(plan);
                if (done.isPresent() || !spoiled || tried == TRIES) {
                    return done;
                }
            } catch (JedisException failed) {
                refuse(); // whatever a transaction wrote, the script writes again the same (its writes are idempotent)
                return Optional.empty();
            }
            watch(fields);
        }
        return Optional.empty();
    }

    private boolean opened() {
        if (connection == null) {
            try {
                connection = DedicatedConnection.to(m.targetWire.client(), key);
            } catch (RuntimeException failed) {
                refused = true;
                return false;
            }
        }
        return true;
    }

    private Optional<List<Object>> written(Function<List<byte[]>, List<Write>> plan) {
        spoiled = false;
        List<Object> replies = connection.getMany(3);
        if (replies.get(0) instanceof JedisDataException || replies.get(2) instanceof JedisDataException) {
            refuse(); // WATCH or MULTI refused (no @transaction): nothing is queued, and closing drops what the connection holds
            return Optional.empty();
        }
        List<?> values = (List<?>) replies.get(1);
        List<Write> writes = values.get(0) instanceof byte[] token && Arrays.equals(token, Utf8.bytes(m.journal.token()))
                ? plan.apply(values.subList(1, values.size()).stream().map(v -> (byte[]) v).toList()) : List.of();
        if (writes.isEmpty()) {
            connection.sendCommand(Protocol.Command.DISCARD);
            connection.getOne();
            return Optional.empty();
        }
        m.checkpoints.hit(watched);
        for (Write w : writes) {
            byte[][] args = new byte[w.args().length + 1][];
            args[0] = key;
            System.arraycopy(w.args(), 0, args, 1, w.args().length);
            connection.sendCommand(w.command(), args);
        }
        connection.sendCommand(Protocol.Command.EXEC);
        List<Object> done = connection.getMany(writes.size() + 1);
        Object exec = done.get(done.size() - 1);
        if (exec == null) {
            spoiled = true; // a watched write: nothing was written
            return Optional.empty();
        }
        if (exec instanceof JedisDataException) {
            refuse(); // EXECABORT: a command was refused while queued, and nothing was written
            return Optional.empty();
        }
        List<Object> out = new ArrayList<>((List<?>) exec);
        for (Object reply : out) {
            if (reply instanceof JedisDataException failed) {
                throw new IllegalStateException("the transaction writing the journal failed on the target: " + failed.getMessage(), failed);
            }
        }
        return Optional.of(out);
    }

    private void refuse() {
        refused = true;
        close();
    }

    @Override
    public void close() {
        if (connection != null) {
            DedicatedConnection.close(connection);
            connection = null;
        }
        watching = false;
    }
}
