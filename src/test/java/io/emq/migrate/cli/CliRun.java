package io.emq.migrate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Runs the CLI in-process, off a terminal, with no EMQ_* variables unless given, and captures what it printed. */
record CliRun(int code, String out, String err) {
    static CliRun of(String... args) {
        return in(new Environment(Map.of(), Path.of("").toAbsolutePath(), false, false), args);
    }

    static CliRun in(Environment environment, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), environment);
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The queues of a {@code migrate --json} report, by their v1 queue ({@code P:Q}). */
    Map<String, JsonNode> queuesByV1() throws Exception {
        Map<String, JsonNode> byV1 = new HashMap<>();
        Json.MAPPER.readTree(out).path("queues").forEach(q -> byV1.put(q.path("v1").asText(), q));
        return byV1;
    }

    /** Standard output and error together, for assertion messages. */
    String all() {
        return "exit " + code + "\n" + out + err;
    }
}
