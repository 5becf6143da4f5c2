package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Endpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Runs every command of MIGRATION.md's {@code sh} blocks, in order, against real servers loaded with
 * the recorded fixtures, and checks each exit code ({@code # exit N}, else 0). A runbook command
 * that stops working fails the build.
 */
class RunbookTest {
    @RegisterExtension
    static final RealServerExtension SOURCE = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension TARGET = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension SCRATCH = RealServerExtension.standalone();
    @RegisterExtension
    static final RealServerExtension CLUSTER = RealServerExtension.cluster();
    /** What a shell would take for something else than a word (a redirection, a pipe, a glob...) unless quoted. */
    private static final String SHELL_SPECIAL = "<>|&;*?~{}()`\\\"";

    private static final Pattern EXIT = Pattern.compile("\\s+#\\s*exit\\s+(\\d+)\\s*$");

    /** One runbook line: its words after substitution and the exit code it should end with. */
    record Command(String line, List<String> words, int exit) {
    }

    static List<Command> commands(String markdown) {
        List<Command> out = new ArrayList<>();
        boolean inSh = false;
        for (String raw : markdown.split("\n")) {
            String line = raw.strip();
            if (line.startsWith("```")) {
                inSh = !inSh && line.equals("```sh");
                continue;
            }
            if (!inSh || line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int exit = 0;
            Matcher m = EXIT.matcher(line);
            if (m.find()) {
                exit = Integer.parseInt(m.group(1));
                line = line.substring(0, m.start());
            }
            String substituted = line.replace("$SOURCE_HOSTPORT", SOURCE.uri().substring("redis://".length()))
                    .replace("$SOURCE", SOURCE.uri()).replace("$TARGET", TARGET.uri()).replace("$SCRATCH", SCRATCH.uri())
                    .replace("$CLUSTER", CLUSTER.uri());
            out.add(new Command(raw.strip(), words(substituted), exit));
        }
        return out;
    }

    /** The first character outside single quotes a shell would not take as part of a word, if any. */
    static java.util.Optional<Character> unquotedSpecial(String line) {
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && SHELL_SPECIAL.indexOf(c) >= 0) {
                return java.util.Optional.of(c);
            }
        }
        return java.util.Optional.empty();
    }

    /** Splits like a shell: whitespace separates words, single quotes keep spaces. */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (char c : line.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
                any = true;
            } else if (Character.isWhitespace(c) && !quoted) {
                if (any) {
                    out.add(w.toString());
                    w.setLength(0);
                    any = false;
                }
            } else {
                w.append(c);
                any = true;
            }
        }
        if (any) {
            out.add(w.toString());
        }
        return out;
    }

    @Test
    void everyRunbookCommandRunsWithItsExitCode() throws Exception {
        for (String fixture : List.of("node-5.65.1", "elixir-v1", "legacy-and-foreign")) {
            new FixtureLoader(SOURCE.client()).load(FixtureLoader.resource(fixture));
        }
        List<Command> commands = commands(Files.readString(Path.of("MIGRATION.md")));
        assertTrue(commands.size() >= 20, "the runbook's commands: " + commands.size());
        for (Command c : commands) {
            assertEquals(java.util.Optional.empty(), unquotedSpecial(c.line()), "pasted into a shell, this line is not the"
                    + " command it shows (quote the word): " + c.line());
            String program = c.words().get(0);
            List<String> args = c.words().subList(1, c.words().size());
            if (program.equals("emq-migrate")) {
                CliRun r = CliRun.of(args.toArray(new String[0]));
                assertEquals(c.exit(), r.code(), c.line() + "\n" + r.out() + r.err());
            } else if (program.equals("redis-cli")) {
                assertEquals("-u", args.get(0), c.line());
                try (UnifiedJedis jedis = Endpoint.parse(args.get(1)).open()) {
                    jedis.sendCommand(Protocol.Command.valueOf(args.get(2).toUpperCase()),
                            args.subList(3, args.size()).toArray(new String[0]));
                }
            } else {
                throw new AssertionError("the runbook runs only emq-migrate and redis-cli: " + c.line());
            }
        }
    }
}
