package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.List;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The rows counted by state are the rows walked one by one, whatever the states, locks and anomalies; how many items there are at most. */
class MigratableTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void rowCountCountsTheRowsOfEveryState() {
        boolean[] seen = new boolean[4];
        for (String fixture : List.of("node-5.65.1", "legacy-and-foreign", "elixir-v1")) {
            SERVER.client().flushAll();
            List<String> prefixes = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(fixture)).prefixes();
            DiscoveryResult discovery = new Discovery(SERVER.client()).discover(prefixes);
            QueueSnapshotReader reader = new QueueSnapshotReader(SERVER.client(), new QueueBases(discovery.queues()));
            for (QueueRef queue : discovery.queues()) {
                QueueSnapshot snap = reader.read(queue);
                for (boolean accept : List.of(false, true)) {
                    Migratable.Rule settled = Migratable.Rule.of(MigrationOptions.defaults().withAcceptAnomalies(accept));
                    long walked = StreamSupport.stream(Migratable.rows(snap, settled).spliterator(), false).count();
                    assertEquals(walked, Migratable.rowCount(snap, settled), fixture + " " + queue.display() + " accept " + accept);
                    if (accept && !snap.jobs(V1State.UNKNOWN).isEmpty()) { // an orphan left unsettled by a read while v1 served
                        Migratable.Rule unsettled = new Migratable.Rule(true, Set.of(snap.jobs(V1State.UNKNOWN).get(0).id()));
                        long left = StreamSupport.stream(Migratable.rows(snap, unsettled).spliterator(), false).count();
                        assertEquals(walked - 1, left, fixture + " " + queue.display() + ": the unsettled orphan gets no row");
                        assertEquals(left, Migratable.rowCount(snap, unsettled), fixture + " " + queue.display() + " one orphan unsettled");
                    }
                }
                seen[0] |= snap.jobs(V1State.ACTIVE).stream().anyMatch(Migratable::held);
                seen[1] |= snap.jobs(V1State.ACTIVE).stream().anyMatch(j -> !Migratable.held(j));
                seen[2] |= !snap.jobs(V1State.COMPLETED).isEmpty();
                seen[3] |= !snap.jobs(V1State.UNKNOWN).isEmpty();
            }
        }
        assertTrue(seen[0] && seen[1] && seen[2] && seen[3], "the fixtures hold held and unheld active jobs, completed ones and"
                + " orphans: " + java.util.Arrays.toString(seen));
    }

    @Test
    void atMostWalksOneItemPastTheBoundAndNoFurther() {
        assertTrue(Migratable.atMost(List.of(), 0));
        assertTrue(Migratable.atMost(List.of(1, 2, 3), 3));
        assertFalse(Migratable.atMost(List.of(1, 2, 3), 2));
        int[] walked = {0};
        Iterable<Integer> endless = () -> java.util.stream.Stream.iterate(0, i -> {
            walked[0]++;
            return i + 1;
        }).iterator();
        assertFalse(Migratable.atMost(endless, 256));
        assertTrue(walked[0] <= 257, walked[0] + " items walked to tell there are more than 256");
    }
}
