package io.emq.migrate.v1;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.PipelineSend;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The payload lengths ({@code HSTRLEN key data}) and, of active jobs, the lock TTLs ({@code PTTL}) that a read of
 * payloads bounds its pipelines by, asked on a connection of their own up to {@link #AHEAD} jobs before the read
 * takes them, in the order it takes them ({@link Upcoming}): the server answers them while the reader works on
 * anything else (the queue's keys, the jobs before), and a batch finds its lengths answered. At most {@link #AHEAD}
 * small replies wait on the server and in the socket.
 */
final class LengthsAhead implements AutoCloseable {
    static final int AHEAD = 250_000;
    private static final byte[] DATA = Bytes.utf8("data").raw();

    /** The jobs a read takes, in order. */
    interface Upcoming {
        /** The next job's entry, or -1 when no further job is known yet. */
        int next();

        /** The job's hash key. */
        byte[] key(int entry);

        /** The job's lock key when its lock's TTL is read (an active job), else null. */
        byte[] lockKey(int entry);
    }

    private final UnifiedJedis jedis;
    private final Upcoming upcoming;
    private Connection connection;
    /** The entries asked for and not yet taken, a ring of {@link #AHEAD}, and whether each one's lock TTL was asked. */
    private final int[] asked = new int[AHEAD];
    private final boolean[] lockAsked = new boolean[AHEAD];
    private int first;
    private int size;

    LengthsAhead(UnifiedJedis jedis, Upcoming upcoming) {
        this.jedis = jedis;
        this.upcoming = upcoming;
    }

    /** Asks for the next jobs' lengths until {@link #AHEAD} are asked and not taken, or no further job is known. */
    void fill() {
        boolean sent = false;
        for (int entry; size < AHEAD && (entry = upcoming.next()) >= 0; size++) {
            byte[] key = upcoming.key(entry);
            CommandArguments lengthOf = new CommandArguments(Protocol.Command.HSTRLEN).key(key).add(DATA);
            if (connection == null) {
                connection = PipelineSend.connectionFor(jedis, lengthOf);
            }
            connection.sendCommand(lengthOf);
            byte[] lock = upcoming.lockKey(entry);
            if (lock != null) {
                connection.sendCommand(new CommandArguments(Protocol.Command.PTTL).key(lock));
            }
            int at = (first + size) % AHEAD;
            asked[at] = entry;
            lockAsked[at] = lock != null;
            sent = true;
        }
        if (sent) {
            PipelineSend.send(connection);
        }
    }

    /**
     * The payload lengths (0 when the key is not a hash) and lock TTLs (-2 when not asked) of {@code entries}, the
     * next jobs of the read in order; then asks for as many further jobs.
     */
    void take(int[] entries, long[] lengths, long[] lockTtls) {
        fill();
        for (int n = 0; n < entries.length; n++) {
            if (size == 0 || asked[first] != entries[n]) {
                throw new IllegalStateException("the read takes entry " + entries[n] + ", not the next one asked for");
            }
            lengths[n] = reply(0);
            lockTtls[n] = lockAsked[first] ? reply(-2) : -2;
            first = (first + 1) % AHEAD;
            size--;
        }
        fill();
    }

    /** The next integer reply, or {@code otherwise} for an error reply (a key that is not a hash answers WRONGTYPE). */
    private long reply(long otherwise) {
        try {
            return (Long) connection.getOne();
        } catch (JedisDataException wrongType) {
            return otherwise;
        }
    }

    /** Gives the connection back; one with replies left unread (the read failed) is closed instead of pooled. */
    @Override
    public void close() {
        if (connection != null) {
            if (size > 0) {
                connection.setBroken();
            }
            connection.close();
            connection = null;
        }
    }
}
