package io.emq.migrate.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.PayloadDigest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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
    private static final JsonFactory JSON = new JsonFactory();

    private Envelope() {
    }

    /** The v1 facts the envelope carries besides the data, as bytes; a null field was absent from the hash. */
    public record Provenance(String queue, byte[] v1Id, byte[] name, byte[] timestamp, byte[] opts) {
    }

    public static byte[] wrap(byte[] data, Provenance p) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length + 256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            writeText(g, "name", p.name());
            g.writeObjectFieldStart("v1");
            g.writeStringField("queue", p.queue());
            writeText(g, "id", p.v1Id());
            writeText(g, "timestamp", p.timestamp());
            writeOpts(g, out, p.opts());
            g.writeEndObject();
            String encoding = encodingOf(data);
            g.writeStringField("encoding", encoding);
            g.writeFieldName("data");
            switch (encoding) {
                case "json" -> splice(g, out, data);
                case "string" -> g.writeString(new String(data, StandardCharsets.UTF_8));
                default -> g.writeString(Base64.getEncoder().encodeToString(data));
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** A field of v1 bytes: a JSON string when they are UTF-8 ("" when absent), else base64 flagged by {@code <field>_encoding}. */
    private static void writeText(JsonGenerator g, String field, byte[] bytes) throws IOException {
        if (bytes == null || Bytes.isUtf8(bytes)) {
            g.writeStringField(field, bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8));
        } else {
            g.writeStringField(field, Base64.getEncoder().encodeToString(bytes));
            g.writeStringField(field + "_encoding", "base64");
        }
    }

    /** v1 opts: spliced when JSON, else a string or base64 flagged by {@code opts_encoding}; null when absent. */
    private static void writeOpts(JsonGenerator g, ByteArrayOutputStream out, byte[] opts) throws IOException {
        g.writeFieldName("opts");
        if (opts == null) {
            g.writeNull();
            return;
        }
        String encoding = encodingOf(opts);
        switch (encoding) {
            case "json" -> splice(g, out, opts);
            case "string" -> g.writeString(new String(opts, StandardCharsets.UTF_8));
            default -> g.writeString(Base64.getEncoder().encodeToString(opts));
        }
        if (!encoding.equals("json")) {
            g.writeStringField("opts_encoding", encoding);
        }
    }

    /** Writes raw JSON bytes as the next value, straight into the output (no detour through a String). */
    private static void splice(JsonGenerator g, ByteArrayOutputStream out, byte[] json) throws IOException {
        g.writeRawValue(""); // the separator before the value
        g.flush();
        out.write(json);
    }

    /** The exact v1 data bytes of an envelope, or empty when the payload is not an envelope. */
    public static Optional<byte[]> recoverData(byte[] payload) {
        try (JsonParser p = JSON.createParser(payload)) {
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
        boolean utf8 = Bytes.isUtf8(data);
        if (PayloadDigest.isJson(data) && !isJsonWhitespace(data[0]) && !isJsonWhitespace(data[data.length - 1])) {
            return "json";
        }
        return utf8 ? "string" : "base64";
    }

    private static boolean isJsonWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }
}
