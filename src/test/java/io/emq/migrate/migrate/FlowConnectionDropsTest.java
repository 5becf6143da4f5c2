package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The target drops the migrator's connections ({@code CLIENT KILL TYPE normal}) while V60 writes flow parents, faster than
 * a try that began again from the first parent could get past the tries before it: a try goes on from the parents the
 * tries before it wrote (their rows, then their records), so each gets further. Every parent's row once, its records
 * whole, every parent and child link counted.
 */
class FlowConnectionDropsTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();

    static final String QUEUE = "flows";

    /**
     * A drop after every second parent's records are written (an odd number of parents: no drop after the last, as the
     * step's history row is written once, not tried again): a try that began again would write the first two, ten times.
     */
    @Test
    void dropsAfterEverySecondParentsRecordsDoNotFailTheFlowStep() {
        int[] hits = {0};
        migrateDropping(4 * Migrator.CONNECTION_RETRIES + 1, (version, where) -> version == 60
                && where.equals("flow parent written") && ++hits[0] % 2 == 0);
    }

    /**
     * A drop as the batch of parents' rows after each one journaled is written, before its expectations are recorded:
     * a try that checked again every batch the tries before it journaled would be dropped at the same batch each time.
     */
    @Test
    void dropsAfterEachBatchOfParentsRowsDoNotFailTheFlowStep() {
        boolean[] journaledSinceDrop = {false};
        migrateDropping(4 * JobWriter.BATCH + 1, (version, where) -> {
            if (version == 60 && where.equals("expectations recorded")) {
                journaledSinceDrop[0] = true;
            } else if (version == 60 && where.equals("rows written") && journaledSinceDrop[0]) {
                journaledSinceDrop[0] = false;
                return true;
            }
            return false;
        });
    }

    /** Migrates {@code parents} flow parents, the target's connections dropped at each checkpoint {@code dropAt} tells; checks the outcome. */
    private static void migrateDropping(int parents, BiPredicate<Integer, String> dropAt) {
        Set<String> children = addParents(parents);
        int[] drops = {0};
        MigrationResult r;
        try (UnifiedJedis target = TARGET.endpoint().open()) {
            r = new Migrator(Wire.unfenced(SOURCE.client()), Wire.open(target), SOURCE.uri(), MigrationOptions.defaults(),
                    Checkpoints.observed((version, where) -> {
                        if (dropAt.test(version, where)) {
                            drops[0]++;
                            TARGET.dropConnections();
                        }
                    })).reconnectWaits(ConnectionDropsTest.QUICK_RECONNECTS).migrate(List.of("bull"), List.of(QUEUE)).get(0);
        }
        assertTrue(drops[0] >= 4, drops[0] + " drops: " + r);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(2L * parents, r.moved().get("child-links"), "the links the tries before wrote count: " + r.moved());
        assertEquals((long) parents, r.moved().get("awaiting_children"), "the parents the tries before wrote count: " + r.moved());
        try (UnifiedJedis check = TARGET.endpoint().open()) {
            assertEquals(List.of(), LiveV1.problems(SOURCE.client(), "bull", check, QUEUE, children, Set.of(), true));
            Journal journal = new Journal(Wire.open(check), QUEUE);
            for (int p = 1; p <= parents; p++) {
                BrandedId id = journal.ids().lookupV1(List.of(("p" + p).getBytes())).get(0).orElseThrow();
                assertEquals("awaiting_children", check.hget(Keys.queue(QUEUE).job(id), "state"), "p" + p + "'s row (in no set)");
                assertEquals("1", check.get(Keys.queue(QUEUE).job(id, JobSub.DEPENDENCIES)), "p" + p + " waits for one child");
                assertEquals(1, check.hlen(Keys.queue(QUEUE).job(id, JobSub.PROCESSED)), "p" + p + "'s finished child");
            }
        }
    }

    /** Parents p1..pN waiting for children: each has one child waiting (c1..cN) and one finished (its result recorded); the children's ids. */
    private static Set<String> addParents(int parents) {
        String base = "bull:" + QUEUE + ":";
        Set<String> children = new HashSet<>();
        for (int p = 1; p <= parents; p++) {
            String parent = "p" + p;
            String child = "c" + p;
            SOURCE.client().hset(base + parent, Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
            SOURCE.client().sadd(base + parent + ":dependencies", base + child);
            SOURCE.client().hset(base + parent + ":processed", base + "done" + p, "\"result\"");
            SOURCE.client().zadd(base + "waiting-children", p, parent);
            SOURCE.client().hset(base + child, Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1",
                    "parentKey", base + parent, "parent", "{\"id\":\"" + parent + "\",\"queueKey\":\"bull:" + QUEUE + "\"}"));
            SOURCE.client().lpush(base + "wait", child);
            children.add(child);
        }
        SOURCE.client().set(base + "id", Integer.toString(parents));
        return children;
    }
}
