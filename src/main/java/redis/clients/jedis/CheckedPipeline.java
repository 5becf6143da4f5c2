package redis.clients.jedis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A cluster client's pipeline that throws a node's dropped connection. Jedis's cluster pipeline
 * ({@link MultiNodePipelineBase#sync}) logs it instead of throwing it: that node's replies stay unset (read later as
 * "Please close pipeline or multi block before calling this method"), and a pipeline over several nodes may then fail
 * to close (it syncs again and meets the dropped node's queue without its connection, a {@link NullPointerException}).
 * Here either is thrown, when the pipeline syncs or closes, as the {@link JedisConnectionException} it is, so a step
 * runs again as after any other dropped connection (and needs no repair). Every command is the cluster pipeline's own,
 * built and routed by it. This class lives in Jedis's package because a pipeline's command objects and its
 * {@code appendCommand} are visible only there.
 */
public final class CheckedPipeline extends AbstractPipeline {
    private final MultiNodePipelineBase nodes;
    /** The replies of the commands appended since the last sync: each is checked there. */
    private final List<Response<?>> unchecked = new ArrayList<>();

    private CheckedPipeline(MultiNodePipelineBase nodes) {
        super(nodes.commandObjects);
        this.nodes = nodes;
    }

    /**
     * A pipeline of {@code client} that throws a dropped connection: a cluster's is checked here; a standalone server's
     * (one connection) throws its own and is returned as it is.
     */
    public static AbstractPipeline of(UnifiedJedis client) {
        AbstractPipeline pipeline = client.pipelined();
        return pipeline instanceof MultiNodePipelineBase nodes ? new CheckedPipeline(nodes) : pipeline;
    }

    @Override
    protected <T> Response<T> appendCommand(CommandObject<T> command) {
        Response<T> reply = nodes.appendCommand(command);
        unchecked.add(reply);
        return reply;
    }

    @Override
    public void sync() {
        try {
            nodes.sync();
        } catch (NullPointerException closedWithoutItsConnection) {
            throw dropped(closedWithoutItsConnection);
        }
        checkReplies();
    }

    @Override
    public void close() {
        try {
            nodes.close();
        } catch (NullPointerException closedWithoutItsConnection) {
            throw dropped(closedWithoutItsConnection);
        }
        checkReplies();
    }

    /** Throws a dropped connection when a reply of the commands appended since the last check never came. */
    private void checkReplies() {
        try {
            for (Response<?> reply : unchecked) {
                try {
                    reply.get();
                } catch (IllegalStateException unset) {
                    throw dropped(unset);
                } catch (JedisDataException errorReply) {
                    // a reply all the same: its caller reads it
                }
            }
        } finally {
            unchecked.clear();
        }
    }

    /** The dropped connection, told in its own words ({@code symptom}, Jedis's, kept as suppressed: it would read as the cause). */
    private static JedisConnectionException dropped(RuntimeException symptom) {
        JedisConnectionException lost = new JedisConnectionException("a connection to a cluster node dropped during a pipeline"
                + " (its replies never came)");
        lost.addSuppressed(symptom);
        return lost;
    }
}
