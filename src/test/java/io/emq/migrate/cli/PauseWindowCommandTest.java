package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code plan} estimates each queue's v1 pause window; {@code migrate} prints and reports the window it journaled. */
class PauseWindowCommandTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void planEstimatesTheWindowAndMigratePrintsTheOneItJournaled() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        CliRun plan = CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails");
        assertTrue(Pattern.compile("(?m)^estimated v1 pause window: \\d+ ms \\(v1 serves through the copy").matcher(plan.out()).find(),
                plan.out());
        JsonNode doc = new ObjectMapper().readTree(CliRun.of("plan", "--source", SERVER.uri(), "--queue", "emails", "--json").out());
        assertTrue(doc.path("queues").path(0).path("estimatedPauseMs").isIntegralNumber(), doc.toString());

        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(ExitCodes.OK, m.code(), m.all());
        Matcher printed = Pattern.compile("(?m)^bull:emails: v1 paused (\\d+) ms \\(the pause window").matcher(m.out());
        assertTrue(printed.find(), m.out());
        assertEquals(SERVER.client().hget("{emq}:migration:emails", "window-ms"), printed.group(1), "the journaled window");
        assertTrue(SERVER.client().hexists("{emq}:migration:emails", "v1_paused_at"), "and the instant of the pause");
    }
}
