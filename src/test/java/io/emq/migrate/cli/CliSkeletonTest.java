package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The skeleton every command shares: help, version, option checks, one-line errors, JSON errors, escapes. No server. */
class CliSkeletonTest {
    private static void assertOneLineError(CliRun r, int code) {
        assertEquals(code, r.code(), r.all());
        assertEquals("", r.out(), r.all());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().startsWith("emq-migrate"), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no trace: " + r.err());
    }

    @Test
    void versionAndHelpGoToStandardOutWithExitZero() {
        for (String word : List.of("--version", "version")) {
            CliRun v = CliRun.of(word);
            assertEquals(0, v.code(), v.all());
            assertTrue(v.out().startsWith("emq-migrate 0.") && v.out().contains("wire echomq:2.0.0"), v.out());
        }
        CliRun all = CliRun.of("--help");
        assertEquals(0, all.code());
        assertTrue(all.out().contains("fixture") && all.out().contains("help <command>"), all.out());
        for (String[] args : List.of(new String[] {"help", "plan"}, new String[] {"plan", "--help"},
                new String[] {"discover", "--help", "--source"})) {
            CliRun h = CliRun.of(args);
            assertEquals(0, h.code(), h.all());
            assertEquals("", h.err(), "help is not an error");
            assertTrue(h.out().startsWith("usage: emq-migrate "), h.out());
            assertTrue(h.out().contains("example") && h.out().contains("exit codes:") && h.out().contains("  2  "), h.out());
            assertFalse(h.out().contains("Missing required option"), h.out());
        }
        assertOneLineError(CliRun.of("help", "nosuch"), ExitCodes.USAGE);
        assertEquals(ExitCodes.USAGE, CliRun.of().code());
    }

    @Test
    void everyCommandHasHelpWithAnExampleAndItsExitCodes() {
        for (String command : Cli.COMMANDS.keySet()) {
            CliRun h = CliRun.of("help", command);
            assertEquals(0, h.code(), command);
            assertTrue(h.out().contains("emq-migrate " + command), command + ": " + h.out());
            assertTrue(h.out().contains("--json") && h.out().contains("exit codes:\n  0  "), command + ": " + h.out());
        }
    }

    @Test
    void badUsageIsOneLineWithExitTwo() {
        assertOneLineError(CliRun.of("plan", "--source", "redis://a:1", "--source", "redis://b:2", "--all"), ExitCodes.USAGE);
        assertTrue(CliRun.of("plan", "--source", "redis://a:1", "--source", "redis://b:2", "--all").err()
                .contains("--source was given 2 times"));
        CliRun preview = CliRun.of("plan", "--source", "redis://127.0.0.1:1", "--all", "--preview", "-1");
        assertOneLineError(preview, ExitCodes.USAGE);
        assertTrue(preview.err().contains("--preview takes a whole number from 0"), preview.err());
        assertOneLineError(CliRun.of("frobnicate"), ExitCodes.USAGE);
        assertOneLineError(CliRun.of("plan", "--nope"), ExitCodes.USAGE);
        CliRun abbreviated = CliRun.of("plan", "--source", "redis://127.0.0.1:1", "--queu", "orders");
        assertOneLineError(abbreviated, ExitCodes.USAGE);
        assertTrue(abbreviated.err().contains("--queu"), "an abbreviation is not taken for the option it starts: " + abbreviated.err());
        for (String command : List.of("plan", "migrate")) {
            CliRun neither = CliRun.of(command, "--source", "redis://127.0.0.1:1");
            assertOneLineError(neither, ExitCodes.USAGE);
            assertTrue(neither.err().contains("--all") && !neither.err().contains("not both"), neither.err());
        }
        assertOneLineError(CliRun.of("info", "--target", "redis://127.0.0.1:1", "stray"), ExitCodes.USAGE);
        for (String prefix : List.of("bad name", "x{y}", "p".repeat(65))) { // conformance's scenario queues are named from it
            CliRun conformance = CliRun.of("conformance", "--target", "redis://127.0.0.1:1", "--queue", prefix);
            assertOneLineError(conformance, ExitCodes.USAGE);
            assertTrue(conformance.err().contains("--queue: ") && !conformance.err().contains("internal error"), conformance.err());
        }
        for (String command : List.of("info", "lookup", "verify", "repair", "validate", "drain")) {
            CliRun r = command.equals("lookup")
                    ? CliRun.of(command, "--target", "redis://127.0.0.1:1", "--queue", "{bad}", "--all")
                    : CliRun.of(command, "--target", "redis://127.0.0.1:1", "--queue", "{bad}");
            assertOneLineError(r, ExitCodes.USAGE);
            assertTrue(r.err().contains("--queue: queue name '{bad}'"), command + ": " + r.err());
        }
        CliRun abandon = CliRun.of("abandon", "--source", "redis://127.0.0.1:1", "--queue", "a b");
        assertOneLineError(abandon, ExitCodes.USAGE);
        CliRun html = CliRun.of("plan", "--source", "redis://127.0.0.1:1", "--all", "--html", "/no/such/folder/plan.html");
        assertOneLineError(html, ExitCodes.USAGE);
        assertTrue(html.err().contains("no folder /no/such/folder"), html.err());
        CliRun missing = CliRun.of("discover");
        assertOneLineError(missing, ExitCodes.USAGE);
        assertTrue(missing.err().contains("--source URI is required") && missing.err().contains("EMQ_SOURCE"), missing.err());
    }

