package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code plan --html}: a self-contained page with a section, a chart and tables per queue. */
class PlanHtmlTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void onePagePerPlanWithASectionPerQueue(@TempDir Path dir) throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        Path file = dir.resolve("plan.html");
        CliRun r = CliRun.of("plan", "--source", SERVER.uri(), "--all", "--html", file.toString());
        assertEquals(ExitCodes.REFUSED, r.code(), r.err());
        String page = Files.readString(file);
        for (String queue : new String[] {"bull:emails", "bull:flows-child", "bull:flows-parent", "bull:orders"}) {
            assertTrue(page.contains("<h2>" + queue + " → "), queue);
        }
        assertEquals(5, page.split("<svg ", -1).length - 1, "one chart per queue and one of them all");
        assertTrue(page.contains("<td>cron-scheduler</td>") && page.contains("--drop-cron-schedulers"), page);
        assertTrue(page.contains("BLOCKED: a queue above"), page);
        assertTrue(!page.contains("<script") && !page.contains("<link") && !page.contains("src="), "self-contained");
    }
}
