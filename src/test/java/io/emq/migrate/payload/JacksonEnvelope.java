package io.emq.migrate.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.emq.migrate.v1.Bytes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The envelope as Jackson's generator wrote it before {@link Envelope#wrap} wrote its bytes directly
 * (main 8d4a132, unchanged): the reference the direct bytes must equal, byte for byte.
 */
final class JacksonEnvelope {
    private static final JsonFactory JSON = new JsonFactory();

    private JacksonEnvelope() {
    }

    static byte[] wrap(byte[] data, Envelope.Provenance p) {
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
            String encoding = Envelope.encodingOf(data);
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

    private static void writeText(JsonGenerator g, String field, byte[] bytes) throws IOException {
        if (bytes == null || Bytes.isUtf8(bytes)) {
            g.writeStringField(field, bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8));
        } else {
            g.writeStringField(field, Base64.getEncoder().encodeToString(bytes));
            g.writeStringField(field + "_encoding", "base64");
        }
    }

    private static void writeOpts(JsonGenerator g, ByteArrayOutputStream out, byte[] opts) throws IOException {
        g.writeFieldName("opts");
        if (opts == null) {
            g.writeNull();
            return;
        }
        String encoding = Envelope.encodingOf(opts);
        switch (encoding) {
            case "json" -> splice(g, out, opts);
            case "string" -> g.writeString(new String(opts, StandardCharsets.UTF_8));
            default -> g.writeString(Base64.getEncoder().encodeToString(opts));
        }
        if (!encoding.equals("json")) {
            g.writeStringField("opts_encoding", encoding);
        }
    }

    private static void splice(JsonGenerator g, ByteArrayOutputStream out, byte[] json) throws IOException {
        g.writeRawValue("");
        g.flush();
        out.write(json);
    }
}
