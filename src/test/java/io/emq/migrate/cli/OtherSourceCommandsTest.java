package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The operator's side of a {@code --source} that names another server than the one a migration in flight began
 * from: {@code migrate} refuses in one line (exit 3, the server it began from named), {@code abandon} says where
 * the migration began when the queue it names shows no pause of it.
 */
class OtherSourceCommandsTest {
    static final String JOURNAL = "{emq}:migration:q";

    private static void v1Queue(Jedis server, int jobs) {
        for (int id = 1; id <= jobs; id++) {
            server.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", Integer.toString(id)));
            server.lpush("bull:q:wait", Integer.toString(id));
        }
    }

    @Test
    void migrateRefusesAnotherServersQueueAndAbandonNamesTheServerTheMigrationBeganFrom() {
        try (LocalServer began = LocalServer.start(); Jedis first = new Jedis(began.hostAndPort());
             LocalServer other = LocalServer.start(); Jedis second = new Jedis(other.hostAndPort());
             UnifiedJedis source = Endpoint.parse(began.uri()).open()) {
            v1Queue(first, 5);
            v1Queue(second, 3);
            MigrationOptions options = MigrationOptions.defaults().withLease(Duration.ofMillis(300));
            assertThrows(Checkpoints.InjectedCrash.class, () -> new Migrator(Wire.unfenced(source), Wire.open(source), began.uri(),
                    options, Checkpoints.throwingAt("120:v1 paused#1")).migrate(List.of("bull"), List.of("q")));
            first.hdel(JOURNAL, "lock_owner"); // the crashed run's lease lapses

            CliRun plan = CliRun.of("plan", "--source", other.uri(), "--target", began.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, plan.code(), plan.all());
            assertTrue(plan.out().contains("other-source") && plan.out().contains("re-run with --source "), plan.all());
            CliRun refused = CliRun.of("migrate", "--yes", "--source", other.uri(), "--target", began.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
            String recorded = Endpoint.parse(began.uri()).describe();
            assertTrue(refused.out().contains("refused (other-source)") && refused.out().contains("re-run with --source " + recorded),
                    refused.all());
            assertEquals(3, second.llen("bull:q:wait"), "the other server's queue is untouched");
            CliRun info = CliRun.of("info", "--target", began.uri(), "--queue", "q");
            assertTrue(info.out().contains("source bull:q on " + recorded + " "), info.all());
            assertEquals(null, second.hget("bull:q:meta", "paused"));

            CliRun abandon = CliRun.of("abandon", "--yes", "--source", other.uri(), "--target", began.uri(), "--queue", "q");
            assertEquals(0, abandon.code(), abandon.all());
            assertTrue(abandon.out().contains("the v1 queue at " + Endpoint.parse(other.uri()).describe() + " (the migration began from "
                    + recorded + ") showed no pause of this migration"), abandon.out());
        }
    }

    /**
     * Two databases of one server hold queues of the same name (a tenant a database): every database shares the server's
     * replication ids, yet another database is other data. A migration begun from one is refused from the other by
     * plan and migrate alike (it would be brought in line with that queue and retire it), the journal keeping the
     * database it began from; from there it finishes with its own jobs.
     */
    @Test
    void anotherDatabaseOfTheSameServerIsAnotherSource() {
        try (LocalServer server = LocalServer.start(); Jedis three = new Jedis(server.hostAndPort());
             Jedis four = new Jedis(server.hostAndPort()); Jedis six = new Jedis(server.hostAndPort())) {
            three.select(3);
            four.select(4);
            six.select(6);
            v1Queue(three, 5);
            v1Queue(four, 3);
            String began = server.uri() + "/3";
            String other = server.uri() + "/4";
            String target = server.uri() + "/6";
            assertEquals(0, CliRun.of("migrate", "--no-retire", "--source", began, "--target", target, "--queue", "q").code());

            CliRun plan = CliRun.of("plan", "--source", other, "--target", target, "--queue", "q");
            CliRun migrate = CliRun.of("migrate", "--yes", "--source", other, "--target", target, "--queue", "q");
            for (CliRun refused : List.of(plan, migrate)) {
                assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
                assertTrue(refused.out().contains("other-source") && refused.out().contains("re-run with --source "
                        + Endpoint.parse(began).describe()), refused.all());
            }
            assertEquals(3, four.llen("bull:q:wait"), "the other database's queue is untouched");
            assertEquals(null, four.hget("bull:q:meta", "paused"));
            assertEquals(Endpoint.parse(began).describe(), six.hget(JOURNAL, "source"), "the journal keeps where it began");
            CliRun verify = CliRun.of("verify", "--source", other, "--target", target, "--queue", "q");
            assertEquals(ExitCodes.REFUSED, verify.code(), verify.all());
            assertTrue(verify.err().contains("--source names " + Endpoint.parse(other).describe() + ", which is neither the v1"
                    + " server the migration of 'q' began from (" + Endpoint.parse(began).describe() + ") nor one holding its data")
                    && !verify.all().contains("PROBLEM"), verify.all());
            assertEquals(0, CliRun.of("verify", "--source", began, "--target", target, "--queue", "q").code(), "its own source");

            assertEquals(0, CliRun.of("migrate", "--yes", "--source", began, "--target", target, "--queue", "q").code());
            assertEquals(5, six.zcard("emq:{q}:pending"), "its own jobs");
            assertEquals(3, four.llen("bull:q:wait"));
        }
    }

    /**
     * Two regions merged into one target: a queue of one server's name retired, the other server's queue of the same
     * name is refused by plan and migrate alike (it would be brought in line with the retired one's v2 queue), both
     * saying to give it another name; under one it migrates.
     */
    @Test
    void aQueueOfTheNameAnotherServersRetiredMigrationTookIsRefusedByPlanAndMigrateNamingARename() {
        try (LocalServer began = LocalServer.start(); Jedis first = new Jedis(began.hostAndPort());
             LocalServer other = LocalServer.start(); Jedis second = new Jedis(other.hostAndPort())) {
            v1Queue(first, 5);
            v1Queue(second, 3);
            assertEquals(0, CliRun.of("migrate", "--yes", "--source", began.uri(), "--queue", "q").code());

            CliRun plan = CliRun.of("plan", "--source", other.uri(), "--target", began.uri(), "--queue", "q");
            CliRun migrate = CliRun.of("migrate", "--yes", "--source", other.uri(), "--target", began.uri(), "--queue", "q");
            for (CliRun refused : List.of(plan, migrate)) {
                assertEquals(ExitCodes.REFUSED, refused.code(), refused.all());
                assertTrue(refused.out().contains("other-source") && refused.out().contains("that migration is retired")
                        && refused.out().contains("(--rename q=NEW)"), refused.all());
            }
            assertEquals(3, second.llen("bull:q:wait"), "the other server's queue is untouched");
            CliRun renamed = CliRun.of("migrate", "--yes", "--source", other.uri(), "--target", began.uri(), "--queue", "q",
                    "--rename", "q=q-other");
            assertEquals(0, renamed.code(), renamed.all());
            assertEquals(5, first.zcard("emq:{q}:pending"));
            assertEquals(3, first.zcard("emq:{q-other}:pending"));
        }
    }
}
