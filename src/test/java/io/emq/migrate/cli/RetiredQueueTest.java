package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A v1 queue a migration retired: jobs a writer that does not INCR the add counter listed (or a job hash it wrote) after
 * the tombstone are refused by {@code plan}, {@code verify --source} and {@code migrate} ({@code stranded}, exit 3,
 * nothing written).
 */
class RetiredQueueTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static void v1Queue(UnifiedJedis server) {
        for (int id = 1; id <= 3; id++) {
            server.incr("bull:q:id");
            server.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", Integer.toString(id)));
            server.lpush("bull:q:wait", Integer.toString(id));
        }
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

        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
        assertTrue(plan.out().contains("== queue bull:q -> v2 emq:{q}  BLOCKED") && plan.out().contains("stranded")
                && plan.out().contains(stranded), plan.out());
        CliRun verify = CliRun.of("verify", "--source", SERVER.uri(), "--target", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, verify.code(), verify.all());
        assertTrue(verify.err().contains(stranded), verify.all());
        CliRun migrate = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q");
        assertEquals(ExitCodes.REFUSED, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("bull:q refused (stranded): queue bull:q is refused: " + stranded)
                && migrate.out().contains("add each job to the v2 queue emq:{q} by hand"), migrate.out());
        assertTrue(v1.exists("bull:q:p1") && v1.exists("bull:q:p3") && v1.llen("bull:q:wait") == 2, "nothing deleted");

        v1.del("bull:q:p1", "bull:q:p2", "bull:q:p3", "bull:q:wait"); // the advice, once the jobs are in v2
        assertEquals(0, CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q").code());
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "q").code());
    }
}
