package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyValue;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every key classifies exactly once, and no hash with data (job or scheduler template) goes unreported. */
class TotalClassificationTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "node-large-payload", "elixir-v1", "legacy-and-foreign"})
    void everyKeyIsClassifiedAndEveryHashWithDataIsReported(String name) {
        Fixture fixture = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(name));
        List<String> prefixes = fixture.prefixes();
        DiscoveryResult found = new Discovery(SERVER.client()).discover(prefixes);
        QueueSnapshotReader reader = new QueueSnapshotReader(SERVER.client(), new QueueBases(found.queues()));

        long classified = found.foreignKeys() + found.keysOutsidePrefixes();
        Set<Bytes> reported = new HashSet<>();
        for (QueueRef q : found.queues()) {
            QueueSnapshot snap = reader.read(q);
            classified += snap.keyClasses().values().stream().mapToLong(Long::longValue).sum();
            snap.jobsInRankOrder().forEach(j -> reported.add(q.jobKey(j.id())));
            snap.anomalies().forEach(a -> reported.add(a.key()));
            snap.schedulers().forEach(s -> reported.add(q.key("repeat:").concat(s.id())));
        }
        assertEquals(fixture.keys().size(), classified, name + ": every key classifies exactly once");

        for (FixtureKey k : fixture.keys()) {
            if (k.value() instanceof KeyValue.HashValue h && h.fields().stream().anyMatch(f -> f.name().display().equals("data"))) {
                assertTrue(reported.contains(k.key()), name + ": job hash " + k.key() + " is neither a job, a scheduler nor an anomaly");
            }
        }
    }
}
