package io.emq.migrate.payload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Envelope#wrap} writes the very bytes Jackson's generator wrote ({@link JacksonEnvelope}): on every
 * job hash of the recorded v1 keyspaces, on odd inputs (every control character, escapes, unicode in one to
 * four bytes, huge numbers, nested JSON, bytes that are not UTF-8) and on arbitrary bytes and text.
 */
class EnvelopeBytesTest {
    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void same(byte[] data, Envelope.Provenance p) {
        byte[] expected = JacksonEnvelope.wrap(data, p);
        byte[] wrapped = Envelope.wrap(data, p);
        assertArrayEquals(expected, wrapped, () -> "expected " + Bytes.of(expected).display() + "\n but was " + Bytes.of(wrapped).display());
    }

    /** Each value in every place of the envelope: the data, the name, the id, the timestamp, the opts. */
    private static void sameInEveryPlace(byte[] value) {
        same(value, new Envelope.Provenance("bull:q", b("1"), b("send"), b("1700000000000"), b("{}")));
        same(b("{}"), new Envelope.Provenance("bull:q", value, value, value, value));
        same(value, new Envelope.Provenance("bull:q", b("1"), null, null, null));
    }

    private static final List<String> ODD_TEXT = List.of("", " ", "\"", "\\", "\\\"", "/", "\u007f", "caf\u00e9", "\u20ac",
            "\ud83d\ude00 emoji", "\u2028\u2029", "\ufeff{}", "tab\there\nnew\rline\bback\fform", "{\"a\":[1,2,{\"b\":null}]}",
            " {\"a\":1}", "{\"a\":1} ", "123456789012345678901234567890123456789", "-1.5e+308", "1e999", "\"a json string\"",
            "true", "null", "[]", "{\"k\":\"\\u0000\\ud83d\\ude00\"}", "{\"a\":1}{\"b\":2}", "{\"a\":", "not json at all",
            "\u0000{}", "{}\u0000");

    @Test
    void oddTextIsWrittenAsJacksonWroteIt() {
        ODD_TEXT.forEach(text -> sameInEveryPlace(b(text)));
    }

    @Test
    void everyByteAloneAndInTextIsWrittenAsJacksonWroteIt() {
        for (int c = 0; c < 256; c++) {
            sameInEveryPlace(new byte[] {(byte) c});
            sameInEveryPlace(new byte[] {'a', (byte) c, 'z'});
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ff fe 73", "c0 80", "ed a0 80", "f4 90 80 80", "e2 82", "80", "c3 a9 ff"})
    void bytesThatAreNotUtf8AreWrittenAsJacksonWroteThem(String hex) {
        String[] parts = hex.split(" ");
        byte[] bytes = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            bytes[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        sameInEveryPlace(bytes);
    }

    @Test
    void queueNamesAreWrittenAsJacksonWroteThem() {
        for (String queue : List.of("bull:orders", "bull:caf\u00e9", "b\"u\\ll:q\u0001", "bull:\\xff\\xfe")) {
            same(b("{}"), new Envelope.Provenance(queue, b("1"), b("n"), null, null));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "elixir-v1", "legacy-and-foreign", "node-large-payload"})
    void everyJobOfTheRecordedKeyspacesIsWrittenAsJacksonWroteIt(String name) {
        Fixture fixture = FixtureLoader.resource(name);
        int hashes = 0;
        for (FixtureKey key : fixture.keys()) {
            if (key.value() instanceof KeyValue.HashValue hash) {
                Function<String, byte[]> field = f -> hash.fields().stream().filter(x -> x.name().equals(Bytes.utf8(f)))
                        .findFirst().map(x -> x.value().raw()).orElse(null);
                byte[] data = field.apply("data");
                same(data == null ? new byte[0] : data, new Envelope.Provenance("bull:q", key.key().raw(), field.apply("name"),
                        field.apply("timestamp"), field.apply("opts")));
                hash.fields().forEach(f -> sameInEveryPlace(f.value().raw()));
                hashes++;
            }
        }
        assertTrue(hashes > 0, "the keyspace has hashes");
    }

    @Property(tries = 500)
    void anyBytesAreWrittenAsJacksonWroteThem(@ForAll byte[] bytes) {
        sameInEveryPlace(bytes);
    }

    @Property(tries = 500)
    void anyTextIsWrittenAsJacksonWroteIt(@ForAll String text) {
        sameInEveryPlace(b(text));
        List<String> quoted = new ArrayList<>(List.of("{\"t\":\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}"));
        quoted.forEach(json -> sameInEveryPlace(b(json)));
    }
}
