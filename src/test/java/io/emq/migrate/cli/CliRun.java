package io.emq.migrate.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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

    /** Standard output and error together, for assertion messages. */
    String all() {
        return "exit " + code + "\n" + out + err;
    }
}
