package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.SocketException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * What stopped a command, in its one line: a connection a server closed mid-way (as Jedis throws it when a command's
 * stream ends) is told in migrate's plain words with what to do, not as an error the server answered.
 */
class FailuresTest {
    @Test
    void aConnectionClosedMidwayIsToldInPlainWordsWithWhatToDo() {
        Failures.Failure f = Failures.of(new JedisConnectionException("Unexpected end of stream.",
                new SocketException("Connection reset")));
        assertEquals(ExitCodes.USAGE, f.exitCode());
        assertEquals("connection", f.kind());
        assertEquals("a server closed the connection (a restart, CLIENT KILL, a proxy or the network); run the command again"
                + " once it answers", f.message());
    }

    /** A cluster node that died as the command connected: the client's closed pool is told as that, not "Pool not open". */
    @Test
    void aClusterNodeThatLeftAsTheCommandConnectedIsToldWithWhatToDo() {
        String said = Failures.server(io.emq.migrate.wire.Endpoint.parse("redis://127.0.0.1:7411,127.0.0.1:7412"), Side.SOURCE,
                new IllegalStateException("Pool not open"));
        assertEquals("a node of redis://127.0.0.1:7411,127.0.0.1:7412 (cluster) left while the command connected (the cluster"
                + " client closed its connections to it: a node that died or failed over): run the command again; if it recurs,"
                + " check CLUSTER NODES", said);
    }
}
