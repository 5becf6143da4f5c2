package io.emq.migrate.keyspace;

import java.time.Instant;

/**
 * A 14-byte branded id: a 3-letter namespace and an 11-digit base62 body holding a value below 2^63.
 * Bodies are fixed width over an ASCII-ascending alphabet, so within one namespace byte order is value order.
 */
public record BrandedId(String namespace, long value) implements Comparable<BrandedId> {
    public static final int LENGTH = 14;
    public static final String JOB = "JOB";

    public BrandedId {
        if (!validNamespace(namespace)) {
            throw new IllegalArgumentException("namespace must be three letters A-Z: " + namespace);
        }
        if (value < 0) {
            throw new IllegalArgumentException("branded id value must be in [0, 2^63): " + value);
        }
    }

    /** Why a text is not a branded id, in the order the checks run. */
    public enum Defect {
        LENGTH("must be exactly 14 bytes"),
        NAMESPACE("must start with three letters A-Z"),
        CHARSET("body must be 11 base62 characters [0-9A-Za-z]"),
        RANGE("body is above AzL8n0Y58m7 (2^63-1)");

        private final String reason;

        Defect(String reason) {
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }

    /** The outcome of parsing a text as a branded id. */
    public sealed interface Parsed permits Valid, Invalid {
    }

    public record Valid(BrandedId id) implements Parsed {
    }

    public record Invalid(String text, Defect defect) implements Parsed {
        public String reason() {
            return "bad branded id '" + text + "': " + defect.reason();
        }
    }

    public static BrandedId job(long value) {
        return new BrandedId(JOB, value);
    }

    /** Parses any text; never throws. */
    public static Parsed parse(CharSequence text) {
        String s = text.toString();
        Defect defect = defectOf(s);
        return defect != null ? new Invalid(s, defect) : new Valid(new BrandedId(s.substring(0, 3), Base62.decodeChecked(s.substring(3))));
    }

    /** Whether these bytes (a v1 job id) are a valid branded id of the {@link #JOB} namespace: one {@code --keep-branded-ids} keeps. */
    public static boolean isJobId(byte[] raw) {
        return parse(new String(raw, java.nio.charset.StandardCharsets.ISO_8859_1)) instanceof Valid v && v.id().namespace().equals(JOB);
    }

    /** Whether the text is a branded id ({@link #parse} finds no defect), building nothing. */
    public static boolean isValid(CharSequence text) {
        return defectOf(text) == null;
    }

    /** The first rule the text breaks, in {@link Defect}'s order, or null when it is a branded id. */
    private static Defect defectOf(CharSequence s) {
        if (s.length() != LENGTH) {
            return Defect.LENGTH;
        }
        if (!namespaceLetters(s)) {
            return Defect.NAMESPACE;
        }
        int order = 0; // the body against MAX_BODY: fixed width, so the first differing digit decides
        for (int i = 0; i < Base62.WIDTH; i++) {
            char c = s.charAt(3 + i);
            if (Base62.digit(c) < 0) {
                return Defect.CHARSET;
            }
            order = order != 0 ? order : Character.compare(c, Base62.MAX_BODY.charAt(i));
        }
        return order > 0 ? Defect.RANGE : null;
    }

    /** Parses text already known to be valid; throws IllegalArgumentException otherwise. */
    public static BrandedId of(CharSequence text) {
        Parsed parsed = parse(text);
        if (parsed instanceof Valid valid) {
            return valid.id();
        }
        throw new IllegalArgumentException(((Invalid) parsed).reason());
    }

    public static boolean validNamespace(String ns) {
        return ns != null && ns.length() == 3 && namespaceLetters(ns);
    }

    /** Whether the text's first three characters are letters A-Z. */
    private static boolean namespaceLetters(CharSequence s) {
        for (int i = 0; i < 3; i++) {
            char c = s.charAt(i);
            if (c < 'A' || c > 'Z') {
                return false;
            }
        }
        return true;
    }

    /** The wall-clock instant the Snowflake in this id was minted at (its high 41 bits). */
    public Instant mintTime() {
        return Snowflake.instantOf(value);
    }

    /** Placement hash: the first half of MurmurHash3 fmix64, low 32 bits. */
    public static long hash32(long value) {
        long h = value;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h & 0xFFFFFFFFL;
    }

    @Override
    public int compareTo(BrandedId other) {
        return toString().compareTo(other.toString());
    }

    @Override
    public String toString() {
        return namespace + Base62.encode(value);
    }
}
