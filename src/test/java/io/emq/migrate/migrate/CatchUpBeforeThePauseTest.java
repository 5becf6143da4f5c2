package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * While v1 serves, a re-sync pass refreshes the snapshot held with the keys the change feed told
 * written instead of reading the whole source; a write the feed tells after a pass drained it (after
 * that pass read the source) is caught by the next pass. V120 catches up again while v1 still serves
 * and proves what those passes wrote before it pauses v1, so the pass under the pause has nothing of
 * it left, and a row they wrote that no longer carries its v1 bytes is refused before the pause.
 */
class CatchUpBeforeThePauseTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "caught";
    static final int JOBS = 300;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    private final Set<String> added = Collections.synchronizedSet(new TreeSet<>());

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, JOBS, 100);
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
    }

    private static UnifiedJedis client() {
        return SERVER.client();
    }

    private List<MigrationResult> migrate(Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed(observer), List.of("bull"));
    }

    private static Map<String, Long> counts(int version) {
        return new Journal(Wire.open(client()), QUEUE).history().rows().stream()
                .filter(row -> row.version() == version).findFirst().orElseThrow().counts();
    }

    private static Optional<BrandedId> v2Id(String v1) {
        return new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(v1.getBytes())).get(0);
    }

    @Test
    void anEditAndAddsAfterTheCatchUpsReadAreCaughtUpWhileV1ServesAndThePassUnderThePauseHasNothingLeft() {
        boolean[] once = {false};
        List<MigrationResult> r = migrate((version, where) -> {
            if (version == 100 && where.equals("source read") && !once[0]) {
                once[0] = true;
                client().hset("bull:" + QUEUE + ":5", "data", "{\"edited\":5}");
                for (int i = 0; i < 3; i++) {
                    LiveV1.add(client(), QUEUE).ifPresent(added::add);
                }
            }
        });
        assertEquals(MigrationResult.Outcome.RETIRED, r.get(0).outcome(), r.get(0).toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true));
        Map<String, Long> catchUp = counts(100);
        assertEquals(1L, catchUp.get("refreshed-read"), "V100's pass refreshed V10's snapshot: " + catchUp);
        assertEquals(0L, catchUp.get("rewritten"), "the edit came after the pass drained the feed: " + catchUp);
        Map<String, Long> window = counts(120);
        assertEquals(1L, window.get("live-refreshed-read"), "caught up before the pause, refreshed: " + window);
        assertEquals(1L, window.get("live-rewritten"), "the edit, caught by the next pass while v1 serves: " + window);
        assertEquals(3L, window.get("live-added"), window.toString());
        assertEquals(0L, window.get("pass-added") + window.get("pass-rewritten"), "nothing left under the pause: " + window);
        byte[] payload = client().hget(Keys.queue(QUEUE).job(v2Id("5").orElseThrow()).getBytes(), "payload".getBytes());
        assertEquals("{\"edited\":5}", new String(PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()));
    }

    @Test
    void aRowTheCatchUpBeforeThePauseWroteIsProvenBeforeThePause() {
        boolean[] tampered = {false};
        List<MigrationResult> r = migrate((version, where) -> {
            if (version == 110 && where.equals("verified, not yet recorded")) {
                LiveV1.add(client(), QUEUE).ifPresent(added::add);
            }
            if (version == 120 && where.equals("pass recorded") && !tampered[0]) {
                tampered[0] = true;
                client().hset(Keys.queue(QUEUE).job(v2Id(Integer.toString(JOBS + 1)).orElseThrow()), "payload", "tampered");
            }
        });
        assertFalse(r.get(0).ok(), r.get(0).toString());
        assertEquals(Optional.of(MigrationRefused.Kind.VERIFICATION), r.get(0).refusalKind(), r.get(0).toString());
        assertFalse(new Journal(Wire.open(client()), QUEUE).header().get(JournalHeader.V1_PAUSED_AT).isPresent(),
                "refused before the pause");
        assertFalse(client().hexists("bull:" + QUEUE + ":meta", "paused"), "v1 serves");
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), false));
    }
}
