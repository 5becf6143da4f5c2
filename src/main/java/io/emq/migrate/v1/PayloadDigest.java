package io.emq.migrate.v1;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Size, SHA-256 (32 raw bytes, null when not hashed; {@link #sha256()} in hex), JSON-ness and UTF-8-ness of a job's
 * raw {@code data} bytes; {@code examined}: whether the bytes were read (or there are none), so that {@code json},
 * {@code deep} and {@code utf8} mean anything. {@code deep}: not {@code json} only for nesting deeper than
 * {@value #SPLICED_DEPTH} levels.
 */
public record PayloadDigest(boolean present, long bytes, byte[] digest, boolean examined, boolean json, boolean deep, boolean utf8) {
    public static final PayloadDigest ABSENT = new PayloadDigest(false, -1, null, true, false, false, false);
    /**
     * The deepest JSON spliced into the envelope as it is: the envelope puts {@code v1.opts} two levels down, and
     * the whole must stay within the 1000 levels a JSON reader takes by default (Jackson's limit), or no consumer
     * with default settings could read the envelope at all. Deeper JSON is carried as a string.
     */
    static final int SPLICED_DEPTH = 998;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(SPLICED_DEPTH).build()).build();
    /** A JSON reader without a nesting limit (the envelope's reader too: it reads back what an earlier release spliced deeper). */
    public static final JsonFactory ANY_DEPTH = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(Integer.MAX_VALUE).build()).build();

    public static PayloadDigest of(byte[] data) {
        return examine(data, true);
    }

    /** As {@link #of}, without the SHA-256: the bytes checked for UTF-8 and JSON, not hashed. */
    public static PayloadDigest checked(byte[] data) {
        return examine(data, false);
    }

    private static PayloadDigest examine(byte[] data, boolean hash) {
        if (data == null) {
            return ABSENT;
        }
        boolean utf8 = Bytes.isUtf8(data);
        boolean json = utf8 && isJson(data);
        return new PayloadDigest(true, data.length, hash ? sha256Bytes(data) : null, true, json, utf8 && !json && nestsTooDeep(data), utf8);
    }

    /**
     * Why a field's bytes are carried as a string or base64 rather than spliced as JSON (not {@link #isJson}), for a
     * plan's anomaly: {@code deep} when they are JSON nested deeper than {@value #SPLICED_DEPTH} levels ({@link #nestsTooDeep}).
     */
    static String whyNotSpliced(String field, long bytes, boolean deep, boolean utf8) {
        return field + " (" + bytes + " bytes) " + (deep ? "is JSON nested deeper than " + SPLICED_DEPTH + " levels, more than the"
                + " envelope splices (a JSON reader takes 1000 by default): carried as a JSON string, its bytes intact"
                : "is not JSON" + (utf8 ? "" : " and not UTF-8"));
    }

    /** Whether UTF-8 bytes that are not {@link #isJson} are one JSON value when nesting is not limited. */
    static boolean nestsTooDeep(byte[] data) {
        return parsesAsOneValue(ANY_DEPTH, data);
    }

    /** A payload whose length is known but whose bytes were not read: no digest, JSON-ness unknown. */
    public static PayloadDigest measured(long bytes) {
        return new PayloadDigest(true, bytes, null, false, false, false, false);
    }

    /** The hex SHA-256 ({@code ""} when absent). */
    public String sha256() {
        return digest == null ? "" : hex(digest, 0);
    }

    public static String sha256(byte[] data) {
        return hex(sha256Bytes(data), 0);
    }

    /** The 32 bytes of a SHA-256 at {@code from}, in lower-case hex (what {@code HexFormat} writes, without its builder). */
    static String hex(byte[] digests, int from) {
        byte[] out = new byte[64];
        for (int i = 0; i < 32; i++) {
            int b = digests[from + i];
            out[2 * i] = HEX_DIGITS[(b >> 4) & 0xF];
            out[2 * i + 1] = HEX_DIGITS[b & 0xF];
        }
        return new String(out, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

    public static byte[] sha256Bytes(byte[] data) {
        return SHA256.get().digest(data);
    }

    /** One digest per thread: looking the algorithm up costs more than hashing a small payload. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    });

    /**
     * Exactly one JSON value (of any kind), nothing after it: as Jackson's parser decides, asked only
     * for what {@link JsonScan} leaves undecided.
     */
    public static boolean isJson(byte[] data) {
        return switch (JsonScan.oneValue(data)) {
            case JSON -> true;
            case NOT_JSON -> false;
            case UNDECIDED -> Bytes.isUtf8(data) && parsesAsOneValue(data);
        };
    }

    /**
     * Whether Jackson reads the bytes, decoded as UTF-8 (malformed UTF-8 is not), as one JSON value: never as
     * UTF-16 or UTF-32, which Jackson's byte parser guesses from NUL bytes among the first four, and never
     * skipping a byte-order mark, and nested at most {@value #SPLICED_DEPTH} levels. JSON data is spliced into the
     * envelope's own UTF-8 text, where only UTF-8 JSON survives byte for byte.
     */
    static boolean parsesAsOneValue(byte[] data) {
        return parsesAsOneValue(JSON, data);
    }

    private static boolean parsesAsOneValue(JsonFactory json, byte[] data) {
        try (JsonParser p = json.createParser(new InputStreamReader(new ByteArrayInputStream(data), StandardCharsets.UTF_8.newDecoder()))) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }
}
