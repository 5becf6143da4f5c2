package io.emq.migrate.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.ParsedKey.QueueKey;
import io.emq.migrate.keyspace.ParsedKey.Rejected;
import io.emq.migrate.keyspace.ParsedKey.Rejection;
import io.emq.migrate.keyspace.ParsedKey.Reserve;
import io.emq.migrate.keyspace.ParsedKey.ReserveKey;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class KeyGrammarTest {
    private static final String ID = "JOB0NwdXCmjyDI";

    @ParameterizedTest
    @EnumSource(StructureType.class)
    void everyStructureTypeParses(StructureType type) {
        QueueKey key = queueKey("emq:{orders}:" + type.suffix());
        assertEquals("orders", key.queue());
        assertEquals(new Part.Structure(type), key.part());
    }

    @Test
    void jobKeysAndSubkeys() {
        assertEquals(new Part.Job(BrandedId.of(ID)), queueKey("emq:{orders}:job:" + ID).part());
        for (JobSub sub : JobSub.values()) {
            assertEquals(new Part.Job(BrandedId.of(ID), Optional.of(sub)),
                    queueKey("emq:{orders}:job:" + ID + ":" + sub.suffix()).part());
        }
        assertEquals(Rejection.UNKNOWN_JOB_SUBKEY, rejection("emq:{orders}:job:" + ID + ":lease"));
        assertEquals(Rejection.BAD_JOB_ID, rejection("emq:{orders}:job:42"));
        assertEquals(Rejection.BAD_JOB_ID, rejection("emq:{orders}:job:JOBzzzzzzzzzzz"));
    }

    @Test
    void otherSuffixFamilies() {
        assertEquals(new Part.Dedup("order-17.a_b"), queueKey("emq:{q}:de:order-17.a_b").part());
        assertEquals(new Part.Metrics(false, false), queueKey("emq:{q}:metrics:completed").part());
        assertEquals(new Part.Metrics(true, true), queueKey("emq:{q}:metrics:failed:data").part());
        assertEquals(new Part.GroupPending(BrandedId.of("PRT0NwdXCmjyDI")), queueKey("emq:{q}:g:PRT0NwdXCmjyDI:pending").part());
        assertEquals(new Part.Repeat("nightly"), queueKey("emq:{q}:repeat:nightly").part());
        assertEquals(new Part.Stream("audit", false), queueKey("emq:{q}:stream:audit").part());
        assertEquals(new Part.Stream("audit", true), queueKey("emq:{q}:stream:audit:archived").part());
        assertEquals(new Part.Structure(StructureType.FLOW_OUTBOX), queueKey("emq:{q}:flow:outbox").part());
    }

    @Test
    void reserveMembers() {
        assertEquals(new ReserveKey(Reserve.VERSION, Optional.empty()), KeyGrammar.parse("{emq}:version"));
        assertEquals(new ReserveKey(Reserve.LOCKS, Optional.empty()), KeyGrammar.parse("{emq}:locks"));
        assertEquals(new ReserveKey(Reserve.BUNDLE, Optional.empty()), KeyGrammar.parse("{emq}:bundle"));
        assertEquals(new ReserveKey(Reserve.MIGRATION, Optional.of("orders")), KeyGrammar.parse("{emq}:migration:orders"));
        assertEquals(Rejection.UNKNOWN_RESERVE, rejection("{emq}:queues"));
        assertEquals(Rejection.BAD_QUEUE_NAME, rejection("{emq}:migration:a b"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "bull:orders:wait|BULL_KEY",
        "emq:orders:pending|UNBRACED_EMQ",
        "emq:{emq}:pending|RESERVED_QUEUE_NAME",
        "emq:{ord ers}:pending|BAD_QUEUE_NAME",
        "emq:{}:pending|BAD_QUEUE_NAME",
        "emq:{a{b}:pending|BAD_QUEUE_NAME",
        "emq:{orders:pending|UNTERMINATED_HASHTAG",
        "emq:{orders}pending|MISSING_SEPARATOR",
        "emq:{orders}|MISSING_SEPARATOR",
        "emq:{orders}:|UNKNOWN_TYPE",
        "emq:{orders}:wait|UNKNOWN_TYPE",
        "emq:{orders}:metrics:latency|UNKNOWN_TYPE",
        "emq:{orders}:de:a:b|BAD_DEDUP_ID",
        "emq:{orders}:g:nope:pending|BAD_GROUP_ID",
        "emq:{orders}:repeat:a b|BAD_NAME",
        "orders|FOREIGN",
    })
    void rejectionsAreTyped(String key, Rejection expected) {
        Rejected rejected = assertInstanceOf(Rejected.class, KeyGrammar.parse(key));
        assertEquals(expected, rejected.rejection());
        assertTrue(!rejected.reason().isBlank());
    }

    @Test
    void emptyAndInvalidUtf8AreRejectedNotThrown() {
        assertEquals(Rejection.EMPTY, rejection(""));
        assertEquals(Rejection.EMPTY, ((Rejected) KeyGrammar.parse((String) null)).rejection());
        byte[] bad = {'e', 'm', 'q', ':', '{', (byte) 0xC3, (byte) 0x28, '}', ':', 'p'};
        assertEquals(Rejection.BAD_QUEUE_NAME, ((Rejected) KeyGrammar.parse(bad)).rejection());
        assertEquals(Rejection.BAD_QUEUE_NAME, rejection("emq:{caf\u00e9}:pending"));
    }

    @Test
    void builderBuildsOnlyWhatParses() {
        Keys keys = Keys.queue("orders");
        assertEquals("emq:{orders}:pending", keys.pending());
        assertEquals("emq:{orders}:job:" + ID + ":logs", keys.job(BrandedId.of(ID), JobSub.LOGS));
        assertEquals("{emq}:migration:orders", Keys.migrationJournal("orders"));
        assertEquals("{emq}:version", Keys.VERSION);
        assertThrows(IllegalArgumentException.class, () -> Keys.queue("emq"));
        assertThrows(IllegalArgumentException.class, () -> Keys.queue("a:b"));
        assertThrows(IllegalArgumentException.class, () -> keys.dedup("a:b"));
        assertThrows(IllegalArgumentException.class, () -> Keys.migrationJournal("x y"));
    }

    private static QueueKey queueKey(String key) {
        return assertInstanceOf(QueueKey.class, KeyGrammar.parse(key));
    }

    private static Rejection rejection(String key) {
        return assertInstanceOf(Rejected.class, KeyGrammar.parse(key)).rejection();
    }

    @Test
    void aQueueNameIsShownInItsOwnScriptWithControlAndInvisibleCharactersEscaped() {
        assertEquals(Optional.of("queue name 'заказ' must match [A-Za-z0-9._-]{1,128}"), Names.queueNameProblem("заказ"));
        assertEquals("név ünï✓", Names.printable("név ünï✓"));
        assertEquals("a\\x00b\\x0a\\x7f\\x85", Names.printable("a\u0000b\n\u007f\u0085"));
        assertEquals("pay\\u{202e}fdp.exe \\u{a0}\\u{200b}", Names.printable("pay\u202efdp.exe \u00a0\u200b"), "a bidi override, spaces");
        assertEquals("\\u{d800}", Names.printable("\ud800"), "a lone surrogate");
    }
}
