package io.emq.migrate.migrate;

import io.emq.migrate.payload.PayloadPolicy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.runtime.Consumer;
import io.emq.migrate.runtime.Delivery;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.v1.fixture.Fixture;
import io.emq.migrate.v1.fixture.FixtureLoader;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * Migrates a recorded fixture and drains every migrated queue with the bundled consumer (one
 * worker, so claim order is serve order), checking order and payload bytes against the fixture.
 */
final class FixtureDrainCheck {
    static final Map<String, String> RENAMES = Map.of("reports 2024", "reports-2024", "{orders}", "orders-braced");
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withAcceptAnomalies(true)
            .withDropCronSchedulers(true).withDropLegacyRepeatables(true).withRenames(RENAMES);

    private FixtureDrainCheck() {
    }

    /** Loads the fixture into the source (lapsing its live locks); returns it. */
    static Fixture load(String fixtureName, UnifiedJedis source) {
        Fixture fixture = new FixtureLoader(source).load(FixtureLoader.resource(fixtureName));
        source.keys("*:lock").forEach(source::del);
        return fixture;
    }

    /** Migrates every queue of the loaded fixture into the target; returns the target's wire. */
    static Wire migrate(Fixture fixture, UnifiedJedis source, String sourceUri, UnifiedJedis target) {
        List<String> prefixes = fixture.prefixes();
        Wire targetWire = Wire.open(target);
        Map<String, String> renames = new HashMap<>(RENAMES);
        List<String> queues = new ArrayList<>();
        fixture.expect().get("queues").fieldNames().forEachRemaining(queues::add);
        renames.keySet().retainAll(queues); // a rename must name a queue of the source
        List<MigrationResult> results = new Migrator(Wire.unfenced(source), targetWire, sourceUri,
                OPTIONS.withRenames(renames), Checkpoints.none()).migrate(prefixes, List.of());
        results.forEach(r -> assertTrue(r.ok(), fixture.name() + ": " + r));
        return targetWire;
    }

    /** Loads the fixture into the source, migrates it into the target, drains and checks each queue; returns queues checked. */
    static int run(String fixtureName, UnifiedJedis source, String sourceUri, UnifiedJedis target) throws InterruptedException {
        Fixture fixture = load(fixtureName, source);
        Map<String, byte[]> dataBefore = new HashMap<>();
        JsonNode expect = fixture.expect();
        Iterator<Map.Entry<String, JsonNode>> queues = expect.get("queues").fields();
        List<Map.Entry<String, JsonNode>> all = new ArrayList<>();
        queues.forEachRemaining(all::add);
        for (Map.Entry<String, JsonNode> q : all) {
            String prefix = q.getValue().path("prefix").asText("bull");
            for (JsonNode id : q.getValue().path("serveOrder")) {
                byte[] data = source.hget((prefix + ":" + q.getKey() + ":" + id.asText()).getBytes(StandardCharsets.UTF_8),
                        "data".getBytes(StandardCharsets.UTF_8));
                dataBefore.put(q.getKey() + "/" + id.asText(), data == null ? new byte[0] : data);
            }
        }
        Wire targetWire = migrate(fixture, source, sourceUri, target);
        int checked = 0;
        for (Map.Entry<String, JsonNode> q : all) {
            String v2 = RENAMES.getOrDefault(q.getKey(), q.getKey());
            List<String> expected = new ArrayList<>();
            q.getValue().path("serveOrder").forEach(id -> expected.add(id.asText()));
            if (expected.isEmpty()) {
                continue;
            }
            Jobs jobs = Jobs.on(targetWire, v2);
            jobs.resume();
            List<Delivery> seen = Collections.synchronizedList(new ArrayList<>());
            try (Consumer consumer = Consumer.on(jobs, seen::add).workers(1).lease(Duration.ofSeconds(30)).build()) {
                consumer.runUntilEmpty();
            }
            Journal journal = new Journal(targetWire, v2);
            PayloadPolicy policy = journal.header().get(JournalHeader.POLICY).orElseThrow();
            List<String> order = new ArrayList<>();
            for (Delivery d : seen) {
                String v1 = new String(journal.ids().lookupV2(BrandedId.of(d.id())).orElseThrow(), StandardCharsets.UTF_8);
                order.add(v1);
                Optional<byte[]> data = policy.v1Data(d.payload());
                byte[] before = dataBefore.get(q.getKey() + "/" + v1);
                if (before != null) {
                    assertArrayEquals(before, data.orElseThrow(), fixtureName + " " + v1 + ": payload bytes");
                }
            }
            List<String> wasLocked = new ArrayList<>();
            q.getValue().path("liveLocks").forEach(id -> wasLocked.add(id.asText()));
            List<String> served = order.subList(0, Math.min(order.size(), expected.size() + wasLocked.size()));
            assertTrue(served.subList(0, wasLocked.size()).containsAll(wasLocked), "once their locks lapsed, the"
                    + " formerly live active jobs are served first, as stalled jobs: " + served);
            assertEquals(expected, served.stream().filter(id -> !wasLocked.contains(id)).toList(),
                    fixtureName + "/" + q.getKey() + ": drained in v1 serve order");
            checked++;
        }
        return checked;
    }
}
