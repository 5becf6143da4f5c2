package io.emq.migrate.keyspace;

/** Fixed-width base62 over the ASCII-ascending alphabet, so byte order equals numeric order. */
public final class Base62 {
    public static final String ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    /** Width of a branded id body. */
    public static final int WIDTH = 11;
    /** The body of 2^63-1, the largest legal body; fixed width makes a lexical compare a numeric one. */
    public static final String MAX_BODY = "AzL8n0Y58m7";

    private Base62() {
    }

    /** Encodes a non-negative value as exactly {@link #WIDTH} digits, left-padded with '0'. */
    public static String encode(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("base62 value must be non-negative: " + value);
        }
        char[] out = new char[WIDTH];
        long rest = value;
        for (int i = WIDTH - 1; i >= 0; i--) {
            out[i] = ALPHABET.charAt((int) (rest % 62));
            rest /= 62;
        }
        return new String(out);
    }

    /** Index of a digit in the alphabet, or -1 when the character is not a base62 digit. */
    public static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'Z') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 36;
        }
        return -1;
    }

    /** Decodes a body already known to be {@link #WIDTH} alphabet characters not above {@link #MAX_BODY}. */
    static long decodeChecked(CharSequence body) {
        long value = 0;
        for (int i = 0; i < body.length(); i++) {
            value = value * 62 + digit(body.charAt(i));
        }
        return value;
    }
}
