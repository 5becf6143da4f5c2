package io.emq.migrate.migrate;

import java.nio.charset.StandardCharsets;

/** Text as the bytes the wire carries; the migration's one encoder (replies decode with {@code Replies.asText}). */
final class Utf8 {
    private Utf8() {
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
