package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import java.net.URI;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * A migration whose first step failed (the source's user may not run scripts): the report says so in the server's words
 * with the ACL rule the user lacks, and the ways out it names work: `repair` clears the failed step and the next run
 * migrates, or `abandon` gives back the v2 queue the step paused. A journal without a step is refused by `repair`, which
 * writes nothing then, and deleted by `abandon`.
 */
class FailedFirstStepTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void aQueue() {
        V1QueueGenerator.addWaiting(SERVER.client(), "emails", 1, 5, 20);
    }

    /** Migrates emails as a source user with reads alone: V10 fails at its first script. */
    private static void failAtTheFirstStep() {
        URI server = URI.create(SERVER.uri());
        try (Jedis admin = new Jedis(server)) {
            admin.aclDelUser("weak");
            admin.aclSetUser("weak", "on", ">weakpw", "~*", "resetchannels", "+@read", "+client|setname");
        }
        String weak = "redis://weak:weakpw@" + server.getHost() + ":" + server.getPort();
        CliRun failed = CliRun.of("migrate", "--source", weak, "--target", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.REFUSED, failed.code(), failed.all());
        assertTrue(failed.out().contains("step V10 (fence source) failed: NOPERM")
                && failed.out().contains("grant that server's ACL user +@scripting (MIGRATION.md, least privilege); nothing was"
                + " deleted; fix the cause, run `emq-migrate repair`, then migrate again"), failed.all());
        assertFalse(failed.all().contains("redis.clients") || failed.all().contains("Exception"), failed.all());
        assertEquals("1", SERVER.client().hget("emq:{emails}:meta", "paused"), "the failed step paused the v2 queue");
    }

    @Test
    void repairClearsAFailedFirstStepAndTheNextRunMigrates() {
        failAtTheFirstStep();
        CliRun stuck = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertTrue(stuck.out().contains("step V10 (fence source) failed earlier: NOPERM"), stuck.all());

        CliRun repair = CliRun.of("repair", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.OK, repair.code(), repair.all());
        assertTrue(repair.out().contains("V10 fence source: failed row removed (NOPERM")
                && repair.out().contains("repaired 1 step of emails; run migrate again"), repair.all());
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.OK, migrate.code(), migrate.all());
        assertTrue(migrate.out().contains("1 of 1 queues done; 5 jobs moved"), migrate.all());
    }

    @Test
    void abandonGivesBackTheV2QueueAFailedFirstStepPaused() {
        failAtTheFirstStep();
        CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.OK, abandon.code(), abandon.all());
        assertNull(SERVER.client().hget("emq:{emails}:meta", "paused"), abandon.all());
        assertEquals(5, SERVER.client().llen("bull:emails:wait"), "v1 as it was");
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.OK, migrate.code(), migrate.all());
    }

    @Test
    void aJournalWithoutAStepIsRefusedByRepairWhichWritesNothingAndDeletedByAbandon() {
        SERVER.client().zadd("bull:emails:repeat", 1, "legacy::::60000"); // refused at the fence: a legacy repeatable
        assertEquals(ExitCodes.REFUSED, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes").code());
        String before = new KeyspaceDump(SERVER.client()).digest();
        CliRun repair = CliRun.of("repair", "--target", SERVER.uri(), "--queue", "emails");
        assertEquals(ExitCodes.REFUSED, repair.code(), repair.all());
        assertTrue(repair.err().contains("queue emails was never migrated on this target: its runs were refused (or stopped) at"
                + " the first step"), repair.all());
        assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "nothing written");
        CliRun abandon = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.OK, abandon.code(), abandon.all());
        assertFalse(SERVER.client().exists("{emq}:migration:emails"), "the journal deleted (RefusedAtTheFirstStepTest: v1 as it was)");
        assertEquals(5, SERVER.client().llen("bull:emails:wait"));
    }
}
