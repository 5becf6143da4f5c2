package io.emq.migrate.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class BrandedIdTest {
    @Test
    void encodesTheContractVector() {
        assertEquals("USR0KHTOWnGLuC", new BrandedId("USR", 274557032793636864L).toString());
    }

    @Test
    void parsesTheContractVector() {
        BrandedId.Valid v = assertInstanceOf(BrandedId.Valid.class, BrandedId.parse("USR0NgWEfAEJfs"));
        assertEquals("USR", v.id().namespace());
        assertEquals(320636799581945856L, v.id().value());
    }

    @Test
    void hash32MatchesTheContractVector() {
        assertEquals(234878118L, BrandedId.hash32(274557032793636864L));
    }

    @Test
    void rejectsABodyAboveTwoToTheSixtyThree() {
        assertEquals(BrandedId.Defect.RANGE, defect("JOBzzzzzzzzzzz"));
        assertEquals(BrandedId.Defect.RANGE, defect("JOBAzL8n0Y58m8"));
        assertEquals(Long.MAX_VALUE, BrandedId.of("JOBAzL8n0Y58m7").value());
    }

    @Test
    void checksRunInContractOrder() {
        assertEquals(BrandedId.Defect.LENGTH, defect("JOB123"));
        assertEquals(BrandedId.Defect.LENGTH, defect(""));
        assertEquals(BrandedId.Defect.NAMESPACE, defect("jOB0NwdXCmjyDI"));
        assertEquals(BrandedId.Defect.NAMESPACE, defect("J0B0NwdXCmjyDI"));
        assertEquals(BrandedId.Defect.CHARSET, defect("JOB0NwdXCmjy-I"));
        assertEquals(BrandedId.Defect.CHARSET, defect("JOB0NwdXCmjy:I"));
    }

    @Test
    void migrationRankVectors() {
        assertEquals("JOB00000000001", BrandedId.job(1).toString());
        assertEquals("JOB0000000000g", BrandedId.job(42).toString());
        assertEquals("JOB00000004C92", BrandedId.job(1_000_000).toString());
    }

    @Test
    void snowflakeVectorsSortInMintOrder() {
        long ms = Instant.parse("2026-06-13T12:00:00Z").toEpochMilli() - Snowflake.EPOCH_MS;
        BrandedId first = BrandedId.job(Snowflake.compose(ms, 4, 0));
        BrandedId second = BrandedId.job(Snowflake.compose(ms, 4, 1));
        assertEquals("JOB0NwdXCmjyDI", first.toString());
        assertEquals("JOB0NwdXCmjyDJ", second.toString());
        assertTrue(first.toString().compareTo(second.toString()) < 0);
        assertEquals(Instant.parse("2026-06-13T12:00:00Z"), first.mintTime());
        assertEquals(4, Snowflake.nodeOf(first.value()));
    }

    @Test
    void constructorRefusesWhatParseRejects() {
        assertThrows(IllegalArgumentException.class, () -> new BrandedId("JO", 1));
        assertThrows(IllegalArgumentException.class, () -> new BrandedId("JOB", -1));
    }

    private static BrandedId.Defect defect(String text) {
        return assertInstanceOf(BrandedId.Invalid.class, BrandedId.parse(text)).defect();
    }
}
