package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.plan.SchedulerNames;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
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

    /** The bytes 0xFF 'z' (no UTF-8) and the text backslash-x-f-f-z: both display as {@code \xffz}. */
    private static final byte[] BINARY = {(byte) 0xff, 'z'};
    private static final byte[] TEXT = "\\xffz".getBytes(StandardCharsets.UTF_8);

    private static void scheduler(byte[] sid, String name, long everyMs) {
        byte[] record = concat("bull:ticks:repeat:".getBytes(StandardCharsets.UTF_8), sid);
        SERVER.client().zadd("bull:ticks:repeat".getBytes(StandardCharsets.UTF_8), System.currentTimeMillis() + everyMs, sid);
        SERVER.client().hset(record, Map.of(utf8("name"), utf8(name), utf8("every"), utf8(Long.toString(everyMs)), utf8("ic"), utf8("1")));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String template(byte[] sid) {
        return SERVER.client().hget("emq:{ticks}:repeat:" + SchedulerNames.v2Name(Bytes.of(sid)), "template");
    }

    @Test
    void twoIdsThatDisplayAlikeKeepARecordARegistrationAndATemplateEach() {
        scheduler(BINARY, "binary", 60_000);
        scheduler(TEXT, "text", 120_000);
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertTrue(template(BINARY).contains("\"name\":\"binary\""), template(BINARY));
        assertTrue(template(TEXT).contains("\"name\":\"text\""), template(TEXT));
        Journal journal = new Journal(Wire.open(SERVER.client()), "ticks");
        assertEquals(2, journal.fieldsStartingWith(Journal.SCHEDULER_PREFIX).size(), "a record each");
        Map<String, Long> retire = journal.history().rows().stream().filter(row -> row.version() == 120).findFirst().orElseThrow().counts();
        assertFalse(retire.containsKey("scheduler-templates-edited"), "nothing was edited in v1: " + retire);
    }

    @Test
    void oneOfTwoIdsThatDisplayAlikeRemovedInV1DuringTheCopyIsDroppedFromV2() {
        scheduler(BINARY, "binary", 60_000);
        scheduler(TEXT, "text", 120_000);
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults(), Checkpoints.observed((version, where) -> {
            if (version == 70 && where.equals("schedulers written")) { // a live v1 removes one (Queue.removeJobScheduler)
                SERVER.client().zrem("bull:ticks:repeat".getBytes(StandardCharsets.UTF_8), BINARY);
                SERVER.client().del(concat("bull:ticks:repeat:".getBytes(StandardCharsets.UTF_8), BINARY));
            }
        }), List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertEquals(List.of(SchedulerNames.v2Name(Bytes.of(TEXT))), SERVER.client().zrange("emq:{ticks}:repeat", 0, -1));
        assertEquals(null, template(BINARY), "no registration v1 no longer has");
    }

    @Test
    void aRunResumedPastTheTombstoneFollowsEachOfTwoIdsThatDisplayAlikeIntoItsOwnRegistration() throws Exception {
        scheduler(BINARY, "binary", 60_000);
        scheduler(TEXT, "text", 120_000);
        MigrationOptions options = MigrationOptions.defaults().withLease(Duration.ofMillis(300));
        assertThrows(Checkpoints.InjectedCrash.class, () -> MigrationHarness.migrate(SERVER, SERVER, options,
                Checkpoints.throwingAt("120:v2 resumed"), List.of("bull")));
        while (Long.parseLong(SERVER.client().hget("{emq}:migration:ticks", "lock_until")) >= serverMillis()) {
            Thread.sleep(50); // the crashed run's lease lapses
        }
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, options, Checkpoints.none(), List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.message());
        assertTrue(template(BINARY).contains("\"name\":\"binary\""), template(BINARY));
        assertTrue(template(TEXT).contains("\"name\":\"text\""), template(TEXT));
    }

    private static long serverMillis() {
        return (Long) SERVER.client().eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }

    @Test
    void aRecordAnEarlierReleaseJournaledReadsAsTheSameScheduler() {
        SchedulerRecord now = SchedulerRecord.of(Bytes.utf8("a:b"));
        assertEquals(now, SchedulerRecord.read(utf8(now.field()), utf8("a:b")));
        assertEquals(now, SchedulerRecord.read(utf8("scheduler:a:b"), utf8(now.name())), "scheduler:<display> = v2 name");
    }

    @Test
    void abandonDeletesTheRegistrationOfEachOfTwoIdsThatDisplayAlike() {
        scheduler(BINARY, "binary", 60_000);
        scheduler(TEXT, "text", 120_000);
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, MigrationOptions.defaults().withRetire(false), Checkpoints.none(),
                List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.VERIFIED, r.outcome(), r.message());
        assertEquals(2, SERVER.client().zcard("emq:{ticks}:repeat"));
        Map<String, Long> undone = Abandon.run(Wire.unfenced(SERVER.client()), Wire.open(SERVER.client()), "ticks",
                MigrationOptions.DEFAULT_LEASE);
        assertEquals(2L, undone.get("schedulers"), undone.toString());
        assertEquals(Set.of(), SERVER.client().keys("emq:{ticks}:repeat*"));
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
