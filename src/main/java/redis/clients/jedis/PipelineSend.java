package redis.clients.jedis;

/**
 * What the v1 reader needs of Jedis that only Jedis's package sees: sending what a pipeline has buffered without
 * reading any reply, and a connection of the client's own to send commands on ahead of their replies. Jedis writes a
 * pipeline's commands into the connection's 8 KiB buffer and sends the rest only when the replies are read
 * ({@link Pipeline#sync}), so a pipeline left to be read later would hold its last commands back and the server
 * would not work on them meanwhile.
 */
public final class PipelineSend {
    private PipelineSend() {
    }

    /** Sends {@code pipeline}'s buffered commands now; a pipeline over many connections (a cluster's) is left as it is. */
    public static void now(AbstractPipeline pipeline) {
        if (pipeline instanceof Pipeline single) {
            single.connection.flush();
        }
    }

    /**
     * A connection from {@code client}'s pool to the server that holds the key of {@code keyed} (in a cluster, the
     * master of its slot), on which {@link #send} and {@link Connection#getOne} pipeline by hand; closing it gives
     * it back to the pool (mark it broken first when replies are left unread).
     */
    public static Connection connectionFor(UnifiedJedis client, CommandArguments keyed) {
        return client.provider.getConnection(keyed);
    }

    /** Sends what {@code connection} has buffered ({@link Connection#sendCommand} buffers), reading no reply. */
    public static void send(Connection connection) {
        connection.flush();
    }
}
