package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Base62;
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
     * Whether {@code key} is the key of a row of this queue: the prefix, then a valid branded id (three
     * letters A-Z, then {@link Base62#WIDTH} base62 digits not above {@link Base62#MAX_BODY}, as
     * {@link BrandedId#parse} requires). False says nothing: the key is to be parsed.
     */
    boolean isRow(byte[] key) {
        if (key.length != prefix.length + BrandedId.LENGTH || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
            return false;
        }
        int body = prefix.length + 3;
        for (int i = prefix.length; i < body; i++) {
            if (key[i] < 'A' || key[i] > 'Z') {
                return false;
            }
        }
        int order = 0;
        for (int i = 0; i < Base62.WIDTH; i++) {
            char c = (char) key[body + i];
            if (Base62.digit(c) < 0) {
                return false;
            }
            order = order != 0 ? order : Character.compare(c, Base62.MAX_BODY.charAt(i));
        }
        return order <= 0;
    }
}
