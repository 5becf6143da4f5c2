package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonScan} decides as Jackson's parser does: random JSON-like texts (valid ones, then with
 * random edits) get the same answer from the scan (where it decides) as from Jackson, for "one JSON
 * value" and for the options read from a root object; and named edge cases give the expected answer.
 */
class JsonScanTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String[] NAMES = {"at", "pri", "del", "lifo", "attempts", "bo", "rep", "x", "é", "\\u0070ri", "",
        "pri\\n", "de\\\"l"};
    private static final String[] NUMBERS = {"0", "-0", "7", "-7", "01", "-01", "00", "1.5", "1.", ".5", "+1", "1e3", "1E+3",
        "1e-3", "1e", "1e+", "-", "7.9", "7.0", "-7.5", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "1e400", "-1e400", "0.0000001", "123456789012345678901234567890",
        "1.5e3", "2e18", "1e19", "NaN", "Infinity", "-Infinity", "0x10", "1_000"};
    private static final String[] SCALARS = {"\"a\"", "\"\\n\"", "\"\\x\"", "\"\\u00e9\"", "\"\\u12G4\"", "\"é😀\"",
        "\"\t\"", "\"\\/\"", "\"\\'\"", "'a'", "\"true\"", "\"7\"", "\"\"", "\"a", "true", "false", "null", "tru", "nul",
        "True", "NULL", "truex", "\"\u0001\"", "\"\u007f\""};
    private static final String[] SPACE = {"", "", "", " ", "\n", "\t", "\r", "  ", "\f", "/* */", "# ", "\u00a0"};
    private static final String EDITS = "{}[]\",:\\ tnfrule0123456789-+.eE/#x\t\n\u0000é'";

    @Test
    void decidesAsJacksonOnRandomTexts() {
        Random random = new Random(20261201);
        Map<JsonScan.Verdict, Integer> seen = new EnumMap<>(JsonScan.Verdict.class);
        for (int i = 0; i < 30_000; i++) {
            String text = space(random) + value(random, 0) + space(random);
            int edits = random.nextInt(4) == 0 ? 0 : random.nextInt(3);
            for (int e = 0; e < edits; e++) {
                text = edit(random, text);
            }
            if (random.nextInt(10) == 0) {
                text += random.nextBoolean() ? "x" : value(random, 3);
            }
            byte[] raw = text.getBytes(StandardCharsets.UTF_8);
            JsonScan.Verdict verdict = JsonScan.oneValue(raw);
            seen.merge(verdict, 1, Integer::sum);
            if (verdict != JsonScan.Verdict.UNDECIDED) {
                assertEquals(PayloadDigest.parsesAsOneValue(raw), verdict == JsonScan.Verdict.JSON, "one value: " + text);
            }
            assertEquals(PayloadDigest.parsesAsOneValue(raw), PayloadDigest.isJson(raw), "isJson: " + text);
            assertSameOptions(raw, "options: " + text);
        }
        assertTrue(seen.getOrDefault(JsonScan.Verdict.JSON, 0) > 3000, "valid texts: " + seen);
        assertTrue(seen.getOrDefault(JsonScan.Verdict.NOT_JSON, 0) > 3000, "invalid texts: " + seen);
        assertTrue(seen.getOrDefault(JsonScan.Verdict.UNDECIDED, 0) < 3000, "undecided: " + seen);
    }

    @Test
    void namedEdgeCases() {
        for (String json : new String[] {"0", "-0", "1.5e-3", "\"\"", "[]", "{}", " {\"a\" : [1, {\"b\": null}]} ", "\"é\"",
            "\"\\ud800\"", "[true]", "[false,null]", "\t\r\n7\n"}) {
            assertEquals(JsonScan.Verdict.JSON, JsonScan.oneValue(b(json)), json);
        }
        for (String bad : new String[] {"", " ", "01", "-", "1.", ".5", "+1", "1e", "[1,]", "{\"a\":1,}", "{a:1}", "'a'",
            "NaN", "[1 2]", "1 2", "{} {}", "truex", "true]", "\"\\x\"", "\"\t\"", "/**/1", "1 // c", "[\f]", "{\"a\"}",
            "\"a", "[", "{\"a\":}", "\u00a01"}) {
            assertEquals(JsonScan.Verdict.NOT_JSON, JsonScan.oneValue(b(bad)), bad);
            assertFalse(PayloadDigest.parsesAsOneValue(b(bad)), bad);
        }
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
        byte[] utf16 = {0, '{', 0, '}'};
        assertEquals(JsonScan.Verdict.UNDECIDED, JsonScan.oneValue(bom));
        assertEquals(JsonScan.Verdict.UNDECIDED, JsonScan.oneValue(utf16));
        assertFalse(PayloadDigest.isJson(bom), "a byte-order mark is no JSON in UTF-8 text (Jackson's byte parser skips it)");
        assertFalse(PayloadDigest.isJson(utf16), "NUL bytes are no JSON in UTF-8 text (Jackson's byte parser reads UTF-16)");
        assertFalse(PayloadDigest.isJson(new byte[] {'0', 0}), "NUL after a number (Jackson's byte parser reads UTF-16 \"0\")");
        assertEquals(JsonScan.Verdict.UNDECIDED, JsonScan.oneValue(b("[".repeat(300) + "]".repeat(300))));
        assertTrue(PayloadDigest.isJson(b("[".repeat(300) + "]".repeat(300))));
        assertFalse(PayloadDigest.isJson(b("[".repeat(1001) + "]".repeat(1001))), "deeper than Jackson reads");
        assertEquals(JsonScan.Verdict.UNDECIDED, JsonScan.oneValue(b("1".repeat(1001))));
        assertFalse(PayloadDigest.isJson(b("1".repeat(1001))), "longer than Jackson reads a number");
    }

    @Test
    void aLongStringDecidesAsJacksonWhateverByteStandsAtWhateverPlace() {
        byte[] specials = {'"', '\\', 0, 0x01, 0x1f, 0x20, 0x21, 0x7f, (byte) 0x80, (byte) 0xc3, (byte) 0xff, 'n', 'u'};
        for (int length = 0; length <= 26; length++) {
            for (int at = 0; at < Math.max(1, length); at++) {
                for (byte special : specials) {
                    byte[] text = new byte[length + 2];
                    java.util.Arrays.fill(text, (byte) 'x');
                    text[0] = '"';
                    text[length + 1] = '"';
                    if (length > 0) {
                        text[1 + at] = special;
                    }
                    for (byte[] raw : new byte[][] {text, b("[" + new String(text, StandardCharsets.ISO_8859_1) + ",1]")}) {
                        JsonScan.Verdict verdict = JsonScan.oneValue(raw);
                        String where = "length " + length + ", byte " + (special & 0xff) + " at " + at;
                        if (verdict != JsonScan.Verdict.UNDECIDED) {
                            assertEquals(PayloadDigest.parsesAsOneValue(raw), verdict == JsonScan.Verdict.JSON, where);
                        }
                        assertEquals(PayloadDigest.parsesAsOneValue(raw), PayloadDigest.isJson(raw), where);
                    }
                }
            }
        }
        assertEquals(JsonScan.Verdict.JSON, JsonScan.oneValue(b("\"" + "x".repeat(40) + "\\\"" + "y".repeat(9) + "\"")));
        assertEquals(JsonScan.Verdict.NOT_JSON, JsonScan.oneValue(b("\"" + "x".repeat(40) + "\"" + "y".repeat(9) + "\"")));
        assertEquals(JsonScan.Verdict.NOT_JSON, JsonScan.oneValue(b("\"" + "x".repeat(17) + "\u001f" + "y".repeat(9) + "\"")));
    }

    @Test
    void utf8IsDecidedAsTheDecoderDecidesWhateverByteStandsAtWhateverPlace() {
        java.nio.charset.CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder();
        byte[][] inserts = {{(byte) 0x80}, {(byte) 0xff}, {(byte) 0xc3, (byte) 0xa9}, {(byte) 0xc3}, {0x7f}, {0}};
        for (int length = 0; length <= 26; length++) {
            for (int at = 0; at <= length; at++) {
                for (byte[] insert : inserts) {
                    byte[] raw = new byte[length + insert.length];
                    java.util.Arrays.fill(raw, (byte) 'a');
                    System.arraycopy(insert, 0, raw, at, insert.length);
                    boolean decodes;
                    try {
                        decoder.decode(java.nio.ByteBuffer.wrap(raw));
                        decodes = true;
                    } catch (java.nio.charset.CharacterCodingException e) {
                        decodes = false;
                    }
                    assertEquals(decodes, Bytes.isUtf8(raw), "length " + raw.length + ", " + java.util.Arrays.toString(insert) + " at " + at);
                }
            }
        }
    }

    @Test
    void optionsAreTheTreesLastValues() {
        JobOptions o = JobOptions.of(b("{\"pri\":1,\"pri\":7,\"del\":2.9,\"lifo\":1} trailing bytes are not read"));
        assertTrue(o.elixir());
        assertEquals(7, o.pri());
        assertEquals(2, o.del());
        assertTrue(o.lifo());
        JobOptions escaped = JobOptions.of(b("{\"\\u0070ri\":5}"));
        assertEquals(5, escaped.pri(), "an escaped name is the name it spells");
        assertTrue(escaped.elixir());
        assertFalse(JobOptions.of(b("{\"attempts\":3,\"lifo\":\"yes\"}")).elixir());
        assertFalse(JobOptions.of(b("{\"attempts\":3,\"lifo\":\"yes\"}")).lifo());
        assertTrue(JobOptions.of(b("{\"lifo\":\" true \"}")).lifo());
        assertEquals(0, JobOptions.of(b("{\"pri\":99999999999999999999}")).pri());
        assertEquals(0, JobOptions.of(b("{\"pri\":7,\"x\":[}")).pri(), "broken text reads as no options");
        assertFalse(JobOptions.of(b("[{\"pri\":7}]")).elixir());
        assertFalse(JobOptions.of(null).elixir());
        for (String name : List.of("at", "pri", "del", "bo", "ro", "rof", "rep")) {
            assertTrue(JobOptions.of(b("{\"attempts\":3,\"" + name + "\":1}")).elixir(), name);
        }
        JobOptions node = JobOptions.of(b("{\"attempts\":3,\"delay\":5,\"priority\":2,\"backoff\":{\"type\":\"fixed\"},\"lifo\":true}"));
        assertFalse(node.elixir(), "delay, priority and backoff are not del, pri and bo");
        assertEquals(0, node.pri());
        assertEquals(0, node.del());
        assertTrue(node.lifo());
        assertEquals(3, JobOptions.of(b("{\"del\\u0061y\":0,\"\\u0064el\":3}")).del(), "an escape read as the name it spells");
    }

    private static void assertSameOptions(byte[] raw, String where) {
        JobOptions scanned = JobOptions.of(raw);
        JsonNode tree;
        try {
            tree = MAPPER.readTree(raw);
        } catch (java.io.IOException e) {
            tree = null;
        }
        if (tree == null || !tree.isObject()) {
            tree = MAPPER.createObjectNode();
        }
        JsonNode opts = tree;
        assertEquals(Set.of("at", "pri", "del", "bo", "ro", "rof", "rep").stream().anyMatch(opts::has), scanned.elixir(), where);
        assertEquals(number(opts.get("pri")), scanned.pri(), where);
        assertEquals(number(opts.get("del")), scanned.del(), where);
        assertEquals(opts.get("lifo") != null && opts.get("lifo").asBoolean(false), scanned.lifo(), where);
    }

    private static long number(JsonNode n) {
        return n != null && n.canConvertToLong() ? n.asLong() : 0;
    }

    private static String value(Random r, int depth) {
        int kind = r.nextInt(depth > 3 ? 2 : 4);
        if (kind == 0) {
            return NUMBERS[r.nextInt(NUMBERS.length)];
        }
        if (kind == 1) {
            return SCALARS[r.nextInt(SCALARS.length)];
        }
        StringBuilder out = new StringBuilder(kind == 2 ? "{" : "[");
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            out.append(i > 0 ? "," : "").append(space(r));
            if (kind == 2) {
                out.append('"').append(NAMES[r.nextInt(NAMES.length)]).append('"').append(space(r)).append(':').append(space(r));
            }
            out.append(value(r, depth + 1)).append(space(r));
        }
        return out.append(kind == 2 ? "}" : "]").toString();
    }

    private static String space(Random r) {
        return r.nextInt(8) == 0 ? SPACE[r.nextInt(SPACE.length)] : "";
    }

    private static String edit(Random r, String text) {
        int at = text.isEmpty() ? 0 : r.nextInt(text.length());
        String c = String.valueOf(EDITS.charAt(r.nextInt(EDITS.length())));
        return switch (r.nextInt(3)) {
            case 0 -> text.substring(0, at) + c + text.substring(at);
            case 1 -> text.isEmpty() ? text : text.substring(0, at) + text.substring(at + 1);
            default -> text.isEmpty() ? c : text.substring(0, at) + c + text.substring(at + 1);
        };
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
