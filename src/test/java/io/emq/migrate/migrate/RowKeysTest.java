package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.ParsedKey;
import io.emq.migrate.keyspace.Part;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A row's key is built as {@link Keys#job} builds it, and judged a row's key on its bytes exactly when
 * the grammar parses it as a job of the queue without a subkey: every byte of a row key's id and of the
 * byte before it, replaced by each of the 256 values, and keys a byte longer or shorter.
 */
class RowKeysTest {
    private static final Keys KEYS = Keys.queue("or.ders-1");
    private static final RowKeys ROWS = new RowKeys(KEYS);

    @Test
    void aRowsKeyIsBuiltAsTheKeyBuilderBuildsIt() {
        for (BrandedId id : List.of(BrandedId.job(0), BrandedId.job(1), BrandedId.job(Long.MAX_VALUE), BrandedId.of("ABC0000000000z"))) {
            assertArrayEquals(Utf8.bytes(KEYS.job(id)), ROWS.of(id), id.toString());
        }
    }

    @Test
    void aKeyIsJudgedARowsKeyExactlyWhenTheGrammarParsesItAsOne() {
        List<String> rows = List.of(KEYS.job(BrandedId.job(0)), KEYS.job(BrandedId.job(123456789)), KEYS.job(BrandedId.job(Long.MAX_VALUE)),
                KEYS.job(BrandedId.of("ZZZAzL8n0Y58m7")));
        int judged = 0;
        for (String row : rows) {
            byte[] key = Utf8.bytes(row);
            for (int at = key.length - BrandedId.LENGTH - 1; at < key.length; at++) {
                for (int b = 0; b < 256; b++) {
                    byte[] changed = key.clone();
                    changed[at] = (byte) b;
                    assertEquals(parsesAsRow(changed), ROWS.isRow(changed), new String(changed, StandardCharsets.ISO_8859_1));
                    judged++;
                }
            }
            byte[] longer = Utf8.bytes(row + "0");
            byte[] shorter = Utf8.bytes(row.substring(0, row.length() - 1));
            assertEquals(false, ROWS.isRow(longer));
            assertEquals(false, ROWS.isRow(shorter));
            assertEquals(false, ROWS.isRow(Utf8.bytes(Keys.queue("or.ders-2").job(BrandedId.job(1)))));
        }
        assertEquals(rows.size() * (BrandedId.LENGTH + 1) * 256, judged);
    }

    private static boolean parsesAsRow(byte[] key) {
        return KeyGrammar.parse(key) instanceof ParsedKey.QueueKey q && q.queue().equals("or.ders-1")
                && q.part() instanceof Part.Job job && job.sub().equals(Optional.empty());
    }
}
