package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.ScriptReply;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The journals of many queues in one call ({@link ManyJournals}): each fenced by its own lease, and a
 * migration of many small queues writes its history rows and lease renewals a thousand queues a call.
 */
class ManyJournalsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void renewalsAndHistoryRowsOfManyQueuesInOneCallEachFencedByItsOwnLease() {
        Wire target = Wire.open(SERVER.client());
        List<Journal> journals = List.of(new Journal(target, "a"), new Journal(target, "b"), new Journal(target, "c"));
        journals.forEach(j -> j.lease().acquire("m1", 1_000));
        Journal c = journals.get(2);
        SERVER.client().hset(c.key(), "lock_token", "999"); // another migrator took c over
        String cUntil = SERVER.client().hget(c.key(), "lock_until");

        List<ScriptReply<Long>> renewed = target.eval(ManyJournals.renewal(journals, 600_000));
        for (Journal held : journals.subList(0, 2)) { // taken for 1 s with c's, now renewed for 600 s
            long later = Long.parseLong(SERVER.client().hget(held.key(), "lock_until")) - Long.parseLong(cUntil);
            assertTrue(later >= 599_000 && later < 660_000, held.queue() + "'s lease renewed for 600 s: " + later + " ms after c's lapses");
        }
        assertEquals(List.of(1L, 1L), renewed.subList(0, 2).stream().map(ScriptReply::get).toList());
        assertInstanceOf(EmqWireException.Lock.class, renewed.get(2).error(), "c's lease is lost");
        assertEquals(cUntil, SERVER.client().hget(c.key(), "lock_until"), "a lost lease is not renewed");

        List<HistoryRow> rows = journals.stream().map(j -> new HistoryRow(1, 10, "fence source", 7, "m1", "now", 3, true,
                Map.of("wait", 4L), null)).toList();
        List<ScriptReply<Long>> recorded = target.eval(ManyJournals.historyRows(journals, rows));
        assertNull(recorded.get(0).error());
        assertNull(recorded.get(1).error());
        assertInstanceOf(EmqWireException.Lock.class, recorded.get(2).error(), "c's row is refused");
        assertEquals(List.of(10), journals.get(0).history().rows().stream().map(HistoryRow::version).toList());
        assertEquals(List.of(10), journals.get(1).history().rows().stream().map(HistoryRow::version).toList());
        assertEquals(List.of(), c.history().rows(), "nothing written into a journal whose lease was lost");
    }

    /**
     * The budget of script calls of a small queue's migration: at most 30 a queue (29.3 measured at 30
     * queues: the steps' own calls, V120's the most, and the lease taken and let go) and, for all the
     * queues of the run together, one call a step for the history rows (12) and one a heartbeat for the
     * renewals (none in a run this short), and up to 10 repeated after a NOSCRIPT (a script's first call
     * on this server). Before, a queue's history rows took 12 calls of their own and V10 recorded
     * whether v1 was paused in a write of its own: 30.7 a queue here, 44 at 10 queues.
     */
    @Test
    void aMigrationOfSmallQueuesCallsScriptsWithinItsBudget() {
        int queues = 30;
        for (int q = 0; q < queues; q++) {
            V1QueueGenerator.addWaiting(SERVER.client(), "small-" + q, 1, 4, 20);
        }
        Wire target = Wire.open(SERVER.client());
        SERVER.client().sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");
        List<MigrationResult> results = new Migrator(Wire.unfenced(SERVER.client()), target, SERVER.uri(),
                MigrationOptions.defaults(), Checkpoints.none()).parallel(4).migrate(List.of("bull"), List.of());
        results.forEach(r -> assertTrue(r.ok(), r.toString()));
        long evalsha = CommandStats.calls(SERVER.client(), "evalsha");
        assertTrue(evalsha <= 30L * queues + 12 + 10, "EVALSHA calls for " + queues + " queues of 4 jobs: " + evalsha);
    }
}
