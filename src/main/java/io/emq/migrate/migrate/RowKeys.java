package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.Keys;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys of one queue's job rows as bytes ({@code emq:{q}:job:<branded id>}), for {@link Verifier}:
 * builds a row's key, and tells from its bytes alone whether a key is a row's key as {@link KeyGrammar}
 * would parse it (a queue key of this queue whose part is a job without a subkey), so the key check
 * parses only the queue's other keys.
 */
final class RowKeys {
    private final byte[] prefix;

    RowKeys(Keys keys) {
        String row = keys.job(BrandedId.job(0));
        this.prefix = Utf8.bytes(row.substring(0, row.length() - BrandedId.LENGTH));
    }

    /** The key of this row. */
    byte[] of(BrandedId id) {
        byte[] key = Arrays.copyOf(prefix, prefix.length + BrandedId.LENGTH);
        byte[] text = id.toString().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, key, prefix.length, BrandedId.LENGTH);
        return key;
    }

    /**
     * Whether {@code key} is the key of a row of this queue: the prefix, then a branded id as
     * {@link BrandedId#isValid} judges it (read over the key's bytes, one character a byte). False says
     * nothing: the key is to be parsed.
     */
    boolean isRow(byte[] key) {
        return key.length == prefix.length + BrandedId.LENGTH && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)
                && BrandedId.isValid(new ByteChars(key, prefix.length));
    }

    /** The bytes of {@code bytes} from {@code from} on as characters, one a byte (ISO-8859-1), copied only by {@link #toString}. */
    private record ByteChars(byte[] bytes, int from) implements CharSequence {
        @Override
        public int length() {
            return bytes.length - from;
        }

        @Override
        public char charAt(int index) {
            return (char) (bytes[from + index] & 0xff);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().substring(start, end);
        }

        @Override
        public String toString() {
            return new String(bytes, from, length(), StandardCharsets.ISO_8859_1);
        }
    }
}
