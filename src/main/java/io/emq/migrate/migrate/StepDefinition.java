package io.emq.migrate.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.Script;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * One versioned step: its file {@code migrations/V<n>__<what>.json} and the class it names. The file
 * says what the step is — the class that {@code runs} it, a {@code summary}, the v1 states it
 * {@code takes}, whether it {@code moves} jobs (its counts are the jobs moved) and whether it
 * {@code destroys} v1 data (so {@code --no-retire} stops before it), and the migration {@code scripts}
 * it runs ({@code StepFilesTest} checks them against the scripts the class really calls).
 *
 * <p>The checksum is a CRC32 over the lines of the step file, then of each of its scripts as the
 * server receives them, then of the class's {@link Step#revision()}, line endings excluded (as
 * Flyway does): a change to any of what runs fails validation of queues the step already ran on.
 * Runtime scripts (the v2 verbs) are never part of it: a fix to the runtime does not block a
 * migration in flight.
 */
public record StepDefinition(int version, String description, String fileName, String runs, String summary,
                             List<V1State> takes, boolean moves, boolean destroys, List<Script> scripts, int checksum) {

    static final Pattern FILE_NAME = Pattern.compile("V(\\d+)__([A-Za-z0-9_]+)\\.json");
    private static final String MIGRATION_SCRIPT = "migrate_";
    private static final ObjectMapper JSON = new ObjectMapper();

    public StepDefinition {
        takes = List.copyOf(takes);
        scripts = List.copyOf(scripts);
    }

    /** Loads a step from the classpath folder {@code migrations/}. */
    static StepDefinition load(String fileName) {
        Matcher m = FILE_NAME.matcher(fileName);
        if (!m.matches()) {
            throw new IllegalStateException("step file '" + fileName + "' is not named V<n>__<what>.json");
        }
        byte[] body = resource("migrations/" + fileName);
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException("step " + fileName + " is not JSON: " + e.getMessage(), e);
        }
        String runs = node.path("runs").asText();
        List<V1State> takes = new ArrayList<>();
        node.path("takes").forEach(n -> takes.add(state(fileName, n.asText())));
        List<Script> scripts = new ArrayList<>();
        node.path("scripts").forEach(n -> scripts.add(script(fileName, n.asText())));
        CRC32 crc = new CRC32();
        updateByLines(crc, body);
        for (Script script : scripts) {
            updateByLines(crc, script.source());
        }
        StepDefinition shape = new StepDefinition(Integer.parseInt(m.group(1)), m.group(2).replace('_', ' '), fileName,
                runs, node.path("summary").asText(), takes, node.path("moves").asBoolean(false),
                node.path("destroys").asBoolean(false), scripts, 0);
        updateByLines(crc, ("revision " + shape.create().revision()).getBytes(StandardCharsets.UTF_8));
        return new StepDefinition(shape.version, shape.description, fileName, runs, shape.summary, takes, shape.moves,
                shape.destroys, scripts, (int) crc.getValue());
    }

    /**
     * A new instance of the class that runs this step ({@code runs}, in this package): built with this
     * definition when it has such a constructor (steps that read {@code takes}), else with none.
     */
    Step create() {
        Class<?> type;
        try {
            type = Class.forName(Step.class.getPackageName() + "." + runs);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("step " + fileName + " runs '" + runs + "', which is no class of "
                    + Step.class.getPackageName(), e);
        }
        if (!Step.class.isAssignableFrom(type)) {
            throw new IllegalStateException("step " + fileName + " runs " + runs + ", which is not a Step");
        }
        try {
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (Arrays.equals(c.getParameterTypes(), new Class<?>[] {StepDefinition.class})) {
                    return (Step) c.newInstance(this);
                }
            }
            return (Step) type.getDeclaredConstructor().newInstance();
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
            throw new IllegalStateException("step " + fileName + ": " + runs
                    + " needs a constructor taking a StepDefinition, or none", e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("step " + fileName + ": " + runs + " refused its definition: "
                    + e.getCause().getMessage(), e.getCause());
        }
    }

    private static V1State state(String fileName, String name) {
        return Arrays.stream(V1State.values()).filter(s -> s.wireName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("step " + fileName + " takes '" + name + "', which is no v1 state"));
    }

    private static Script script(String fileName, String name) {
        String bare = name.endsWith(".lua") ? name.substring(0, name.length() - 4) : name;
        if (!bare.startsWith(MIGRATION_SCRIPT)) {
            throw new IllegalStateException("step " + fileName + " lists " + name + ": a step lists only the migration's"
                    + " own scripts (" + MIGRATION_SCRIPT + "*); runtime scripts are never part of its checksum");
        }
        return Arrays.stream(Script.values()).filter(s -> s.fileName().equals(bare)).findFirst()
                .orElseThrow(() -> new IllegalStateException("step " + fileName + " lists " + name + ", which is no script of lua/"));
    }

    /** The checkpoints its class declares ({@link Step#checkpoints()}). */
    public List<String> checkpoints() {
        return create().checkpoints();
    }

    /** Feeds each line's bytes, without its terminator (LF, CRLF or CR), into the checksum. */
    static void updateByLines(CRC32 crc, byte[] bytes) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8))) {
            String line;
            boolean first = true;
            while ((line = reader.readLine()) != null) {
                if (first && line.startsWith("\uFEFF")) {
                    line = line.substring(1);
                }
                first = false;
                crc.update(line.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
