package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A due time v1 moves during the migration reaches v2, also when the job's hash is left as it was: BullMQ's
 * {@code changeDelay} to the delay a job already has re-adds it to {@code delayed} at a new score and sets the same
 * {@code delay}, so the job's digest does not move. With the change feed (which tells the hash written, or only
 * {@code delayed}) and without it, before the pause and under it.
 */
class MovedDueTimeTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "due";
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));
    private static final int WAITING = 200;
    private static final long DELAY = 3_600_000L;
    /** The delayed jobs' ids: {@code WAITING + 1} onwards. */
    private static final int DELAYED = 5;
    private static final String MOVED = Integer.toString(WAITING + 3);

    private final Set<String> added = new TreeSet<>();
    private long firstDue;

    private static UnifiedJedis client() {
        return SERVER.client();
    }

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, WAITING, 100);
        firstDue = System.currentTimeMillis() + DELAY;
        for (int n = WAITING + 1; n <= WAITING + DELAYED; n++) {
            client().hset("bull:" + QUEUE + ":" + n, Map.of("name", "later", "data", "{\"n\":" + n + "}", "opts", "{}",
                    "timestamp", "1", "delay", Long.toString(DELAY), "priority", "0"));
            client().zadd("bull:" + QUEUE + ":delayed", (double) (firstDue + n) * 4096 + n, Integer.toString(n));
        }
        client().set("bull:" + QUEUE + ":id", Integer.toString(WAITING + DELAYED));
        LongStream.rangeClosed(1, WAITING + DELAYED).forEach(n -> added.add(Long.toString(n)));
    }

    /** What BullMQ's {@code changeDelay} does when the delay is the one the job has: a new score, the same hash. */
    private static void changeDelayToTheSameDelay(String id, long due) {
        moveInDelayedAlone(id, due);
        client().hset("bull:" + QUEUE + ":" + id, "delay", Long.toString(DELAY));
    }

    private static void moveInDelayedAlone(String id, long due) {
        client().zadd("bull:" + QUEUE + ":delayed", (double) due * 4096 + Long.parseLong(id), id);
    }

    private void assertRetiredWithTheDueTimeMoved(MigrationResult r, long movedDue) {
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true), r.toString());
        for (int n = WAITING + 1; n <= WAITING + DELAYED; n++) {
            String id = Integer.toString(n);
            long want = id.equals(MOVED) ? movedDue : firstDue + n;
            assertEquals(want, LiveV1.v2Due(client(), QUEUE, id), "job " + id + "'s due time in v2's schedule");
        }
    }

    private static List<MigrationResult> migrate(Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed(observer), List.of("bull"));
    }

    private static Checkpoints.Observer atFirst(int version, String where, Runnable act) {
        boolean[] done = {false};
        return (v, w) -> {
            if (v == version && w.equals(where) && !done[0]) {
                done[0] = true;
                act.run();
            }
        };
    }

    /** Migrates, {@code move} moving job {@link #MOVED}'s due time under the pause: the pass there rewrites that job alone. */
    private void assertMovedUnderThePauseIsCopiedAgain(java.util.function.BiConsumer<String, Long> move) {
        long moved = firstDue + 90_000;
        MigrationResult r = migrate(atFirst(120, "v1 paused", () -> move.accept(MOVED, moved))).get(0);
        assertRetiredWithTheDueTimeMoved(r, moved);
        assertEquals(1L, LiveV1.stepCounts(client(), QUEUE, 120).get("pass-rewritten"), "the moved job alone");
    }

    @Test
    void aDueTimeChangeDelayMovesUnderThePauseIsCopiedAgain() {
        assertMovedUnderThePauseIsCopiedAgain(MovedDueTimeTest::changeDelayToTheSameDelay);
    }

    @Test
    void aDueTimeMovedInDelayedAloneUnderThePauseIsCopiedAgain() {
        assertMovedUnderThePauseIsCopiedAgain(MovedDueTimeTest::moveInDelayedAlone);
    }

    @Test
    void aDueTimeMovedInDelayedAloneWhileV1ServesIsCopiedAgainByTheCatchUp() {
        long moved = firstDue - 60_000;
        MigrationResult r = migrate(atFirst(30, "rows written", () -> moveInDelayedAlone(MOVED, moved))).get(0);
        assertRetiredWithTheDueTimeMoved(r, moved);
        assertEquals(1L, LiveV1.stepCounts(client(), QUEUE, 100).get("rewritten"), "the catch-up rewrote the moved job alone");
    }

    @Test
    void withoutTheChangeFeedADueTimeChangeDelayMovesUnderThePauseIsCopiedAgain() {
        long moved = firstDue + 90_000;
        MigrationResult r;
        try (UnifiedJedis v1 = Endpoint.parse(LeastPrivilegeTest.userWithoutFeed(client(), SERVER.uri())).open()) {
            r = new Migrator(Wire.unfenced(v1), Wire.open(client()), SERVER.uri(), OPTIONS,
                    Checkpoints.observed(atFirst(120, "v1 paused", () -> changeDelayToTheSameDelay(MOVED, moved))))
                    .migrate(List.of("bull"), List.of(QUEUE)).get(0);
        }
        assertTrue(r.withoutFeed().isPresent(), "the run had no feed");
        assertRetiredWithTheDueTimeMoved(r, moved);
        assertEquals(1L, LiveV1.stepCounts(client(), QUEUE, 120).get("pass-rewritten"), "the moved job alone");
    }
}
