package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EnvelopeTest {
    private static final Envelope.Provenance P = new Envelope.Provenance("orders", "id:1", "send", "1700000000000",
            "{\"attempts\":3}".getBytes(StandardCharsets.UTF_8));

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1}", "[1,2,{\"b\":[]}]", "42", "-1.5e3", "\"text\"", "true", "null",
        "{\"s\":\"caf\u00e9 \u2603 \\u0000\"}", " {\"a\":1}", "{\"a\":1}\n", "not json", "", "{\"a\":", "1 2",
        "line1\nline2\u0001\u007f"})
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
