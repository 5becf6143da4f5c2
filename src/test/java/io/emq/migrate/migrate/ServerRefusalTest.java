package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

/** A server's state is told by the word its reply begins with, wherever the error carries it, and only as a word of its own. */
class ServerRefusalTest {
    private static Optional<ServerRefusal> why(Throwable failure) {
        return ServerRefusal.in(failure).map(ServerRefusal.Found::why);
    }

    @Test
    void aRedirectIsToldInAReplyAndInsideAnAbortedTransaction() {
        assertEquals(Optional.of(ServerRefusal.SLOT_ASKED), why(new JedisDataException("ASK 1165 127.0.0.1:7001")));
        assertEquals(Optional.of(ServerRefusal.SLOT_MOVED), why(new IllegalStateException("a pass failed",
                new JedisDataException("MOVED 1165 127.0.0.1:7001"))));
        assertEquals(Optional.of(ServerRefusal.SLOT_BUSY), why(new JedisDataException(
                "EXECABORT Transaction discarded because of: TRYAGAIN Multiple keys request during rehashing of slot")));
        assertEquals("TRYAGAIN Multiple keys request during rehashing of slot", ServerRefusal.in(new JedisDataException(
                "EXECABORT Transaction discarded because of: TRYAGAIN Multiple keys request during rehashing of slot")).orElseThrow().said());
    }

    /** The reply a server just restarted gives while it loads its data set (Redis 7.0's words). */
    @Test
    void aServerLoadingItsDataIsToldAsAStateOfItsOwn() {
        assertEquals(Optional.of(ServerRefusal.LOADING), why(new JedisDataException("LOADING Redis is loading the dataset in memory")));
    }

    /** What a cluster's node answers while a failed master's slots wait for a replica to take over (Redis 7.0's words). */
    @Test
    void aClusterDownIsToldAsAStateOfItsOwn() {
        assertEquals(Optional.of(ServerRefusal.CLUSTER_DOWN), why(new JedisDataException("CLUSTERDOWN The cluster is down")));
        assertEquals(Optional.of(ServerRefusal.CLUSTER_DOWN), why(new IllegalStateException("a pass failed",
                new JedisDataException("CLUSTERDOWN Hash slot not served"))));
    }

    @Test
    void theWordsInsideAnotherWordOrOutsideAServersReplyAreNone() {
        assertEquals(Optional.empty(), why(new JedisDataException("ERR user_script:1: job REMOVED by another client")));
        assertEquals(Optional.empty(), why(new JedisDataException("ERR no TASK scheduled")));
        assertEquals(Optional.empty(), why(new IllegalStateException("ASK 1165 127.0.0.1:7001")), "not a server's reply");
        assertEquals(Optional.of(ServerRefusal.SLOT_ASKED), why(new JedisDataException("ERR a TASK, then ASK 1 h:1")),
                "a later place where it is a word of its own");
    }
}
