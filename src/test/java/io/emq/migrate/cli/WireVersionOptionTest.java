package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every command that opens a v2 target takes --wire-version, and a fence refusal names it. */
class WireVersionOptionTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final String REFERENCE = "echomq:3.0.0";

    private static List<String[]> commands() {
        String t = SERVER.uri();
        return List.of(
                new String[] {"conformance", "--target", t},
                new String[] {"drain", "--target", t, "--queue", "q", "--handler", "noop"},
                new String[] {"info", "--target", t},
                new String[] {"validate", "--target", t},
                new String[] {"repair", "--target", t, "--queue", "q"},
                new String[] {"verify", "--target", t, "--queue", "q"},
                new String[] {"lookup", "--target", t, "--queue", "q", "--all"},
                new String[] {"migrate", "--source", t, "--queue", "nothing-here"},
                new String[] {"abandon", "--source", t, "--queue", "q"});
    }

    private static String[] with(String[] args, String... more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void aTargetFencedByTheReferenceIsRefusedNamingTheOptionAndServedWithIt() {
        SERVER.client().set("{emq}:version", REFERENCE);
        for (String[] command : commands()) {
            CliRun refused = CliRun.of(command);
            assertEquals(ExitCodes.REFUSED, refused.code(), command[0] + ": " + refused.out() + refused.err());
            assertTrue(refused.err().contains("is '" + REFERENCE + "'") && refused.err().contains("--wire-version " + REFERENCE),
                    command[0] + ": " + refused.err());
            assertFalse(refused.err().contains("\tat "), command[0] + " printed a stack trace");
            CliRun served = CliRun.of(with(command, "--wire-version", REFERENCE));
            assertFalse(served.err().contains("version fence"), command[0] + ": " + served.err());
        }
        assertEquals(REFERENCE, SERVER.client().get("{emq}:version"), "the fence value is left as found");
    }

    @Test
    void theOptionIsInEveryV2CommandsHelp() {
        for (String[] command : commands()) {
            CliRun help = CliRun.of(command[0], "--help");
            assertEquals(ExitCodes.OK, help.code(), command[0]);
            assertTrue(help.out().contains("--wire-version"), command[0] + ": " + help.out());
        }
        for (String v1Only : new String[] {"fixture", "plan", "discover", "key"}) {
            CliRun help = CliRun.of(v1Only, "--help");
            assertFalse(help.out().contains("--wire-version"), v1Only + ": " + help.out());
        }
    }
}
