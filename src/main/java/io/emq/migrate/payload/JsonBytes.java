package io.emq.migrate.payload;

import java.util.Arrays;

/**
 * JSON text built as bytes, as Jackson's UTF-8 generator writes it with its default features (what the
 * envelope was written with before): strings are UTF-8, escaping {@code "}, {@code \}, the control
 * characters below 0x20 ({@code \b \t \n \f \r} short, the others as a backslash, {@code u00} and two
 * upper-case hex digits) and each code point past U+FFFF (as its two UTF-16 surrogates, each a backslash,
 * {@code u} and four upper-case hex digits); other UTF-8 is copied as it is.
 */
final class JsonBytes {
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};
    /** For each byte below 0x80: 0 when it is written as it is, else the letter after its backslash ('u' for the four-digit form). */
    private static final byte[] ESCAPES = new byte[128];

    static {
        for (int c = 0; c < 0x20; c++) {
            ESCAPES[c] = 'u';
        }
        ESCAPES['\b'] = 'b';
        ESCAPES['\t'] = 't';
        ESCAPES['\n'] = 'n';
        ESCAPES['\f'] = 'f';
        ESCAPES['\r'] = 'r';
        ESCAPES['"'] = '"';
        ESCAPES['\\'] = '\\';
    }

    private byte[] out;
    private int size;

    JsonBytes(int capacity) {
        out = new byte[capacity];
    }

    /** Appends these bytes as they are (JSON punctuation, a field name known to need no escape, a raw JSON value). */
    JsonBytes raw(byte[] bytes) {
        room(bytes.length);
        System.arraycopy(bytes, 0, out, size, bytes.length);
        size += bytes.length;
        return this;
    }

    /** Appends a JSON string of well-formed UTF-8 bytes (or ASCII, such as base64), quoted and escaped. */
    JsonBytes string(byte[] utf8) {
        room(utf8.length + 2);
        out[size++] = '"';
        for (int i = 0; i < utf8.length; i++) {
            byte b = utf8[i];
            byte escape = b >= 0 ? ESCAPES[b] : 0;
            if ((b & 0xf8) == 0xf0) { // the lead byte of four: a code point past U+FFFF
                int codePoint = (b & 0x07) << 18 | (utf8[i + 1] & 0x3f) << 12 | (utf8[i + 2] & 0x3f) << 6 | (utf8[i + 3] & 0x3f);
                unicode(Character.highSurrogate(codePoint));
                unicode(Character.lowSurrogate(codePoint));
                i += 3;
            } else if (escape == 0) {
                room(1);
                out[size++] = b;
            } else if (escape == 'u') {
                unicode((char) b);
            } else {
                room(2);
                out[size++] = '\\';
                out[size++] = escape;
            }
        }
        room(1);
        out[size++] = '"';
        return this;
    }

    /** {@code \\u} and the char's four upper-case hex digits. */
    private void unicode(char c) {
        room(6);
        out[size++] = '\\';
        out[size++] = 'u';
        out[size++] = HEX[c >> 12];
        out[size++] = HEX[(c >> 8) & 0xf];
        out[size++] = HEX[(c >> 4) & 0xf];
        out[size++] = HEX[c & 0xf];
    }

    /** The text written. */
    byte[] toArray() {
        return Arrays.copyOf(out, size);
    }

    private void room(int more) {
        if (size + more > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, size + more));
        }
    }
}
