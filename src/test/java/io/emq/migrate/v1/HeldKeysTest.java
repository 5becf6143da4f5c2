package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Protocol;

/**
 * Discovery holding every key of its pass ({@link Discovery#discoverHoldingKeys}, the dry run's): the same
 * answer as {@link Discovery#discover}, each queue's held keys those a scan of its own finds, and a snapshot
 * read from them the snapshot read with a scan of its own; when they do not fit, no keys and still one pass.
 */
class HeldKeysTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @BeforeEach
    void flush() {
        SERVER.client().flushAll();
    }

    @ParameterizedTest
    @ValueSource(strings = {"node-5.65.1", "node-large-payload", "elixir-v1", "legacy-and-foreign"})
    void aSnapshotReadFromTheHeldKeysIsTheOneReadWithAScanOfItsOwn(String name) {
        List<String> prefixes = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource(name)).prefixes();
        Discovery.Discovered held = new Discovery(SERVER.client()).discoverHoldingKeys(prefixes, n -> { });
        DiscoveryResult found = new Discovery(SERVER.client()).discover(prefixes);
        assertEquals(found, held.result());
        assertTrue(held.keys().isPresent(), "a fixture's keys fit");

        QueueBases bases = new QueueBases(found.queues());
        SharedScan<QueueRef> ownScan = new SharedScan<>(SERVER.client(), bases::owner, q -> q.prefix().concat(":"), QueueRef::base, 0);
        QueueSnapshotReader scanning = new QueueSnapshotReader(SERVER.client(), bases);
        QueueSnapshotReader fromHeld = new QueueSnapshotReader(SERVER.client(), held.keys().get());
        for (QueueRef q : found.queues()) {
            assertEquals(sorted(ownScan, q), sorted(held.keys().get(), q), q.display() + " keys");
            QueueSnapshot expected = scanning.read(q);
            QueueSnapshot actual = fromHeld.read(q);
            assertEquals(expected.anomalies(), actual.anomalies(), q.display() + " anomalies, in order");
            assertEquals(expected.keyClasses(), actual.keyClasses(), q.display() + " key classes");
            assertEquals(expected.subkeys(), actual.subkeys(), q.display() + " per-job keys");
            assertEquals(expected.schedulers(), actual.schedulers(), q.display() + " schedulers");
            assertEquals(expected.flowParents(), actual.flowParents(), q.display() + " flow parents");
            assertEquals(ids(expected), ids(actual), q.display() + " jobs in rank order");
            assertEquals(expected.dedupKeys().stream().map(DedupEntry::dedupId).toList(),
                    actual.dedupKeys().stream().map(DedupEntry::dedupId).toList(), q.display() + " dedup keys");
        }
    }

    @Test
    void keysThatDoNotFitAreDroppedButTheForeignOnesStillJudgedInOnePass() {
        List<String> prefixes = new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("legacy-and-foreign")).prefixes();
        DiscoveryResult found = new Discovery(SERVER.client()).discover(prefixes);
        assertTrue(found.foreignKeys() > 0 && found.foreignKeys() <= DiscoveryResult.SAMPLE, "every foreign key is in the sample");
        int foreignWeight = found.foreignSample().stream().mapToInt(k -> k.length() + 8).sum();

        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        Discovery.Discovered onlyForeignFit = new Discovery(SERVER.client(), foreignWeight).discoverHoldingKeys(prefixes, n -> { });
        assertEquals(found, onlyForeignFit.result());
        assertFalse(onlyForeignFit.keys().isPresent(), "every key does not fit");
        assertEquals(prefixes.size(), CommandStats.calls(SERVER.client(), "scan"), "one page a prefix, no second pass: the foreign keys were still held");

        Discovery.Discovered nothingFits = new Discovery(SERVER.client(), 1).discoverHoldingKeys(prefixes, n -> { });
        assertEquals(found, nothingFits.result());
        assertFalse(nothingFits.keys().isPresent());
    }

    private static List<String> sorted(KeySource<QueueRef> keys, QueueRef q) {
        List<String> out = new ArrayList<>();
        keys.keysOf(q, batch -> batch.forEach(k -> out.add(k.display())));
        out.sort(null);
        return out;
    }

    private static List<Bytes> ids(QueueSnapshot snap) {
        return snap.jobsInRankOrder().stream().map(JobFacts::id).toList();
    }

}
