package io.emq.migrate.payload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EnvelopeTest {
    private static final Envelope.Provenance P = new Envelope.Provenance("orders", b("id:1"), b("send"), b("1700000000000"),
            b("{\"attempts\":3}"));

    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode wrapped(byte[] name, byte[] opts) throws Exception {
        return new ObjectMapper().readTree(Envelope.wrap(b("{}"), new Envelope.Provenance("orders", b("7"), name, null, opts)));
    }

    /** What a reader of the envelope gets back for a field of v1 bytes, by its {@code <field>_encoding} flag. */
    private static byte[] recovered(JsonNode parent, String field) {
        String encoding = parent.path(field + "_encoding").asText("string");
        String text = parent.get(field).asText();
        return encoding.equals("base64") ? Base64.getDecoder().decode(text) : b(text);
    }

    @Test
    void dataAnEarlierReleaseSplicedAThousandLevelsDeepIsRecovered() {
        String deep = "[".repeat(1000) + "]".repeat(1000);
        byte[] written = b("{\"name\":\"n\",\"v1\":{\"queue\":\"bull:q\",\"id\":\"1\",\"timestamp\":\"1\",\"opts\":null},"
                + "\"encoding\":\"json\",\"data\":" + deep + "}");
        assertArrayEquals(b(deep), Envelope.recoverData(written).orElseThrow(), "a default reader stops at 1000 levels");
    }

    @Test
    void aNameThatIsNotUtf8IsKeptAsBase64WithAFlagAndAUtf8NameAsText() throws Exception {
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 's', 'e', 'n', 'd'};
        JsonNode node = wrapped(binary, null);
        assertEquals("base64", node.get("name_encoding").asText());
        assertArrayEquals(binary, recovered(node, "name"));
        JsonNode plain = wrapped(b("caf\u00e9"), null);
        assertEquals("caf\u00e9", plain.get("name").asText());
        assertFalse(plain.has("name_encoding"), "the common case carries no flag");
        byte[] escapedLookalike = b("\\xff\\xfe");
        assertArrayEquals(escapedLookalike, recovered(wrapped(escapedLookalike, null), "name"),
                "a name that reads like an escape is not mistaken for one");
    }

    @Test
    void optsThatAreNotJsonAreKeptExactlyAndSaySo() throws Exception {
        JsonNode json = wrapped(b("send"), b("{\"attempts\":3}")).get("v1");
        assertEquals(3, json.get("opts").get("attempts").asInt());
        assertFalse(json.has("opts_encoding"));
        JsonNode text = wrapped(b("send"), b("attempts=3, caf\u00e9")).get("v1");
        assertEquals("string", text.get("opts_encoding").asText());
        assertArrayEquals(b("attempts=3, caf\u00e9"), recovered(text, "opts"));
        JsonNode aJsonString = wrapped(b("send"), b("\"attempts=3\"")).get("v1");
        assertFalse(aJsonString.has("opts_encoding"), "opts that are a JSON string are spliced, and told apart by the flag");
        assertEquals("attempts=3", aJsonString.get("opts").asText());
        byte[] broken = {'{', (byte) 0xc3, '}'};
        JsonNode binary = wrapped(b("send"), broken).get("v1");
        assertEquals("base64", binary.get("opts_encoding").asText());
        assertArrayEquals(broken, recovered(binary, "opts"));
        assertTrue(wrapped(b("send"), null).get("v1").get("opts").isNull(), "no opts in the hash: null, not an empty string");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1}", "[1,2,{\"b\":[]}]", "42", "-1.5e3", "\"text\"", "true", "null",
        "{\"s\":\"caf\u00e9 \u2603 \\u0000\"}", " {\"a\":1}", "{\"a\":1}\n", "not json", "", "{\"a\":", "1 2",
        "line1\nline2\u0001\u007f", "0\u0000", "\u00000", "\u0000\u0000\u00001", "\ufeff{}", "{}\u0000"})
    void dataIsRecoveredByteForByte(String text) throws Exception {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        byte[] payload = Envelope.wrap(data, P);
        JsonNode node = new ObjectMapper().readTree(payload);
        assertEquals("send", node.get("name").asText());
        assertEquals("id:1", node.get("v1").get("id").asText());
        assertEquals(3, node.get("v1").get("opts").get("attempts").asInt());
        assertArrayEquals(data, Envelope.recoverData(payload).orElseThrow());
    }

    @Property(tries = 300)
    void anyBytesSurvive(@ForAll byte[] data) {
        assertArrayEquals(data, Envelope.recoverData(Envelope.wrap(data, P)).orElseThrow());
    }

    @Property(tries = 300)
    void anyTextSurvives(@ForAll String text) {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(data, Envelope.recoverData(Envelope.wrap(data, P)).orElseThrow());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1}", "plain"})
    void encodingFlagSaysHowDataWasStored(String text) throws Exception {
        JsonNode node = new ObjectMapper().readTree(Envelope.wrap(text.getBytes(StandardCharsets.UTF_8), P));
        assertEquals(text.startsWith("{") ? "json" : "string", node.get("encoding").asText());
        byte[] invalid = {(byte) 0xff, (byte) 0xfe, 'x'};
        JsonNode b64 = new ObjectMapper().readTree(Envelope.wrap(invalid, P));
        assertEquals("base64", b64.get("encoding").asText());
        assertTrue(Arrays.equals(invalid, Envelope.recoverData(Envelope.wrap(invalid, P)).orElseThrow()));
    }

    @Property(tries = 50)
    void aMebibyteBodySurvives(@ForAll byte seed) {
        byte[] big = new byte[1 << 20];
        Arrays.fill(big, (byte) ('a' + Math.floorMod(seed, 26)));
        big[0] = '"';
        big[big.length - 1] = '"';
        assertArrayEquals(big, Envelope.recoverData(Envelope.wrap(big, P)).orElseThrow());
    }
}
