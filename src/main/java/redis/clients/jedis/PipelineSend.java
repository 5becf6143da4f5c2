package redis.clients.jedis;

/**
 * Sends what a pipeline has buffered without reading any reply. Jedis writes a pipeline's commands into the
 * connection's 8 KiB buffer and sends the rest only when the replies are read ({@link Pipeline#sync}), so a
 * pipeline left to be read later would hold its last commands back and the server would not work on them
 * meanwhile. This class lives in Jedis's package because the buffer's flush is visible only there.
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
}
