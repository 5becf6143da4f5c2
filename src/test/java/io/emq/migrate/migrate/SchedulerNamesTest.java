package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.plan.SchedulerNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each v1 {@code every} scheduler keeps a v2 registration of its own, whatever characters its id holds. */
class SchedulerNamesTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void aQueue() {
        SERVER.client().flushAll();
        V1QueueGenerator.addWaiting(SERVER.client(), "ticks", 1, 2, 20);
    }

    private static void scheduler(String sid) {
        SERVER.client().zadd("bull:ticks:repeat", System.currentTimeMillis() + 60_000, sid);
        SERVER.client().hset("bull:ticks:repeat:" + sid, Map.of("name", "tick " + sid, "every", "60000", "ic", "1"));
    }

    @Test
    void anIdMadeValidByReplacingCharactersDoesNotReplaceTheIdItBecomes() {
        scheduler("a:b");
        scheduler("a_b");
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        String renamed = SchedulerNames.v2Name(Bytes.utf8("a:b"));
        assertTrue(renamed.startsWith("a_b.") && renamed.length() == 12, renamed);
        assertEquals(Set.of("a_b", renamed), Set.copyOf(SERVER.client().zrange("emq:{ticks}:repeat", 0, -1)));
        assertTrue(SERVER.client().hget("emq:{ticks}:repeat:a_b", "template").contains("tick a_b"));
        assertTrue(SERVER.client().hget("emq:{ticks}:repeat:" + renamed, "template").contains("tick a:b"));
    }

    @Test
    void twoIdsThatStillMeetOnOneNameAreRefusedBeforeAnythingIsWritten() {
        scheduler("a:b");
        scheduler(SchedulerNames.v2Name(Bytes.utf8("a:b")));
        Set<String> before = SERVER.client().keys("bull:ticks*");
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), r.message());
        assertEquals(MigrationRefused.Kind.SCHEDULER_NAME_CLASH, r.refusalKind().orElseThrow(), r.message());
        assertTrue(r.message().contains("'a:b'") && r.message().contains("would both be registered in v2 as '"
                + SchedulerNames.v2Name(Bytes.utf8("a:b")) + "'"), r.message());
        assertEquals(before, SERVER.client().keys("bull:ticks*"), "v1 keeps every key");
        assertEquals(Set.of(), SERVER.client().keys("emq:{ticks}:*"), "refused at the fence: no row, no registration");
    }

    @Test
    void aSchedulerV1AddsDuringTheCopyOnANameTakenIsRefusedAndReplacesNothing() {
        scheduler("a:b");
        String renamed = SchedulerNames.v2Name(Bytes.utf8("a:b"));
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.observed((version, where) -> {
            if (version == 70 && where.equals("schedulers written")) {
                SERVER.client().hset("bull:ticks:repeat:" + renamed, Map.of("name", "impostor", "every", "1000", "ic", "1"));
                SERVER.client().zadd("bull:ticks:repeat", System.currentTimeMillis() + 1000, renamed); // a live producer
            }
        }), List.of("bull")).get(0);
        assertEquals(MigrationRefused.Kind.SCHEDULER_NAME_CLASH, r.refusalKind().orElseThrow(), r.message());
        assertTrue(SERVER.client().hget("emq:{ticks}:repeat:" + renamed, "template").contains("tick a:b"), "a:b's registration kept");
        assertEquals(2, SERVER.client().zcard("bull:ticks:repeat"), "v1 keeps both");
    }
}
