package io.emq.migrate.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * One versioned step, {@code migrations/V<n>__<what>.json}: an action, the v1 states it reads, and
 * the Lua scripts it runs. Its checksum is a CRC32 over the lines of the step file and then of each
 * script it names, line endings excluded (as Flyway does), so an edit to either fails validation.
 */
public record StepDefinition(int version, String description, String fileName, String action, String summary,
                             List<String> states, List<String> scripts, int checksum) {

    static final Pattern FILE_NAME = Pattern.compile("V(\\d+)__([A-Za-z0-9_]+)\\.json");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Loads a step from the classpath folder {@code migrations/}. */
    static StepDefinition load(String fileName) {
        Matcher m = FILE_NAME.matcher(fileName);
        if (!m.matches()) {
            throw new IllegalStateException("step file '" + fileName + "' is not named V<n>__<what>.json");
        }
        byte[] body = resource("migrations/" + fileName);
        try {
            JsonNode node = JSON.readTree(body);
            List<String> states = strings(node.get("states"));
            List<String> scripts = strings(node.get("scripts"));
            CRC32 crc = new CRC32();
            updateByLines(crc, body);
            for (String script : scripts) {
                updateByLines(crc, resource("lua/" + script));
            }
            return new StepDefinition(Integer.parseInt(m.group(1)), m.group(2).replace('_', ' '), fileName,
                    node.path("action").asText(), node.path("summary").asText(), states, scripts, (int) crc.getValue());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read step " + fileName, e);
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null) {
            array.forEach(n -> out.add(n.asText()));
        }
        return List.copyOf(out);
    }

    /** Feeds each line's bytes, without its terminator (LF, CRLF or CR), into the checksum. */
    static void updateByLines(CRC32 crc, byte[] bytes) throws IOException {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(
                new java.io.ByteArrayInputStream(bytes), StandardCharsets.UTF_8))) {
            String line;
            boolean first = true;
            while ((line = reader.readLine()) != null) {
                if (first && line.startsWith("\uFEFF")) {
                    line = line.substring(1);
                }
                first = false;
                crc.update(line.getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    static byte[] resource(String path) {
        try (InputStream in = StepDefinition.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing from the classpath: " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
