package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.v1.plan.Rebrand;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The pure decoders: rebrand ids, score packings, payload checks, glob escaping. */
class V1CodecsTest {

    @Test
    void rebrandIsJobPlusFixedWidthBase62OfTheQueueBaseAndTheRank() {
        assertEquals("JOB00000000001", Rebrand.jobId(0, 1));
        assertEquals("JOB0000000000g", Rebrand.jobId(0, 42));
        assertEquals("JOB00000004C92", Rebrand.jobId(0, 1_000_000));
        assertTrue(Rebrand.jobId(7, 61).compareTo(Rebrand.jobId(7, 62)) < 0, "byte order is rank order within a queue");
        assertEquals(io.emq.migrate.keyspace.BrandedId.job((5L << 36) + 1).toString(), Rebrand.jobId(5, 1));
        assertTrue(Rebrand.idBase("orders") != Rebrand.idBase("invoices"), "names ask for different bases");
        assertTrue((((long) Rebrand.BASES - 1) << Rebrand.RANK_BITS | Rebrand.MAX_RANK) < (1L << 53),
                "every minted value is exact in Lua's numbers");
        long aSnowflakeOfMid2024 = io.emq.migrate.keyspace.Snowflake.compose(200L * 86_400_000, 0, 0);
        assertTrue(((long) Rebrand.BASES << Rebrand.RANK_BITS) < aSnowflakeOfMid2024, "below every v2 mint since mid-2024");
    }

    @Test
    void delayedAndPrioritizedScoresDecode() {
        double delayed = 6963200020480001d; // the spec's v1 example: due t+5000, sequence 1
        assertTrue(ScoreCodec.isPacking(delayed));
        assertEquals(1700000005000L, ScoreCodec.dueAt(delayed));
        assertFalse(ScoreCodec.isPacking(-1.5));
        assertFalse(ScoreCodec.isPacking(1.5));
        assertFalse(ScoreCodec.isPacking(Double.NaN));
        assertFalse(ScoreCodec.isPacking(Double.POSITIVE_INFINITY));
        assertFalse(ScoreCodec.isPacking(Math.pow(2, 63)));
        assertEquals("-1.5", ScoreCodec.render(-1.5));
    }

    @Test
    void scoresAtAndPast2To53DecodeExactly() {
        // priority 2^21 (BullMQ 5.65.1's limit) with pc 4: past 2^53, still an exact integer packing
        double top = Math.pow(2, 21) * Math.pow(2, 32) + 4;
        assertTrue(ScoreCodec.isPacking(top));
        assertTrue(ScoreCodec.isPacking(Math.pow(2, 53)));
        // a job delayed to 2040-11-30: due 2237570074340 ms, score due*4096 = 9165087024496640 (> 2^53)
        assertEquals(2237570074340L, ScoreCodec.dueAt(9165087024496640d));
        assertEquals(2237570074340L * 4096, 9165087024496640L);
        // the largest score inside that due ms that a double holds is still that ms, never an earlier one
        double lastOfTheMs = Math.nextDown(9165087024496640d + 4096);
        assertEquals(2237570074340L, ScoreCodec.dueAt(lastOfTheMs));
        assertEquals(0, ScoreCodec.dueAt(-8192));
        assertEquals(0, ScoreCodec.dueAt(Double.NaN));
        assertEquals(ScoreCodec.NEVER_DUE, ScoreCodec.dueAt(Double.POSITIVE_INFINITY));
        assertEquals(1, ScoreCodec.dueAt(4096.5)); // damaged (fractional), yet v1 promotes it at ms 1
    }

    @Test
    void payloadDigestTellsJsonFromText() {
        assertTrue(PayloadDigest.of("{\"a\":[1,2]}".getBytes(StandardCharsets.UTF_8)).json());
        assertTrue(PayloadDigest.of("\"text\"".getBytes(StandardCharsets.UTF_8)).json());
        assertFalse(PayloadDigest.of("{\"a\":1} trailing".getBytes(StandardCharsets.UTF_8)).json());
        assertFalse(PayloadDigest.of("not json".getBytes(StandardCharsets.UTF_8)).json());
        PayloadDigest binary = PayloadDigest.of(new byte[] {'"', (byte) 0xff, '"'});
        assertFalse(binary.json());
        assertFalse(binary.utf8());
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", PayloadDigest.of(new byte[0]).sha256());
        assertFalse(PayloadDigest.ABSENT.present());
    }

    @Test
    void scanPatternsEscapeGlobCharacters() {
        assertEquals("bull:{orders}:\\*\\?\\[x\\]:*", KeyspaceScanner.globPrefix(Bytes.utf8("bull:{orders}:*?[x]:")).display());
    }

    @Test
    void bytesRenderNonUtf8WithEscapes() {
        Bytes b = Bytes.of(new byte[] {'a', (byte) 0xff, 0});
        assertFalse(b.isUtf8());
        assertEquals("a\\xff\\x00", b.display());
        assertEquals(Bytes.utf8("заказ"), Bytes.of("заказ".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void numericFieldsReadAsTheirTextWouldParse() {
        java.util.List<String> texts = new java.util.ArrayList<>(java.util.List.of("0", "-0", "007", "-", "", "+7", " 42 ", "1e3",
                "12.5", "-12.5", "123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
                "9223372036854775808", "-9223372036854775808", "99999999999999999999", "0x10", "1_000", "--1", "4-"));
        java.util.Random random = new java.util.Random(13);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder t = new StringBuilder(random.nextInt(8) == 0 ? "-" : "");
            int digits = 1 + random.nextInt(20);
            for (int d = 0; d < digits; d++) {
                t.append((char) ('0' + random.nextInt(10)));
            }
            texts.add(t.toString());
        }
        for (String text : texts) {
            java.util.List<byte[]> fields = new java.util.ArrayList<>(java.util.Collections.nCopies(13, (byte[]) null));
            fields.set(1, text.getBytes(StandardCharsets.UTF_8)); // timestamp
            assertEquals(QueueSnapshotReader.parseLong(text, 0), JobHashFields.of(fields).timestamp(), text);
        }
    }
}
