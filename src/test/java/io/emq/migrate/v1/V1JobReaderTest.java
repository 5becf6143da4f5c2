package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.v1.fixture.KeyValue;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lazy full read the migration runner uses: every field and per-job key, bytes exact. */
class V1JobReaderTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void readsEveryJobOfASnapshotWithItsBytesExact() {
        Fixture fixture = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        QueueRef orders = QueueRef.of("bull", "orders");
        QueueSnapshot snap = new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(orders))).read(orders);
        V1JobReader reader = new V1JobReader(SERVER.client());
        for (JobFacts facts : snap.jobsInRankOrder()) {
            V1Job job = reader.read(orders, facts.id()).orElseThrow();
            Bytes data = job.data().orElseThrow();
            assertEquals(facts.payloadSha256(), PayloadDigest.sha256(data.raw()), facts.id().display());
            assertEquals(recorded(fixture, orders.jobKey(facts.id()), "data"), data, facts.id().display());
        }
        V1Job live = reader.read(orders, Bytes.utf8("10")).orElseThrow();
        assertTrue(live.lockTtlMs() > 0);
        assertEquals(List.of(Bytes.utf8("started by node-live")), live.logs());
        assertTrue(reader.read(orders, Bytes.utf8("no-such-job")).isEmpty());
    }

    @Test
    void nonJsonAndNonUtf8DataComesBackByteForByte() {
        Fixture fixture = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("elixir-v1"));
        QueueRef mailer = QueueRef.of("bull", "mailer");
        QueueSnapshot snap = new QueueSnapshotReader(SERVER.client(), new QueueBases(List.of(mailer))).read(mailer);
        Bytes raw = snap.anomalies(AnomalyKind.NON_JSON_DATA).get(0).key();
        JobFacts facts = snap.jobsInRankOrder().stream().filter(j -> mailer.jobKey(j.id()).equals(raw)).findFirst().orElseThrow();
        Bytes data = new V1JobReader(SERVER.client()).read(mailer, facts.id()).orElseThrow().data().orElseThrow();
        assertEquals(recorded(fixture, raw, "data"), data);
        assertTrue(!data.isUtf8() && !facts.payloadJson());
    }

    @Test
    void readsFlowParentsWithTheirChildKeys() {
        Fixture fixture = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1"));
        QueueRef parents = QueueRef.of("bull", "flows-parent");
        String parentId = fixture.expect().path("queues").path("flows-parent").path("waitingChildren").path(0).asText();
        V1Job parent = new V1JobReader(SERVER.client()).read(parents, Bytes.utf8(parentId)).orElseThrow();
        assertEquals(2, parent.dependencies().size());
        assertEquals(1, parent.processed().size());
        String done = fixture.expect().path("queues").path("flows-parent").path("processedChildren").path(0).asText();
        assertTrue(parent.processed().containsKey(Bytes.utf8(done)));
    }

    private static Bytes recorded(Fixture fixture, Bytes key, String field) {
        for (FixtureKey k : fixture.keys()) {
            if (k.key().equals(key) && k.value() instanceof KeyValue.HashValue h) {
                return h.fields().stream().filter(f -> f.name().display().equals(field)).findFirst().orElseThrow().value();
            }
        }
        throw new AssertionError("no recorded hash " + key);
    }
}
