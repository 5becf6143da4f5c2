package io.emq.migrate.payload;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.PayloadDigest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * The {@code envelope} payload: {@code {"name":…,"v1":{"queue","id","timestamp","opts"},"encoding":…,"data":…}}.
 * {@code data} is the v1 bytes spliced raw when they are one valid JSON value ({@code encoding: json}),
 * a JSON string when they are UTF-8 text that is not JSON ({@code string}), or base64 otherwise
 * ({@code base64}). {@link #recoverData} gives back the exact v1 bytes in every case.
 * The other v1 bytes stay recoverable too: {@code name}, {@code v1.id} and {@code v1.timestamp} are
 * JSON strings when they are UTF-8, else base64 with a sibling {@code <field>_encoding: base64};
 * {@code v1.opts} is spliced raw when it is JSON (as {@code data}), else a string or base64 with
 * {@code opts_encoding} saying which, and {@code null} when the hash has no opts.
 */
public final class Envelope {
    private Envelope() {
    }

    /** The v1 facts the envelope carries besides the data, as bytes; a null field was absent from the hash. */
    public record Provenance(String queue, byte[] v1Id, byte[] name, byte[] timestamp, byte[] opts) {
    }

    /** The envelope of these v1 data bytes and facts, as bytes (written directly: {@link JsonBytes}). */
    public static byte[] wrap(byte[] data, Provenance p) {
        JsonBytes out = new JsonBytes(data.length + 256);
        out.raw(OPEN_NAME);
        text(out, NAME_ENCODING, p.name());
        out.raw(V1_QUEUE).string(p.queue().getBytes(StandardCharsets.UTF_8));
        out.raw(ID);
        text(out, ID_ENCODING, p.v1Id());
        out.raw(TIMESTAMP);
        text(out, TIMESTAMP_ENCODING, p.timestamp());
        opts(out, p.opts());
        String encoding = encodingOf(data);
        out.raw(ENCODING).string(encoding.getBytes(StandardCharsets.US_ASCII)).raw(DATA);
        value(out, encoding, data);
        return out.raw(CLOSE).toArray();
    }

    private static final byte[] OPEN_NAME = ascii("{\"name\":");
    private static final byte[] NAME_ENCODING = ascii(",\"name_encoding\":\"base64\"");
    private static final byte[] V1_QUEUE = ascii(",\"v1\":{\"queue\":");
    private static final byte[] ID = ascii(",\"id\":");
    private static final byte[] ID_ENCODING = ascii(",\"id_encoding\":\"base64\"");
    private static final byte[] TIMESTAMP = ascii(",\"timestamp\":");
    private static final byte[] TIMESTAMP_ENCODING = ascii(",\"timestamp_encoding\":\"base64\"");
    private static final byte[] OPTS = ascii(",\"opts\":");
    private static final byte[] NULL = ascii("null");
    private static final byte[] OPTS_ENCODING = ascii(",\"opts_encoding\":");
    private static final byte[] ENCODING = ascii("},\"encoding\":");
    private static final byte[] DATA = ascii(",\"data\":");
    private static final byte[] CLOSE = ascii("}");
    private static final byte[] EMPTY = new byte[0];

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A field's value of v1 bytes: a JSON string when they are UTF-8 ("" when absent), else base64 followed by
     * {@code flag}, the field's {@code <field>_encoding: base64}.
     */
    private static void text(JsonBytes out, byte[] flag, byte[] bytes) {
        if (bytes == null || Bytes.isUtf8(bytes)) {
            out.string(bytes == null ? EMPTY : bytes);
        } else {
            out.string(base64(bytes)).raw(flag);
        }
    }

    /** v1 opts: spliced when JSON, else a string or base64 flagged by {@code opts_encoding}; null when absent. */
    private static void opts(JsonBytes out, byte[] opts) {
        out.raw(OPTS);
        if (opts == null) {
            out.raw(NULL);
            return;
        }
        String encoding = encodingOf(opts);
        value(out, encoding, opts);
        if (!encoding.equals("json")) {
            out.raw(OPTS_ENCODING).string(encoding.getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** v1 bytes in their encoding: JSON spliced as it is, UTF-8 text as a JSON string, anything else as base64. */
    private static void value(JsonBytes out, String encoding, byte[] bytes) {
        switch (encoding) {
            case "json" -> out.raw(bytes);
            case "string" -> out.string(bytes);
            default -> out.string(base64(bytes));
        }
    }

    private static byte[] base64(byte[] bytes) {
        return Base64.getEncoder().encode(bytes);
    }

    /** The exact v1 data bytes of an envelope, or empty when the payload is not an envelope. */
    public static Optional<byte[]> recoverData(byte[] payload) {
        // at any depth: an earlier release spliced data up to 1000 levels, past a default reader's limit once in the envelope
        try (JsonParser p = PayloadDigest.ANY_DEPTH.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            String encoding = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("encoding")) {
                    encoding = p.getText();
                } else if (field.equals("data") && encoding != null) {
                    if (encoding.equals("json")) {
                        int start = (int) p.currentTokenLocation().getByteOffset();
                        boolean container = value.isStructStart();
                        p.skipChildren();
                        p.getText(); // completes a lazily read scalar, so the location is past its end
                        int end = container ? (int) p.currentTokenLocation().getByteOffset() + 1
                                : (int) p.currentLocation().getByteOffset();
                        return Optional.of(Arrays.copyOfRange(payload, start, end));
                    }
                    if (value != JsonToken.VALUE_STRING) {
                        return Optional.empty();
                    }
                    return Optional.of(encoding.equals("string") ? p.getText().getBytes(StandardCharsets.UTF_8)
                            : Base64.getDecoder().decode(p.getText()));
                } else {
                    p.skipChildren();
                }
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** json only for strict UTF-8 JSON without edge whitespace, so the raw slice is exactly the bytes. */
    static String encodingOf(byte[] data) {
        if (PayloadDigest.isJson(data) && !isJsonWhitespace(data[0]) && !isJsonWhitespace(data[data.length - 1])) {
            return "json"; // JSON is UTF-8 (PayloadDigest.isJson checks it)
        }
        return Bytes.isUtf8(data) ? "string" : "base64";
    }

    private static boolean isJsonWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }
}
