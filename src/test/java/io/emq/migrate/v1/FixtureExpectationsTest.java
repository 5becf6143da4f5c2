package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each recorded fixture's {@code expect} section, checked against discovery and the queue snapshots. */
class FixtureExpectationsTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "node-large-payload", "elixir-v1", "legacy-and-foreign"})
    void snapshotsMatchTheRecordedExpectations(String name) {
        Fixture fixture = FixtureLoader.resource(name);
        new FixtureLoader(SERVER.client()).load(fixture);
        JsonNode expect = fixture.expect();
        List<String> prefixes = new ArrayList<>();
        expect.path("prefixes").forEach(p -> prefixes.add(p.asText()));

        DiscoveryResult discovery = new Discovery(SERVER.client()).discover(prefixes);
        Set<String> expectedQueues = new TreeSet<>();
        expect.path("queues").fields().forEachRemaining(e -> expectedQueues.add(e.getValue().path("prefix").asText() + ":" + e.getKey()));
        assertEquals(expectedQueues, discovery.queues().stream().map(QueueRef::display).collect(Collectors.toCollection(TreeSet::new)));
        if (expect.has("foreign")) {
            List<String> foreign = texts(expect.path("foreign"));
            long underPrefixes = foreign.stream().filter(k -> prefixes.stream().anyMatch(p -> k.startsWith(p + ":"))).count();
            assertEquals(underPrefixes, discovery.foreignKeys(), "foreign keys under the prefixes");
            assertEquals(foreign.size() - underPrefixes, discovery.keysOutsidePrefixes(), "keys outside the prefixes");
        }

        QueueSnapshotReader reader = new QueueSnapshotReader(SERVER.client(), new QueueBases(discovery.queues()));
        for (Map.Entry<String, JsonNode> e : iterable(expect.path("queues"))) {
            JsonNode q = e.getValue();
            QueueSnapshot snap = reader.read(QueueRef.of(q.path("prefix").asText(), e.getKey()));
            String where = name + " " + e.getKey();
            for (V1State s : V1State.LISTED) {
                assertEquals(q.path("jobs").path(s.wireName()).asLong(), snap.listedCount(s), where + " " + s.wireName());
            }
            if (q.has("serveOrder")) {
                List<String> pending = new ArrayList<>();
                for (V1State s : List.of(V1State.ACTIVE, V1State.PAUSED, V1State.WAIT, V1State.PRIORITIZED)) {
                    snap.jobs(s).stream().filter(j -> !j.hasLiveLock()).forEach(j -> pending.add(j.id().display()));
                }
                assertEquals(texts(q.path("serveOrder")), pending, where + " serve order");
            }
            if (q.has("delayedOrder")) {
                assertEquals(texts(q.path("delayedOrder")), ids(snap.jobs(V1State.DELAYED)), where + " delayed order");
            }
            if (q.has("failedOrder")) {
                assertEquals(texts(q.path("failedOrder")), ids(snap.jobs(V1State.FAILED)), where + " failed order");
            }
            Set<String> expectedAnomalies = new TreeSet<>();
            q.path("anomalies").forEach(a -> expectedAnomalies.add(a.path("kind").asText() + " " + a.path("key").asText()));
            Set<String> actual = snap.anomalies().stream().map(a -> a.kind().wireName() + " " + a.key().display())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(expectedAnomalies, actual, where + " anomalies");
            assertTrue(snap.anomalies().stream().allMatch(a -> !a.reason().isBlank()), where + " reasons");
        }
    }

    static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode object) {
        List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
        object.fields().forEachRemaining(out::add);
        return out;
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    static List<String> ids(List<JobFacts> jobs) {
        return jobs.stream().map(j -> j.id().display()).toList();
    }
}
