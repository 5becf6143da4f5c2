package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A target that loses its data while retirement deletes v1's jobs on the change feed's word (killed and restarted
 * empty: here its journal deleted as a restart would) stops the deletion at the next batch: the v1 jobs left are the
 * only copy, and they are kept; the run says the journal is gone, and that v1 holds the only copy left.
 */
class TargetLostInRetirementTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final String QUEUE = "lost";
    private static final int JOBS = 3 * RetireSource.UNLINK_BATCH;

    @Test
    void theV1JobsLeftAreKeptOnceTheTargetHoldsNoJournal() {
        UnifiedJedis client = SERVER.client();
        client.flushAll();
        V1QueueGenerator.addWaiting(client, QUEUE, 1, JOBS, 50);
        boolean[] lost = {false};
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withLease(Duration.ofSeconds(2)),
                Checkpoints.observed((version, where) -> {
                    if (version == 120 && where.equals("job keys deleted") && !lost[0]) {
                        lost[0] = true;
                        client.del(io.emq.migrate.keyspace.Keys.migrationJournal(QUEUE)); // the target restarted without its data
                    }
                }), List.of("bull")).get(0);
        assertTrue(lost[0], "the feed's deletion ran: " + r);
        assertEquals(Optional.of(MigrationRefused.Kind.JOURNAL_LOST), r.refusalKind(), r.toString());
        assertTrue(r.message().contains("are gone from the target") && r.message().contains("what it still holds is the only copy"),
                r.message());
        long left = client.keys("bull:" + QUEUE + ":[0-9]*").size();
        assertEquals(JOBS - RetireSource.UNLINK_BATCH, left, "one batch deleted before the loss was seen, the rest kept");
    }
}
