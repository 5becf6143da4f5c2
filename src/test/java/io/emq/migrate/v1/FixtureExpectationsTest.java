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
        Fixture fixture = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(name));
        JsonNode expect = fixture.expect();
        List<String> prefixes = fixture.prefixes();

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
            decodedFacts(where, q, snap);
        }
    }

    /** The per-job and per-queue facts a fixture states beyond counts and order. */
    private static void decodedFacts(String where, JsonNode q, QueueSnapshot snap) {
        for (Map.Entry<String, JsonNode> p : iterable(q.path("payloads"))) {
            JobFacts job = snap.job(Bytes.utf8(p.getKey())).orElseThrow();
            assertEquals(p.getValue().path("bytes").asLong(), job.payloadBytes(), where + " payload size");
            assertEquals(p.getValue().path("sha256").asText(), job.payloadSha256(), where + " payload digest");
        }
        for (Map.Entry<String, JsonNode> p : iterable(q.path("priorities"))) {
            JobFacts job = snap.job(Bytes.utf8(p.getKey())).orElseThrow();
            assertEquals(p.getValue().asLong(), job.priority(), where + " priority from opts.pri");
            assertEquals(JobLayout.ELIXIR, job.layout());
        }
        for (Map.Entry<String, JsonNode> d : iterable(q.path("delays"))) {
            JobFacts job = snap.job(Bytes.utf8(d.getKey())).orElseThrow();
            assertEquals(d.getValue().path("delay").asLong(), job.delayMs(), where + " delay from opts.del");
            assertEquals(d.getValue().path("created").asLong(), job.createdAt(), where + " shifted timestamp undone");
            assertEquals(d.getValue().path("due").asLong(), job.dueAt(), where + " due from the score");
        }
        for (Map.Entry<String, JsonNode> a : iterable(q.path("attempts"))) {
            assertEquals(a.getValue().asLong(), snap.job(Bytes.utf8(a.getKey())).orElseThrow().attempts(), where + " attempts");
        }
        for (JsonNode id : q.path("liveLocks")) {
            assertTrue(snap.job(Bytes.utf8(id.asText())).orElseThrow().hasLiveLock(), where + " live lock " + id);
        }
        for (JsonNode id : q.path("expiredLocks")) {
            assertTrue(!snap.job(Bytes.utf8(id.asText())).orElseThrow().hasLiveLock(), where + " expired lock " + id);
        }
        for (JsonNode id : q.path("lifo")) {
            assertTrue(snap.job(Bytes.utf8(id.asText())).orElseThrow().lifo(), where + " lifo " + id);
        }
        for (Map.Entry<String, JsonNode> d : iterable(q.path("dedup"))) {
            DedupEntry entry = snap.dedupKeys().stream().filter(e -> e.dedupId().display().equals(d.getKey())).findFirst().orElseThrow();
            assertEquals(d.getValue().path("job").asText(), entry.jobId().display(), where + " dedup job");
            assertEquals(d.getValue().path("ttl").asBoolean(), entry.pttlMs() > 0, where + " dedup ttl");
        }
        for (Map.Entry<String, JsonNode> sc : iterable(q.path("schedulers"))) {
            Scheduler found = snap.schedulers().stream().filter(x -> x.id().display().equals(sc.getKey())).findFirst().orElseThrow();
            assertEquals(sc.getValue().asText(), found.kind().wireName(), where + " scheduler kind");
        }
        if (q.has("paused")) {
            assertEquals(q.path("paused").asBoolean(), snap.paused(), where + " meta.paused");
        }
        for (JsonNode id : q.path("waitingChildren")) {
            FlowParent parent = snap.flowParents().stream().filter(p -> p.id().display().equals(id.asText())).findFirst().orElseThrow();
            assertEquals(3, parent.pendingChildren() + parent.processed(), where + " children of " + id);
            assertEquals(q.path("processedChildren").size(), parent.processed(), where + " processed children");
            assertTrue(parent.crossQueuePending() > 0, where + " cross-queue children");
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
