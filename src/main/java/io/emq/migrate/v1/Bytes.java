package io.emq.migrate.v1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable byte string with value semantics: v1 keys, ids, queue names and payloads are
 * arbitrary bytes, so they are held as bytes and only rendered as text for reports.
 */
public final class Bytes implements Comparable<Bytes> {
    private static final byte[] EMPTY = new byte[0];
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** A byte of 0x01, and of 0x80, in each of a word's eight places. */
    static final long ONES = 0x0101010101010101L;
    static final long HIGHS = 0x8080808080808080L;
    private final byte[] value;
    private int hash; // 0 until first used, as String does (most byte strings, payloads included, are never hashed)

    private Bytes(byte[] value) {
        this.value = value;
    }

    public static Bytes of(byte[] value) {
        return new Bytes(value == null ? EMPTY : value.clone());
    }

    /** {@code fresh} itself, not a copy: for an array nothing else holds or changes (a reply just read). */
    static Bytes adopt(byte[] fresh) {
        return new Bytes(fresh);
    }

    public static Bytes utf8(String text) {
        return new Bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The bytes themselves (a copy). */
    public byte[] toArray() {
        return value.clone();
    }

    public int length() {
        return value.length;
    }

    public boolean isEmpty() {
        return value.length == 0;
    }

    public Bytes concat(Bytes other) {
        byte[] out = Arrays.copyOf(value, value.length + other.value.length);
        System.arraycopy(other.value, 0, out, value.length, other.value.length);
        return new Bytes(out);
    }

    public Bytes concat(String text) {
        return concat(utf8(text));
    }

    public boolean startsWith(Bytes prefix) {
        return value.length >= prefix.value.length
                && Arrays.equals(value, 0, prefix.value.length, prefix.value, 0, prefix.value.length);
    }

    public boolean endsWith(Bytes suffix) {
        int from = value.length - suffix.value.length;
        if (from < 0 || (from < value.length && value[value.length - 1] != suffix.value[suffix.value.length - 1])) {
            return false; // the last byte first: most keys differ there (a job id against a structure's suffix)
        }
        return Arrays.equals(value, from, value.length, suffix.value, 0, suffix.value.length);
    }

    public Bytes slice(int from, int to) {
        return new Bytes(Arrays.copyOfRange(value, from, to));
    }

    public Bytes dropPrefix(Bytes prefix) {
        return slice(prefix.value.length, value.length);
    }

    public Bytes dropSuffix(Bytes suffix) {
        return slice(0, value.length - suffix.value.length);
    }

    /** True when the bytes are well-formed UTF-8. */
    public boolean isUtf8() {
        return isUtf8(value);
    }

    /** True when the bytes are a decimal number as an INCR counter writes it: ASCII digits, no leading zero. */
    public boolean isCounterValue() {
        if (value.length == 0 || (value[0] == '0' && value.length > 1)) {
            return false;
        }
        for (byte b : value) {
            if (b < '0' || b > '9') {
                return false;
            }
        }
        return true;
    }

    /** True when the bytes are well-formed UTF-8 (ASCII, the common case, is checked eight bytes at a time, without a decoder). */
    public static boolean isUtf8(byte[] bytes) {
        int i = 0;
        while (i + Long.BYTES <= bytes.length && (word(bytes, i) & HIGHS) == 0) {
            i += Long.BYTES;
        }
        while (i < bytes.length && bytes[i] >= 0) {
            i++;
        }
        if (i == bytes.length) {
            return true;
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** The eight bytes at {@code at} as one word, the first byte lowest ({@code at + 8} must not pass the end). */
    static long word(byte[] bytes, int at) {
        return (long) WORDS.get(bytes, at);
    }

    /** Text for reports: the UTF-8 string when well-formed, else a {@code \xNN}-escaped rendering. */
    public String display() {
        if (isUtf8()) {
            return new String(value, StandardCharsets.UTF_8);
        }
        StringBuilder out = new StringBuilder();
        for (byte b : value) {
            int c = b & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02x", c));
            }
        }
        return out.toString();
    }

    /** The bytes as a Java string, lossless only for UTF-8 input (use for names known to be text). */
    public String utf8() {
        return new String(value, StandardCharsets.UTF_8);
    }

    /** The backing array without a copy, for hashing and I/O; callers must not modify it. */
    public byte[] raw() {
        return value;
    }

    @Override
    public int compareTo(Bytes o) {
        return Arrays.compareUnsigned(value, o.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes b && hashCode() == b.hashCode() && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Arrays.hashCode(value);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return display();
    }
}
