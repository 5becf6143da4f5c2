package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The v1 readers on a cluster source whose connections dropped (its master killed and a replica promoted, or the
 * connections cut) just before a read: the read's first command on the queue's master is in a pipeline, which Jedis's
 * cluster pipeline would leave unanswered (its replies unset, the drop only logged); each read throws the lost
 * connection instead, and the next read, on new connections, reads the queue.
 */
class ClusterReadDropTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.cluster();

    static final String PREFIX = "{v1}";
    static final String NAME = "orders";
    static final QueueRef QUEUE = QueueRef.of(PREFIX, NAME);

    /** Each reader whose first command is a pipeline, by name. */
    static Stream<Arguments> reads() {
        Bytes job = QUEUE.jobKey(Bytes.utf8("1"));
        return Stream.of(
                Arguments.of("the queue's snapshot", (Consumer<UnifiedJedis>) c ->
                        new QueueSnapshotReader(c, new QueueBases(List.of(QUEUE))).read(QUEUE)),
                Arguments.of("its counts", (Consumer<UnifiedJedis>) c -> QueueCounts.read(c, QUEUE)),
                Arguments.of("one job", (Consumer<UnifiedJedis>) c -> new V1JobReader(c).read(QUEUE, Bytes.utf8("1"))),
                Arguments.of("the types of keys scanned", (Consumer<UnifiedJedis>) c -> new KeyspaceScanner(c).typed(List.of(job))),
                Arguments.of("the jobs an enclosing queue lists", (Consumer<UnifiedJedis>) c -> EnclosingQueues.listedBy(c, QUEUE, List.of(job))));
    }


    @ParameterizedTest(name = "{0}")
    @MethodSource("reads")
    void aConnectionDroppedUnderAReadsPipelineIsALostConnectionAndTheNextReadReadsTheQueue(String what, Consumer<UnifiedJedis> read) {
        V1QueueGenerator.addWaiting(SOURCE.client(), PREFIX, NAME, 1, 50, 20);
        try (UnifiedJedis client = SOURCE.endpoint().open()) {
            read.accept(client); // the read's connections now idle in the client's pool
            SOURCE.dropConnections();
            JedisConnectionException lost = assertThrows(JedisConnectionException.class, () -> read.accept(client), what);
            assertTrue(lost.getMessage().contains("dropped during a pipeline"), lost.getMessage());
            assertDoesNotThrow(() -> read.accept(client), what);
        }
    }
}
