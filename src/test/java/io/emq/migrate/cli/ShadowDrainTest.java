package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code drain --shadow}: a scratch copy is drained and judged; the real queues stay byte for byte as they were. */
class ShadowDrainTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aShadowDrainJudgesACopyAndLeavesEveryRealKeyAsItWas() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        SERVER.client().keys("bull:orders:*:lock").forEach(SERVER.client()::del);
        CliRun m = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--accept-anomalies", "--drop-cron-schedulers",
                "--yes");
        assertEquals(ExitCodes.OK, m.code(), m.out() + m.err());
        String before = new KeyspaceDump(SERVER.client()).digest();

        for (String queue : new String[] {"emails", "orders", "flows-child", "flows-parent"}) {
            CliRun shadow = CliRun.of("drain", "--target", SERVER.uri(), "--queue", queue, "--shadow", "--json");
            assertEquals(ExitCodes.OK, shadow.code(), queue + ": " + shadow.out() + shadow.err());
            JsonNode doc = Json.MAPPER.readTree(shadow.out());
            assertTrue(doc.get("passed").asBoolean(), shadow.out());
            assertTrue(shadow.err().contains("copied queue '" + queue + "' into the scratch queue")
                    && shadow.err().contains("was only read"), shadow.err());
            assertEquals(before, new KeyspaceDump(SERVER.client()).digest(), "after the shadow drain of " + queue);
        }
        assertTrue(SERVER.client().keys("emq:{*-shadow-*}:*").isEmpty(), "no scratch key is left");
        assertTrue(SERVER.client().zcard("emq:{orders}:pending") > 0, "the real queue still holds its work");
    }

    @Test
    void aQueueThatWasNeverMigratedHasNothingToShadow() {
        CliRun r = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "ghost", "--shadow");
        assertEquals(ExitCodes.REFUSED, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("queue ghost has no migration journal on this target"), r.err());
        assertTrue(SERVER.client().keys("*").isEmpty(), "nothing was written");
        assertEquals(ExitCodes.USAGE, CliRun.of("drain", "--target", SERVER.uri(), "--queue", "q", "--shadow", "--dry-run").code());
    }
}
