package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A v1 queue a migration retired: {@code plan}, {@code verify --source} and {@code migrate} agree on it. Jobs a writer that
 * does not INCR the add counter listed (or a job hash it wrote) after the tombstone are refused by all three ({@code
 * stranded}, exit 3, nothing written), and so are schedulers a v1 client wrote there since; a queue that holds none is retired, exit 0, by both {@code plan} and {@code migrate},
 * with its journal on the target, forgotten, or kept by another target.
 */
class RetiredQueueTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension OTHER = RealServerExtension.standalone();

    private static void v1Queue(UnifiedJedis server) {
        for (int id = 1; id <= 3; id++) {
            server.incr("bull:q:id");
            server.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", Integer.toString(id)));
            server.lpush("bull:q:wait", Integer.toString(id));
        }
    }

    /** plan, verify --source and migrate each refuse queue q as stranded (exit 3), saying {@code stranded}; migrate's output. */
    private static String refusedByPlanVerifyAndMigrate(String stranded) {
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().contains("== queue bull:q -> v2 emq:{q}  BLOCKED") && plan.out().contains("stranded")
                && plan.out().contains(stranded), plan.out());
        CliRun verify = CliRun.of("verify", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, verify.code(), verify.all());
        assertTrue(verify.err().contains(stranded), verify.all());
        CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("bull:q refused (stranded): queue bull:q is refused: " + stranded), migrate.out());
        return migrate.out();
    }

    @Test
    void jobsAddedAfterTheTombstoneWithoutTheAddCounterAreRefusedByPlanVerifyAndMigrate() {
        UnifiedJedis v1 = SERVER.client();
        v1Queue(v1);
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
        // a plain writer: HSET and LPUSH, no INCR of bull:q:id (which holds the tombstone's text, so an INCR would fail)
        for (String id : new String[] {"p1", "p2"}) {
            v1.hset("bull:q:" + id, Map.of("name", "late", "data", "{}", "timestamp", "1"));
            v1.lpush("bull:q:wait", id);
        }
        v1.hset("bull:q:p3", Map.of("name", "late", "data", "{}", "timestamp", "1"));
        String stranded = "2 job(s) listed (wait 2) and 1 job hash(es) listed nowhere under bull:q, which a migration retired";

        String migrate = refusedByPlanVerifyAndMigrate(stranded);
        assertTrue(migrate.contains("add each job to the v2 queue emq:{q} by hand"), migrate);
        assertTrue(v1.exists("bull:q:p1") && v1.exists("bull:q:p3") && v1.llen("bull:q:wait") == 2, "nothing deleted");

        assertEquals(0, CliRun.of("forget", "--yes", "--target", SERVER.uri(), "--queue", "q").code());
        CliRun forgotten = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, forgotten.code(), forgotten.all());
        assertTrue(forgotten.out().contains("refused (stranded)"), forgotten.out());
        assertEquals(ExitCodes.REFUSED, CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q").code());

        v1.del("bull:q:p1", "bull:q:p2", "bull:q:p3", "bull:q:wait"); // the advice, once the jobs are in v2
        assertEquals(0, CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q").code());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
    }

    /**
     * A v1 client's upsertJobScheduler after the retirement: BullMQ writes the scheduler (its entry in {@code repeat} and
     * its hash) before its add fails on the tombstone. plan, verify --source and migrate refuse the queue ({@code
     * stranded}, exit 3) naming the scheduler and the keys to delete; once deleted, the queue is retired again.
     */
    @Test
    void aSchedulerWrittenAfterTheTombstoneIsRefusedByPlanVerifyAndMigrate() {
        UnifiedJedis v1 = SERVER.client();
        v1Queue(v1);
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
        v1.zadd("bull:q:repeat", 1_000, "nightly");
        v1.hset("bull:q:repeat:nightly", Map.of("name", "report", "every", "60000", "ic", "1"));
        String stranded = "1 job scheduler(s) (nightly) under bull:q, which a migration retired (meta.version is the tombstone):"
                + " nothing serves them. A v1 client's upsertJobScheduler wrote the schedulers after it";

        String migrate = refusedByPlanVerifyAndMigrate(stranded);
        assertTrue(migrate.contains("add each scheduler to the v2 queue emq:{q} by hand")
                && migrate.contains("(DEL bull:q:repeat bull:q:repeat:<id>)"), migrate);
        assertTrue(v1.exists("bull:q:repeat:nightly") && v1.zcard("bull:q:repeat") == 1, "nothing deleted");

        v1.del("bull:q:repeat", "bull:q:repeat:nightly"); // the advice
        assertEquals(0, CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q").code());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
    }

    @Test
    void aRetiredQueueWhoseJournalThisTargetDoesNotKeepIsRetiredForPlanAndMigrateAlikeWithNothingWritten() {
        v1Queue(SERVER.client());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--target", OTHER.uri(), "--queue", "q").code());
        for (String[] target : new String[][] {{}, {"--target", OTHER.uri()}}) { // another target's, then one forgotten here
            if (target.length > 0) {
                assertEquals(0, CliRun.of("forget", "--yes", "--target", OTHER.uri(), "--queue", "q").code());
            }
            String into = target.length > 0 ? OTHER.uri() : SERVER.uri();
            CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--target", into, "--queue", "q");
            assertEquals(0, plan.code(), plan.all());
            assertTrue(plan.out().contains("retired (meta.version is the tombstone"), plan.out());
            CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--target", into, "--queue", "q");
            assertEquals(0, migrate.code(), migrate.all());
            assertTrue(migrate.out().contains("1 of 1 queues done") && migrate.out().contains("bull:q retired: a migration"
                    + " retired it already") && migrate.out().contains("this target keeps no journal of it"), migrate.out());
        }
        assertFalse(SERVER.client().exists("{emq}:migration:q"), "nothing written on the target that never held the queue");
        assertTrue(SERVER.client().keys("emq:*").isEmpty(), SERVER.client().keys("emq:*").toString());
        assertFalse(OTHER.client().exists("{emq}:migration:q"), "nor a journal again where it was forgotten");
        assertEquals(null, OTHER.client().hget("emq:{q}:meta", "migration"), "nor a fence");
        assertEquals(3, OTHER.client().zcard("emq:{q}:pending"), "the v2 queue is untouched");
    }

    @Test
    void aQueueRetiredUnderAnotherNameIsRetiredForAPlanAndAMigrationWithoutThatRename() {
        v1Queue(SERVER.client());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q", "--rename", "q=q2").code());
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(0, plan.code(), plan.all());
        CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(0, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("bull:q retired: a migration retired it already (its meta holds the tombstone"
                + " echomq:2.0.0-migrated), into v2 queue 'q2' here; nothing was written"), migrate.out());
        assertTrue(java.util.regex.Pattern.compile("(?m)^bull:q\\s+q2\\s+retired\\s").matcher(migrate.out()).find(),
                "the table names where it went, as the note does: " + migrate.out());
        assertFalse(SERVER.client().exists("{emq}:migration:q"), "no journal begun under the name without the rename");
    }

    /**
     * A queue named as BullMQ names one on a cluster ({@code bull:{q}}), which is no v2 name, retired under a {@code --rename}:
     * plan and migrate without the rename read it retired (exit 0), into the v2 queue it went, not refused for its name.
     */
    @Test
    void aQueueWhoseNameNeededARenameReadsRetiredWithoutIt() {
        UnifiedJedis v1 = SERVER.client();
        v1.hset("bull:{t}:1", Map.of("name", "n", "data", "{}", "timestamp", "1"));
        v1.lpush("bull:{t}:wait", "1");
        v1.set("bull:{t}:id", "1");
        CliRun refused = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "{t}");
        assertEquals(ExitCodes.REFUSED, refused.code(), "before its migration the name needs a rename: " + refused.all());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "{t}", "--rename", "{t}=t").code());

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "{t}");
        assertEquals(0, plan.code(), plan.all());
        assertTrue(plan.out().contains("== queue bull:{t} -> v2 emq:{t}  retired") && !plan.out().contains("refuse")
                && java.util.regex.Pattern.compile("invalid-queue-name +bull:\\{t\\}: .* +v2 name t\n").matcher(plan.out()).find(),
                plan.out());
        CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "{t}");
        assertEquals(0, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("1 of 1 queues done") && migrate.out().contains("retired"), migrate.out());
        assertEquals(1, v1.zcard("emq:{t}:pending"));
    }

    /**
     * The v1 server restored from a backup taken before the migration: the queue lists its jobs again, without the
     * tombstone, while the journal says it retired. plan, migrate and verify --source refuse it (v1-restored, exit 3),
     * nothing written: v1 workers would run jobs v2 holds already.
     */
    @Test
    void aV1QueueRestoredFromABackupAfterItsRetirementIsRefusedByMigrateAndVerify() {
        UnifiedJedis v1 = SERVER.client();
        v1.flushAll();
        v1Queue(v1);
        java.util.Map<String, byte[]> backup = new java.util.TreeMap<>();
        for (String key : v1.keys("bull:q:*")) {
            backup.put(key, v1.dump(key));
        }
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
        v1.keys("bull:q:*").stream().filter(key -> !backup.containsKey(key)).forEach(v1::del); // the v1 side as the backup holds it
        backup.forEach((key, dump) -> v1.restore(key, 0, dump, redis.clients.jedis.params.RestoreParams.restoreParams().replace()));
        long rows = v1.zcard("emq:{q}:pending");

        CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("bull:q refused (v1-restored)") && migrate.out().contains("retired it, yet v1 holds it again"
                + " without the tombstone and lists 3 job(s)"), migrate.out());
        CliRun verify = CliRun.of("verify", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, verify.code(), verify.all());
        assertTrue(verify.err().contains("lists 3 job(s)"), verify.all());
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("v1-restored") && plan.out().contains("lists 3 job(s)"),
                plan.out());
        assertEquals(rows, v1.zcard("emq:{q}:pending"), "nothing written");
        assertEquals(3, v1.llen("bull:q:wait"), "nothing deleted");
    }

    /**
     * A re-run of {@code migrate --all} over many retired queues (a queue per tenant) looks for jobs stranded under every
     * tombstone without a key scan of the source per queue: the scans it makes do not grow with the queues, and a queue
     * that holds a stranded job among them is still the one refused.
     */
    @Test
    void aReRunOverManyRetiredQueuesDoesNotScanTheSourceOnceAQueue() {
        UnifiedJedis v1 = SERVER.client();
        v1.flushAll();
        OTHER.client().flushAll();
        int queues = 40;
        for (int q = 0; q < queues; q++) {
            v1.incr("bull:t" + q + ":id");
            v1.hset("bull:t" + q + ":1", Map.of("name", "n", "data", "{}", "timestamp", "1"));
            v1.lpush("bull:t" + q + ":wait", "1");
        }
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--target", OTHER.uri(), "--all").code());
        v1.hset("bull:t7:late", Map.of("name", "late", "data", "{}", "timestamp", "1"));
        v1.lpush("bull:t7:wait", "late");
        v1.sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "RESETSTAT");

        CliRun rerun = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--target", OTHER.uri(), "--all");
        long scans = CommandStats.calls(v1, "scan");
        assertEquals(ExitCodes.REFUSED, rerun.code(), rerun.all());
        assertTrue(rerun.out().contains("bull:t7 refused (stranded): queue bull:t7 is refused: 1 job(s) listed (wait 1)")
                && rerun.out().contains("39 of 40 queues done"), rerun.out());
        assertTrue(scans < queues / 4, scans + " SCAN calls on the source for " + queues + " retired queues");
        assertEquals(1, v1.llen("bull:t7:wait"), "nothing deleted");
    }

    /**
     * A migration here stopped before its retirement (here: --no-retire), then another migration (into another target)
     * retired the queue: plan and migrate against this target agree, refused (retired, exit 3) with the same reason,
     * nothing written, and abandon (what both advise) deletes this target's copy.
     */
    @Test
    void aQueueAnotherTargetsMigrationRetiredWhileOneHereHoldsItIsRefusedByPlanAsByMigrate() {
        UnifiedJedis v1 = SERVER.client();
        v1.flushAll();
        OTHER.client().flushAll();
        v1Queue(v1);
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q", "--no-retire").code());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--target", OTHER.uri(), "--queue", "q").code());
        String reason = "was retired by the migration with token";

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().contains("BLOCKED") && plan.out().contains("retired") && plan.out().contains(reason), plan.out());
        CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("bull:q refused (retired)") && migrate.out().contains(reason), migrate.out());
        assertEquals(3, v1.zcard("emq:{q}:pending"), "this target's copy kept, paused");

        assertEquals(0, CliRun.of("abandon", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
        CliRun after = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(0, after.code(), after.all());
        assertTrue(after.out().contains("retired (meta.version is the tombstone"), after.out());
        assertEquals(3, OTHER.client().zcard("emq:{q}:pending"), "the queue is the other target's");
    }
}
