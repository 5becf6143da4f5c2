package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * verify of a retired queue its v2 queue served since (a drain, or the consumers production runs): the rows served are
 * gone, and as many jobs were completed since the migration; verify says so and passes on the rows left, instead of
 * "row missing" for each (cluster probe D3). Rows gone beyond what v2 completed still fail it.
 */
class VerifyServedQueueTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static void v1Queue(UnifiedJedis server, String queue, int jobs) {
        for (int id = 1; id <= jobs; id++) {
            server.hset("bull:" + queue + ":" + id, Map.of("name", "n", "data", "{\"n\":" + id + "}", "timestamp", Integer.toString(id)));
            server.lpush("bull:" + queue + ":wait", Integer.toString(id));
        }
        server.set("bull:" + queue + ":id", Integer.toString(jobs));
    }

    @Test
    void aQueueV2ServedSinceItsMigrationVerifiesItsRowsLeftAndSaysTheOthersWereServed() {
        UnifiedJedis server = SERVER.client();
        v1Queue(server, "served", 8);
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "served").code());
        CliRun drain = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "served", "--no-progress");
        assertEquals(0, drain.code(), drain.all());

        CliRun verify = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "served");
        assertEquals(0, verify.code(), verify.all());
        assertTrue(verify.out().contains("VERIFIED served: 8 rows the migration wrote are gone, and the v2 queue completed 8 jobs"
                + " since its migration (beyond v1's completed jobs it counted in): served"), verify.out());
        assertFalse(verify.out().contains("PROBLEM"), verify.out());
        CliRun json = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "served", "--json");
        assertEquals(0, json.code(), json.all());
        assertTrue(json.out().contains("\"passed\" : true") && json.out().contains("\"servedSinceMigration\" : \"8 rows"), json.out());
    }

    @Test
    void rowsGoneBeyondWhatV2CompletedStillFail() {
        UnifiedJedis server = SERVER.client();
        v1Queue(server, "lost", 3);
        assertEquals(0, CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "lost").code());
        String row = server.zrange("emq:{lost}:pending", 0, 0).get(0);
        server.del("emq:{lost}:job:" + row); // gone, and never completed
        server.zrem("emq:{lost}:pending", row);

        CliRun verify = CliRun.of("verify", "--target", SERVER.uri(), "--queue", "lost");
        assertEquals(ExitCodes.REFUSED, verify.code(), verify.all());
        assertTrue(verify.out().contains("PROBLEM emq:{lost}:job:" + row + ": row missing") && verify.out().contains("FAILED lost: 2"
                + " problems; 1 rows the migration wrote are gone, and the v2 queue completed 0 jobs since its migration (beyond"
                + " v1's completed jobs it counted in): fewer than are gone"), verify.out());
    }
}
