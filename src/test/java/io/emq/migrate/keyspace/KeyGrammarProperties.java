package io.emq.migrate.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.emq.migrate.keyspace.ParsedKey.QueueKey;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

class KeyGrammarProperties {
    private static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

    @Property(tries = 2000)
    void parseNeverThrowsOnBytes(@ForAll byte[] key) {
        assertNotNull(KeyGrammar.parse(key));
    }

    @Property(tries = 2000)
    void parseNeverThrowsOnNearMisses(@ForAll("nearMisses") String key) {
        assertNotNull(KeyGrammar.parse(key));
    }

    @Property(tries = 1000)
    void buildThenParseGivesBackTheParts(@ForAll("queues") String queue, @ForAll("parts") Part part) {
        String key = Keys.queue(queue).key(part);
        assertEquals(new QueueKey(queue, part), KeyGrammar.parse(key));
    }

    @Property(tries = 1000)
    void everyPerQueueKeyHasTheSlotOfItsQueue(@ForAll("queues") String queue, @ForAll("parts") Part part) {
        assertEquals(Slots.slot(queue), Slots.slot(Keys.queue(queue).key(part)));
    }

    @Property(tries = 1000)
    void idByteOrderIsValueOrder(@ForAll @LongRange(min = 0) long a, @ForAll @LongRange(min = 0) long b) {
        int byBytes = Integer.signum(BrandedId.job(a).toString().compareTo(BrandedId.job(b).toString()));
        assertEquals(Integer.signum(Long.compare(a, b)), byBytes);
    }

    @Property(tries = 500)
    void mintOrderIsByteOrder(@ForAll @LongRange(min = 0, max = 1L << 40) long startMs) {
        SnowflakeMinter minter = new SnowflakeMinter(5, () -> Snowflake.EPOCH_MS + startMs);
        String prev = minter.mintJob().toString();
        for (int i = 0; i < 50; i++) {
            String next = minter.mintJob().toString();
            assertEquals(-1, Integer.signum(prev.compareTo(next)));
            prev = next;
        }
    }

    @Property(tries = 1000)
    void encodedIdsParseBack(@ForAll @LongRange(min = 0) long value) {
        assertEquals(BrandedId.job(value), BrandedId.of(BrandedId.job(value).toString()));
    }

    @Provide
    Arbitrary<String> queues() {
        return Arbitraries.strings().withChars(NAME_CHARS).ofMinLength(1).ofMaxLength(128).filter(q -> !q.equals("emq"));
    }

    @Provide
    Arbitrary<Part> parts() {
        Arbitrary<BrandedId> ids = Combinators.combine(Arbitraries.strings().withCharRange('A', 'Z').ofLength(3),
                Arbitraries.longs().greaterOrEqual(0)).as(BrandedId::new);
        Arbitrary<String> names = Arbitraries.strings().withChars(NAME_CHARS).ofMinLength(1).ofMaxLength(255);
        return Arbitraries.oneOf(
                Arbitraries.of(StructureType.class).map(Part.Structure::new),
                Combinators.combine(ids, Arbitraries.of(JobSub.class).optional()).as(Part.Job::new),
                names.map(Part.Dedup::new),
                Combinators.combine(Arbitraries.of(true, false), Arbitraries.of(true, false)).as(Part.Metrics::new),
                ids.map(Part.GroupPending::new),
                names.map(Part.Repeat::new),
                Combinators.combine(names, Arbitraries.of(true, false)).as(Part.Stream::new));
    }

    @Provide
    Arbitrary<String> nearMisses() {
        Arbitrary<String> prefix = Arbitraries.of("emq:{", "{emq}:", "emq:", "bull:", "{emq}:migration:", "emq:{q}:job:",
                "emq:{q}:g:", "emq:{q}:stream:", "emq:{q}:metrics:", "");
        Arbitrary<String> tail = Arbitraries.strings().withChars(NAME_CHARS + "{}:\u00e9\u0000 ").ofMaxLength(40);
        return Combinators.combine(prefix, tail).as((p, t) -> p + t);
    }

}
