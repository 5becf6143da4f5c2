package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A payload is the one written exactly when its SHA-1 hex is the one recorded: every digit of the
 * recorded hex changed to each other hex digit, the hex in upper case, one digit short or long, and
 * none recorded, each refused.
 */
class ExpectationTest {
    @Test
    void aPayloadIsTheOneWrittenExactlyWhenItsSha1HexIsTheOneRecorded() {
        for (byte[] payload : List.of(new byte[0], Utf8.bytes("{\"v1\":1}"), new byte[] {(byte) 0xff, 0, (byte) 0x80})) {
            String sha1 = Expectation.payloadSha1(payload);
            assertTrue(expecting(sha1).payloadIs(payload));
            int refused = 0;
            for (int at = 0; at < sha1.length(); at++) {
                for (char digit : "0123456789abcdefABCDEF".toCharArray()) {
                    String changed = sha1.substring(0, at) + digit + sha1.substring(at + 1);
                    assertEquals(changed.equals(sha1), expecting(changed).payloadIs(payload), changed);
                    refused += changed.equals(sha1) ? 0 : 1;
                }
            }
            assertEquals(40 * 21, refused);
            for (String other : List.of(sha1.toUpperCase(Locale.ROOT), sha1.substring(1), sha1 + "0", "")) {
                assertEquals(other.equals(sha1), expecting(other).payloadIs(payload), other);
            }
            assertFalse(expecting(sha1).payloadIs(Utf8.bytes("other")));
        }
    }

    private static Expectation expecting(String payloadSha1) {
        return new Expectation("pending", 0, "", "", payloadSha1, -1);
    }
}
