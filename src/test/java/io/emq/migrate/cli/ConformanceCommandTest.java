package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The conformance scenarios through the command, against one standalone server. */
class ConformanceCommandTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    record Run(int code, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    static Run run(String... args) {
        String[] line = new String[args.length + 1];
        line[0] = "conformance";
        System.arraycopy(args, 0, line, 1, args.length);
        CliRun r = CliRun.of(line);
        return new Run(r.code(), r.out(), r.err());
    }

    static void assertAllPass(Run r) {
        List<String> lines = r.lines();
        String last = lines.get(lines.size() - 1);
        int total = lines.size() - 1;
        assertEquals("CONFORMANCE " + total + "/" + total, last, r.out() + r.err());
        assertTrue(total >= 32, "scenario count " + total);
        assertFalse(r.out().contains(" FAIL "), r.out());
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void everyScenarioPassesAndLeavesOnlyTheFence() {
        Run r = run("--target", SERVER.uri());
        assertAllPass(r);
        assertEquals(java.util.Set.of("{emq}:version"), SERVER.client().keys("*"));
    }

    @Test
    void aForeignVersionIsRefusedNamingBoth() {
        SERVER.client().set("{emq}:version", "echomq:3.0.0");
        Run r = run("--target", SERVER.uri());
        assertEquals(ExitCodes.REFUSED, r.code());
        assertTrue(r.err().contains("echomq:3.0.0") && r.err().contains("echomq:2.0.0"), r.err());
    }

    @Test
    void theWireVersionCanBeConfigured() {
        SERVER.client().set("{emq}:version", "echomq:2.4.2");
        Run r = run("--target", SERVER.uri(), "--wire-version", "echomq:2.4.2", "--queue", "probe");
        assertAllPass(r);
    }

    @Test
    void targetIsRequired() {
        assertEquals(ExitCodes.USAGE, run().code());
        assertEquals(ExitCodes.USAGE, run("--target", "http://nowhere").code());
    }
}
