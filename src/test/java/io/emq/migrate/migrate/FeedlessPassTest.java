package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * Without the change feed (a source user refused its commands) every re-sync pass reads the whole queue; one whose
 * key scan met no job's logs list or flow key reads the jobs' hashes alone. A log pushed after such a pass's scan
 * still reaches v2: under the pause, the retirement finds the job's digest changed and copies it again.
 */
class FeedlessPassTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "feedless";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    @Test
    void aLogPushedAfterThePassUnderThePauseScannedTheQueueIsCopiedByTheRetirement() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), QUEUE, 1, JOBS, 100);
        Set<String> added = new TreeSet<>();
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
        boolean[] pushed = {false};
        MigrationResult r;
        try (UnifiedJedis v1 = Endpoint.parse(LeastPrivilegeTest.userWithoutFeed(SERVER.client(), SERVER.uri())).open()) {
            r = new Migrator(Wire.unfenced(v1), Wire.open(SERVER.client()), SERVER.uri(), OPTIONS, Checkpoints.observed((version, where) -> {
                if (version == 120 && where.equals("source read") && !pushed[0]) {
                    pushed[0] = true;
                    SERVER.client().rpush("bull:" + QUEUE + ":5:logs", "after the scan under the pause");
                }
            })).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        }
        assertTrue(pushed[0], "the pass under the pause read the source");
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(SERVER.client(), QUEUE, added, Set.of(), true), r.toString());
        assertEquals(List.of("after the scan under the pause"), LiveV1.v2Logs(SERVER.client(), QUEUE, "5"));
        assertEquals(List.of(), LiveV1.v2Logs(SERVER.client(), QUEUE, "6"));
    }
}
