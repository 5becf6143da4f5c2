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
                new String[] {"plan", "--source", t, "--all"},
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

    /**
     * On a target that holds no fence value, plan and migrate say which one the run claims there, and how to claim the
     * reference connector's instead; said of neither a target that holds one, nor a run that claims the reference's, nor
     * one whose version the operator named.
     */
    @Test
    void planAndMigrateSayWhichFenceValueTheyClaimOnATargetThatHoldsNone() {
        SERVER.client().flushAll();
        SERVER.client().hset("bull:q:1", java.util.Map.of("name", "n", "data", "{}", "opts", "{}", "timestamp", "1"));
        SERVER.client().lpush("bull:q:wait", "1");
        String note = "the first write claims echomq:2.0.0 there; the reference connector speaks " + REFERENCE
                + " and stops at connect on any other value: if it will serve this target, pass --wire-version " + REFERENCE;
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q");
        assertTrue(plan.err().contains(note), plan.err());
        assertFalse(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q", "--wire-version", REFERENCE).err().contains("claims"));
        CliRun migrate = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "q", "--no-retire");
        assertEquals(ExitCodes.OK, migrate.code(), migrate.all());
        assertTrue(migrate.err().contains(note), migrate.err());
        assertEquals("echomq:2.0.0", SERVER.client().get("{emq}:version"));
        assertFalse(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q").err().contains("claims"), "it holds one now");
        SERVER.client().del("{emq}:version");
        CliRun named = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "q", "--wire-version", "echomq:2.0.0");
        assertFalse(named.err().contains("claims"), "the version named: the operator's choice, no news: " + named.err());
    }

    @Test
    void theOptionIsInEveryV2CommandsHelp() {
        for (String[] command : commands()) {
            CliRun help = CliRun.of(command[0], "--help");
            assertEquals(ExitCodes.OK, help.code(), command[0]);
            assertTrue(help.out().contains("--wire-version"), command[0] + ": " + help.out());
        }
        for (String v1Only : new String[] {"fixture", "discover", "key"}) {
            CliRun help = CliRun.of(v1Only, "--help");
            assertFalse(help.out().contains("--wire-version"), v1Only + ": " + help.out());
        }
    }
}
