package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.KeyType;
import io.emq.migrate.v1.fixture.FixtureKey;
import io.emq.migrate.v1.fixture.KeyValue;
import io.emq.migrate.v1.fixture.KeyspaceDump;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kills the migrator (an injected crash: nothing after the crash point runs, as after kill -9) at
 * every checkpoint of every step, each time a clean run passes it ({@code <version>:<name>#<k>}),
 * re-runs it, and requires the end state of a run that never crashed: the same rows, ids, payload
 * bytes, serve order, source tombstone and journal.
 */
class CrashSafetyTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final Duration LEASE = Duration.ofMillis(300);
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(LEASE).withAcceptAnomalies(true)
            .withDropCronSchedulers(true);

    /** Every run loads the fixture as of one moment, so clean and re-run end states compare byte for byte. */
    private static final long LOADED_AT = System.currentTimeMillis();

    private static void loadFixtures() {
        SERVER.client().flushAll();
        MigrationHarness.load(SERVER.client(), "node-5.65.1", LOADED_AT);
        SERVER.client().keys("bull:orders:*:lock").forEach(k -> SERVER.client().del(k));
    }

    private static final java.util.Set<String> TIMINGS = java.util.Set.of(JournalHeader.V1_PAUSED_AT.name(), JournalHeader.WINDOW_MS.name());

    /**
     * The whole keyspace, without what legitimately differs between runs: lease fields, step timings, the pause window's
     * instants, and the lease's token a v1 meta keeps (the journal's uid and fencing token: each run's journal is new).
     */
    static String endState() {
        return new KeyspaceDump(SERVER.client()).read().stream().map(CrashSafetyTest::timeless)
                .map(Object::toString).collect(Collectors.joining("\n"));
    }

    private static FixtureKey timeless(FixtureKey k) {
        if (k.type() == KeyType.HASH && k.key().utf8().startsWith("bull:") && k.key().utf8().endsWith(":meta")) {
            return new FixtureKey(k.key(), k.type(), -1, new KeyValue.HashValue(((KeyValue.HashValue) k.value()).fields().stream()
                    .map(f -> f.name().utf8().equals("migrating-token") ? new KeyValue.Field(f.name(), Bytes.utf8("token")) : f)
                    .toList()));
        }
        if (k.type() != KeyType.HASH || !k.key().utf8().startsWith("{emq}:migration:")) {
            return new FixtureKey(k.key(), k.type(), k.pttl() > 0 ? 1 : -1, k.value());
        }
        List<KeyValue.Field> fields = ((KeyValue.HashValue) k.value()).fields().stream()
                .filter(f -> !f.name().utf8().startsWith("lock_") && !f.name().utf8().equals("started_on"))
                .map(f -> f.name().utf8().startsWith("history:") ? new KeyValue.Field(f.name(), Bytes.utf8("row")) : f)
                .map(f -> TIMINGS.contains(f.name().utf8()) ? new KeyValue.Field(f.name(), Bytes.utf8("ms")) : f)
                .toList();
        return new FixtureKey(k.key(), k.type(), -1, new KeyValue.HashValue(fields));
    }

    private static List<MigrationResult> run(Checkpoints checkpoints) {
        return MigrationHarness.migrate(SERVER, SERVER, OPTIONS, checkpoints, List.of("bull"));
    }

    /**
     * Waits until every journal's lease has lapsed by the server's clock (the crashed run's last
     * renewal may land late on a loaded machine, so a fixed sleep is not enough); fails after 30 leases.
     */
    private static void awaitLeasesLapsed(List<String> journals) throws InterruptedException {
        long deadline = System.nanoTime() + LEASE.multipliedBy(30).toNanos();
        while (true) {
            long now = (Long) SERVER.client().eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
            long latest = journals.stream()
                    .map(key -> SERVER.client().hget(key, "lock_until")).filter(Objects::nonNull)
                    .mapToLong(Long::parseLong).max().orElse(0);
            if (latest < now) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "a crashed run's lease never lapsed");
            Thread.sleep(latest - now + 1);
        }
    }

    @Test
    void aCrashAtAnyPointOfAnyStepThenARerunGivesTheCleanResult() throws InterruptedException {
        loadFixtures();
        Map<String, Long> passes = new LinkedHashMap<>();
        List<MigrationResult> clean = run(Checkpoints.observed((version, where) -> passes.merge(version + ":" + where, 1L, Long::sum)));
        clean.forEach(r -> assertTrue(r.ok(), r.toString()));
        String expected = endState();
        List<String> journals = clean.stream().map(r -> Keys.migrationJournal(r.v2Queue())).toList();
        int crashes = 0;
        for (Map.Entry<String, Long> checkpoint : passes.entrySet()) {
            for (long k = 1; k <= checkpoint.getValue(); k++) {
                String at = checkpoint.getKey() + "#" + k;
                loadFixtures();
                Checkpoints crashing = Checkpoints.throwingAt(at);
                assertThrows(Checkpoints.InjectedCrash.class, () -> run(crashing), "a crash at " + at);
                crashes++;
                awaitLeasesLapsed(journals);
                List<MigrationResult> rerun = run(Checkpoints.none());
                rerun.forEach(r -> assertTrue(r.ok(), "after a crash at " + at + ": " + r));
                assertEquals(expected, endState(), "after a crash at " + at);
            }
        }
        assertTrue(crashes >= 30, "crash points exercised: " + crashes);
        System.out.println("crash points exercised: " + crashes);
    }
}
