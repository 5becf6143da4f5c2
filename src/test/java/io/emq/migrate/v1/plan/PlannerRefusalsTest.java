package io.emq.migrate.v1.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Planner#refusals}, which the migration's fence asks for, against the whole plan's refusals. */
class PlannerRefusalsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "node-large-payload", "elixir-v1", "legacy-and-foreign"})
    void theRefusalsAloneAreThoseOfTheWholePlan(String name) {
        Fixture fixture = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(name));
        DiscoveryResult discovery = new Discovery(SERVER.client()).discover(fixture.prefixes());
        QueueSnapshotReader reader = new QueueSnapshotReader(SERVER.client(), new QueueBases(discovery.queues()));
        List<PlanOptions> options = List.of(PlanOptions.defaults(),
                new PlanOptions(PayloadPolicy.DATA, Map.of(), false, false, true, true, true, true, true, PlanOptions.DEFAULT_PREVIEW));
        int refused = 0;
        for (QueueRef queue : discovery.queues()) {
            QueueSnapshot snap = reader.read(queue);
            for (PlanOptions o : options) {
                Planner planner = new Planner(o);
                List<PlannedRefusal> whole = planner.plan(snap).refusals();
                assertEquals(whole, planner.refusals(snap), name + " " + queue.display());
                refused += whole.size();
            }
        }
        if (!name.equals("node-large-payload")) {
            assertTrue(refused > 0, name + ": the fixture has refusals to compare (live locks, anomalies, schedulers)");
        }
    }
}
