package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Slowlog;

/**
 * The migration's measured read of a standalone source ({@link QueueSnapshotReader#withoutPayloadDigests}) sends a
 * batch's pipeline before the batch before is read, on the one connection it holds, and still reads every job as the
 * digested read does (payload content aside), the follow-up reads of a batch (a missing hash, a key of another type,
 * an empty or absent payload) included.
 */
class MeasuredReadTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    static final QueueRef Q = QueueRef.of("bull", "measured");
    /** Three batches: the odd jobs sit in the first. */
    static final int JOBS = 2 * QueueSnapshotReader.JOB_BATCH + 500;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Jobs 1..JOBS waiting in that serve order; 5 has no hash, 7's key is a string, 9's data is empty, 11 has no data. */
    private static void load() {
        SERVER.client().flushAll();
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            for (int i = 1; i <= JOBS; i++) {
                p.hset(Q.jobKey(Bytes.utf8(Integer.toString(i))).raw(), Map.of(b("name"), b("n"), b("timestamp"), b("1700000000000"),
                        b("opts"), b("{\"attempts\":3}"), b("data"), b("{\"n\":" + i + "}")));
                p.lpush(Q.key(QueueStructure.WAIT).raw(), b(Integer.toString(i)));
            }
            p.del(Q.jobKey(Bytes.utf8("5")).raw());
            p.del(Q.jobKey(Bytes.utf8("7")).raw());
            p.set(Q.jobKey(Bytes.utf8("7")).raw(), b("not a hash"));
            p.hset(Q.jobKey(Bytes.utf8("9")).raw(), b("data"), b(""));
            p.hdel(Q.jobKey(Bytes.utf8("11")).raw(), b("data"));
            p.sync();
        }
    }

    @Test
    void aBatchIsSentBeforeTheBatchBeforeIsReadAndEveryJobIsReadAsTheDigestedReadReadsIt() {
        load();
        QueueSnapshot digested = new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))).read(Q);
        try (Jedis admin = new Jedis(SERVER.nodes().get(0))) {
            admin.configSet("slowlog-log-slower-than", "0");
            admin.configSet("slowlog-max-len", "100000");
            admin.slowlogReset();
        }
        QueueSnapshot measured = new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(Q))).withoutPayloadDigests().read(Q);
        List<Slowlog> log;
        try (Jedis admin = new Jedis(SERVER.nodes().get(0))) {
            log = admin.slowlogGet(100000);
            admin.configSet("slowlog-log-slower-than", "10000");
        }

        long typeOfFive = idOf(log, "TYPE", "bull:measured:5");
        long firstOfSecondBatch = idOf(log, "HMGET", "bull:measured:" + (QueueSnapshotReader.JOB_BATCH + 1));
        assertTrue(firstOfSecondBatch < typeOfFive, "the second batch was sent before the first batch's replies were read: "
                + firstOfSecondBatch + " < " + typeOfFive);

        assertEquals(Map.of(AnomalyKind.MISSING_HASH, 1L, AnomalyKind.WRONG_JOB_TYPE, 1L, AnomalyKind.HASH_WITHOUT_DATA, 1L),
                measured.anomalyCounts());
        assertEquals(JOBS - 2, measured.jobCount());
        assertEquals(digested.jobsInRankOrder().stream().map(MeasuredReadTest::measuredFacts).toList(), measured.jobsInRankOrder());
        assertEquals(IntStream.rangeClosed(1, JOBS).filter(i -> i != 5 && i != 7).mapToObj(Integer::toString).toList(),
                measured.jobsInRankOrder().stream().map(j -> j.id().display()).toList());
        assertEquals(0, measured.job(Bytes.utf8("9")).orElseThrow().payloadBytes(), "empty data: there, 0 bytes");
        assertEquals(-1, measured.job(Bytes.utf8("11")).orElseThrow().payloadBytes(), "no data field");
    }

    /** What a measured read knows of a job the digested read read: all but its payload's digest and whether it is JSON. */
    private static JobFacts measuredFacts(JobFacts j) {
        return new JobFacts(j.id(), j.state(), j.rank(), j.position(), j.score(), j.layout(), j.name(), j.createdAt(),
                j.priority(), j.delayMs(), j.dueAt(), j.lifo(), j.attempts(), j.attemptsMade(), j.payloadBytes(),
                j.payloadBytes() < 0 ? "" : null, false, j.lockTtlMs(), j.parentKey(), j.repeatJobKey(), j.finishedOn());
    }

    /** The slow log's id of the command {@code command} on {@code key} (the log keeps every command here). */
    private static long idOf(List<Slowlog> log, String command, String key) {
        return log.stream().filter(e -> e.getArgs().size() > 1 && e.getArgs().get(0).equalsIgnoreCase(command)
                && e.getArgs().get(1).equals(key)).mapToLong(Slowlog::getId).findFirst().orElseThrow(
                        () -> new AssertionError("no " + command + " " + key + " in the slow log"));
    }
}
