package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * {@code forget} deletes the journal of a retired queue, and only of one, leaving its v2 queue as it is; a migration
 * of the retired v1 queue then says it is retired (exit 0, nothing written), as its plan does.
 */
class ForgetTest {
    static final String JOURNAL = "{emq}:migration:q";

    private static void v1Queue(Jedis server) {
        for (int id = 1; id <= 3; id++) {
            server.hset("bull:q:" + id, Map.of("name", "n", "data", "{}", "timestamp", Integer.toString(id)));
            server.lpush("bull:q:wait", Integer.toString(id));
        }
    }

    @Test
    void theJournalOfARetiredQueueIsForgottenAndItsV2QueueKept() {
        try (LocalServer server = LocalServer.start(); Jedis admin = new Jedis(server.hostAndPort())) {
            v1Queue(admin);
            assertEquals(0, CliRun.of("migrate", "--yes", "--source", server.uri(), "--queue", "q").code());
            assertTrue(admin.exists(JOURNAL));
            CliRun unconfirmed = CliRun.of("forget", "--target", server.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, unconfirmed.code(), "off a terminal without --yes: " + unconfirmed.all());
            assertTrue(admin.exists(JOURNAL));

            CliRun r = CliRun.of("forget", "--yes", "--target", server.uri(), "--queue", "q");
            assertEquals(0, r.code(), r.all());
            assertTrue(r.out().startsWith("forgot the journal of q ({emq}:migration:q, "), r.out());
            assertFalse(admin.exists(JOURNAL));
            assertEquals(3, admin.zcard("emq:{q}:pending"), "the v2 queue is untouched");
            CliRun lookup = CliRun.of("lookup", "--target", server.uri(), "--queue", "q", "--all");
            assertEquals(ExitCodes.REFUSED, lookup.code(), lookup.all());
            assertTrue(lookup.err().contains("queue q has no migration journal on this target (never migrated here, or `forget` deleted it"), lookup.err());
            CliRun again = CliRun.of("forget", "--yes", "--target", server.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, again.code(), again.all());

            CliRun remigrate = CliRun.of("migrate", "--yes", "--source", server.uri(), "--queue", "q");
            assertEquals(0, remigrate.code(), remigrate.all());
            assertTrue(remigrate.out().contains("bull:q retired: a migration retired it already") && remigrate.out()
                    .contains("this target keeps no journal of it (forgotten, or it went into another target"), remigrate.all());
            assertFalse(admin.exists(JOURNAL), "nothing written");
            assertEquals(3, admin.zcard("emq:{q}:pending"), "the v2 queue is untouched");
            assertEquals(null, admin.hget("emq:{q}:meta", "migration"), "and not fenced");
            CliRun plan = CliRun.of("plan", "--source", server.uri(), "--queue", "q");
            assertEquals(0, plan.code(), plan.all());
            assertTrue(plan.out().contains("== queue bull:q -> v2 emq:{q}  retired (meta.version is the tombstone"), plan.out());
            CliRun json = CliRun.of("plan", "--source", server.uri(), "--queue", "q", "--json");
            assertTrue(json.out().contains("\"retired\":true") || json.out().contains("\"retired\" : true"), json.out());
            CliRun abandon = CliRun.of("abandon", "--yes", "--source", server.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, abandon.code(), abandon.all());
            assertEquals(3, admin.zcard("emq:{q}:pending"));
        }
    }

    /** A target user without {@code @transaction} (optional on the target, MIGRATION.md) forgets alike. */
    @Test
    void aTargetUserWithoutTransactionsForgetsTheRetiredJournal() {
        try (LocalServer server = LocalServer.start(); Jedis admin = new Jedis(server.hostAndPort())) {
            v1Queue(admin);
            assertEquals(0, CliRun.of("migrate", "--yes", "--source", server.uri(), "--queue", "q").code());
            admin.aclSetUser("forgetter", "on", ">s3cret", "~emq:*", "~{emq}:*", "resetchannels", "+@read", "+@write", "+@scripting",
                    "+@connection", "-@dangerous", "+scan", "+type", "+time");
            String asForgetter = "redis://forgetter:s3cret@" + server.uri().substring("redis://".length());
            CliRun r = CliRun.of("forget", "--yes", "--target", asForgetter, "--queue", "q");
            assertEquals(0, r.code(), r.all());
            assertFalse(admin.exists(JOURNAL));
            assertEquals(3, admin.zcard("emq:{q}:pending"), "the v2 queue is untouched");
        }
    }

    @Test
    void aJournalNotRetiredIsKept() {
        try (LocalServer server = LocalServer.start(); Jedis admin = new Jedis(server.hostAndPort())) {
            v1Queue(admin);
            assertEquals(0, CliRun.of("migrate", "--no-retire", "--source", server.uri(), "--queue", "q").code());
            CliRun r = CliRun.of("forget", "--yes", "--target", server.uri(), "--queue", "q");
            assertEquals(ExitCodes.REFUSED, r.code(), r.all());
            assertTrue(r.err().contains("the migration of q is verified, not retired: its journal is what a re-run and `abandon`"
                    + " need"), r.err());
            assertTrue(admin.exists(JOURNAL));
        }
    }
}