    @Test
    void aMalformedEscapeOrABadUriIsRefusedWithoutEchoingThePassword() {
        for (String uri : List.of("redis://admin:s3cr%ZZet@127.0.0.1:1", "admin:s3/cr%ZZet@127.0.0.1:1",
                "redis://admin:s3/cret@127.0.0.1:notaport", "nope://admin:s3cret@host:1")) {
            CliRun r = CliRun.of("discover", "--source", uri);
            assertOneLineError(r, ExitCodes.USAGE);
            assertFalse(r.err().contains("s3"), "password leaked: " + r.err());
            assertTrue(r.err().contains("admin:***@"), r.err());
        }
    }

    @Test
    void withJsonAnErrorIsOneJsonDocumentOnStandardOut() throws Exception {
        for (String command : List.of("info", "validate", "repair", "abandon", "conformance", "plan", "demo", "key")) {
            CliRun r = CliRun.of(command, "--json", "--bogus");
            assertEquals(ExitCodes.USAGE, r.code(), command + r.all());
            JsonNode error = Json.MAPPER.readTree(r.out()).get("error");
            assertEquals(ExitCodes.USAGE, error.get("exitCode").asInt(), r.out());
            assertEquals(command, error.get("command").asText());
            assertTrue(error.get("message").asText().contains("--bogus"), command + ": " + r.out());
        }
    }

    @Test
    void standardOutputEscapesControlBytesAndTabsAndKeepsTextNewlines() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(Printable.escaping(bytes), true, java.nio.charset.StandardCharsets.UTF_8);
        out.println("a\u001b[2Jb\u007fc\u009bd \u00e9\u00a3 \u0436\tz");
        assertEquals("a\\u001b[2Jb\\u007fc\\u009bd \u00e9\u00a3 \u0436\\u0009z\n",
                bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void terminalEscapeBytesAreShownEscaped() {
        CliRun r = CliRun.of("info", "--target", "redis://127.0.0.1:1", "--queue", "\u001b[31mred\u009b");
        assertFalse(r.err().contains("\u001b") || r.err().contains("\u009b"), r.err());
        assertTrue(r.err().contains("\\x1b[31mred\\x9b"), r.err());
        CliRun key = CliRun.of("key", "--json", "emq:{q\u001b]0;owned\u0007}:pending");
        assertFalse(key.out().contains("\u001b") || key.out().contains("\u0007"), key.out());
    }
}
