package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code --no-retire} copy that a {@code drain --resume} served on the target itself (v1 still holds and serves its
 * jobs): the migration's re-run cannot verify the rows that are gone and says why, instead of a bare "row missing" that
 * {@code repair} cannot clear; {@code abandon} gives the queue up and says how many of its jobs v2 ran that v1 runs too.
 */
class ServedCopyTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aCopyServedOnTheTargetIsToldByTheReRunAndByAbandon() {
        SERVER.client().flushAll();
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        assertEquals(0, CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--no-retire").code());
        long pending = SERVER.client().zcard(Keys.queue("emails").pending());
        assertTrue(pending > 0, "pending " + pending);
        CliRun drained = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "emails", "--resume", "--yes");
        assertEquals(0, drained.code(), drained.all());

        CliRun again = CliRun.of("migrate", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(3, again.code(), again.all());
        assertTrue(again.all().contains(pending + " row(s) the journal expects are gone from the target: the v2 queue served them")
                && again.all().contains("`repair` does not bring them back"), again.all());
        assertTrue(SERVER.client().exists("bull:emails:paused"), "v1 kept");

        CliRun abandoned = CliRun.of("abandon", "--source", SERVER.uri(), "--queue", "emails", "--yes");
        assertEquals(0, abandoned.code(), abandoned.all());
        assertTrue(abandoned.out().contains("the v2 queue had served " + pending + " of its jobs"), abandoned.all());
        String completed = Keys.queue("emails").metricsCompleted();
        assertEquals(java.util.Map.of("count", Long.toString(pending)), SERVER.client().hgetAll(completed),
                "abandon keeps the drain's completions in v2's metric: v2 ran those jobs (served-on-v2, told, not undone), and"
                        + " v1 runs them again");
    }
}
