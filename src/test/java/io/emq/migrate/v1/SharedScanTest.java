package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.CommandStats;
import io.emq.migrate.testing.RealServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Protocol;

/** One scan shared by many queues: each gets exactly its own keys, from a scan that started after it asked. */
class SharedScanTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final List<String> NAMES = List.of("plain", "a*b", "c?d", "[e]", "f\\g", "nest", "nest:ed");

    @BeforeEach
    void load() {
        SERVER.client().flushAll();
        for (String name : NAMES) {
            for (String suffix : List.of("meta", "id", "1", "2", "2:logs", "de:x")) {
                SERVER.client().set("bull:" + name + ":" + suffix, "v");
            }
        }
        SERVER.client().set("bull:ab:1", "not a*b's"); // what the glob a*b would match unescaped
        SERVER.client().set("other:plain:1", "another prefix");
    }

    private static QueueRef q(String name) {
        return QueueRef.of("bull", name);
    }

    private static QueueBases bases() {
        return new QueueBases(NAMES.stream().map(SharedScanTest::q).toList());
    }

    private static <Q> Set<String> keys(SharedScan<Q> scan, Q queue) {
        Set<String> out = new TreeSet<>();
        scan.keysOf(queue, batch -> batch.forEach(k -> assertTrue(out.add(k.display()), "each key once: " + k.display())));
        return out;
    }

    private static SharedScan<QueueRef> sharing(int maxKeys) {
        QueueBases bases = bases();
        return new SharedScan<>(SERVER.client(), bases::owner, q -> q.prefix().concat(":"), QueueRef::base, maxKeys);
    }

    private static Set<String> expected(String name) {
        return List.of("meta", "id", "1", "2", "2:logs", "de:x").stream().map(s -> "bull:" + name + ":" + s)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void queuesWithGlobCharactersOrNestedNamesGetExactlyTheirOwnKeys() {
        SharedScan scan = SharedScan.v1(SERVER.client(), bases());
        for (String name : NAMES) {
            assertEquals(expected(name), keys(scan, q(name)), name);
        }
    }

    @Test
    void queuesAskingAtOnceShareScansAndEachGetsItsOwnKeys() throws Exception {
        SharedScan scan = SharedScan.v1(SERVER.client(), bases());
        ExecutorService pool = Executors.newFixedThreadPool(NAMES.size());
        try {
            List<Future<Set<String>>> found = new ArrayList<>();
            for (String name : NAMES) {
                found.add(pool.submit(() -> keys(scan, q(name))));
            }
            for (int i = 0; i < NAMES.size(); i++) {
                assertEquals(expected(NAMES.get(i)), found.get(i).get(), NAMES.get(i));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void keysWrittenBeforeAQueueAsksAreSeenEvenWhileOtherQueuesKeepScanning() throws Exception {
        SharedScan scan = SharedScan.v1(SERVER.client(), bases());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> busy = new ArrayList<>();
            for (int t = 0; t < 3; t++) { // other queues asking again and again: a scan is nearly always running
                busy.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        keys(scan, q("plain"));
                    }
                }));
            }
            for (int n = 3; n <= 60; n++) {
                SERVER.client().set("bull:nest:" + n, "appeared while scans ran");
                Set<String> seen = keys(scan, q("nest"));
                for (int k = 3; k <= n; k++) {
                    assertTrue(seen.contains("bull:nest:" + k), "bull:nest:" + k + " was written before nest asked");
                }
            }
            for (Future<?> f : busy) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aQueueWithMoreKeysThanAShareHoldsScansAloneAndFindsTheSameKeys() throws Exception {
        assertEquals(Map.of("plain", 6, "nest", 6), meet(sharing(6), "plain", "nest"), "six keys fit a share of six");
        assertEquals(Map.of("plain", -1, "nest", -1), meet(sharing(5), "plain", "nest"), "six keys do not fit a share of five");
        for (String name : NAMES) {
            assertEquals(expected(name), keys(sharing(5), q(name)), name);
        }
    }

    @Test
    void aQueueAloneInAskingScansAloneHoldingNoShareAndFindsItsKeys() {
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        assertTrue(sharing(6).share(q("plain")).isEmpty(), "no other queue asked: no round is run for one");
        assertEquals(0, CommandStats.calls(SERVER.client(), "scan"), "no scan ran");
        for (String name : NAMES) {
            assertEquals(expected(name), keys(sharing(6), q(name)), name);
        }
    }

    /** Each queue's share's size (-1: none, it scans alone) when all of these queues ask in one round. */
    private static Map<String, Integer> meet(SharedScan<QueueRef> sharing, String... names) throws Exception {
        WorkPermits working = new WorkPermits(names.length + 1);
        SharedScan<QueueRef> scan = sharing.stepAsideWith(working);
        ExecutorService pool = Executors.newFixedThreadPool(names.length);
        working.enter(); // a caller at work: the round starts once every queue has asked
        try {
            Map<String, Future<Integer>> shares = new TreeMap<>();
            AtomicInteger asking = new AtomicInteger();
            for (String name : names) {
                shares.put(name, pool.submit(() -> {
                    working.enter();
                    asking.incrementAndGet();
                    try {
                        return scan.share(q(name)).map(List::size).orElse(-1);
                    } finally {
                        working.leave();
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (asking.get() < names.length && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            working.leave();
            Map<String, Integer> out = new TreeMap<>();
            for (Map.Entry<String, Future<Integer>> e : shares.entrySet()) {
                out.put(e.getKey(), e.getValue().get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void queuesThatStepAsideWhileTheyWaitAllMeetInOneScanThoughOnlyOneWorksAtATime() throws Exception {
        WorkPermits working = new WorkPermits(2);
        SharedScan<QueueRef> scan = SharedScan.v1(SERVER.client(), bases()).stepAsideWith(working);
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        AtomicInteger entered = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(NAMES.size());
        working.enter(); // another caller at work: no round starts before it is done
        try {
            List<Future<Set<String>>> found = new ArrayList<>();
            for (String name : NAMES) {
                found.add(pool.submit(() -> {
                    working.enter(); // the one other permit: the queues take turns
                    entered.incrementAndGet();
                    try {
                        return keys(scan, q(name));
                    } finally {
                        working.leave();
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (entered.get() < NAMES.size() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            working.leave();
            for (int i = 0; i < NAMES.size(); i++) {
                assertEquals(expected(NAMES.get(i)), found.get(i).get(), NAMES.get(i));
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, CommandStats.calls(SERVER.client(), "scan"), "one scan for the seven queues");
    }

    /**
     * A caller expected by the permits (handed to a thread that starts late: a loaded machine) is waited for: the round
     * that the first caller leads serves it too, one scan for both, where without it the first would scan alone and
     * the late one after it (seen under load: 23 scans for a re-run over 40 retired queues, where 3 were enough).
     */
    @Test
    void aCallerExpectedButNotYetStartedIsWaitedForAndMeetsTheOthersInOneScan() throws Exception {
        WorkPermits working = new WorkPermits(1);
        SharedScan<QueueRef> scan = SharedScan.v1(SERVER.client(), bases()).stepAsideWith(working);
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        working.expect(2);
        try {
            Future<Set<String>> first = pool.submit(() -> asExpected(working, scan, "plain"));
            Future<Set<String>> late = pool.submit(() -> {
                Thread.sleep(300); // a thread the machine starts late
                return asExpected(working, scan, "nest");
            });
            assertEquals(expected("plain"), first.get(10, TimeUnit.SECONDS));
            assertEquals(expected("nest"), late.get(10, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, CommandStats.calls(SERVER.client(), "scan"), "one scan for the two queues");
    }

    private static Set<String> asExpected(WorkPermits working, SharedScan<QueueRef> scan, String name) {
        working.enterExpected();
        try {
            return keys(scan, q(name));
        } finally {
            working.leave();
        }
    }

    @Test
    void v2KeysBelongToTheNameInTheirBracesAloneOrShared() {
        for (String key : List.of("emq:{a}:meta", "emq:{a}:job:1", "emq:{ab}:meta", "emq:{a}x:stray", "emq:{a", "{emq}:version")) {
            SERVER.client().set(key, "v");
        }
        Set<String> a = new TreeSet<>(List.of("emq:{a}:meta", "emq:{a}:job:1"));
        assertEquals(a, keys(SharedScan.v2(SERVER.client(), false), "a"));
        assertEquals(a, keys(SharedScan.v2(SERVER.client(), true), "a"), "scanned alone, as on a cluster");
        assertEquals(Set.of("emq:{ab}:meta"), keys(SharedScan.v2(SERVER.client(), false), "ab"));
    }

    /**
     * A v2 queue scanning alone on a standalone server has its next page asked for while it holds the
     * page before: the server has the second SCAN before the first page is handed on; and the pages
     * still hold exactly the queue's keys, each once.
     */
    @Test
    void aV2QueueScanningAloneHasItsNextPageAskedForWhileItHoldsAPage() {
        Set<String> mine = new TreeSet<>();
        try (AbstractPipeline p = SERVER.client().pipelined()) {
            for (int i = 0; i < 15_000; i++) {
                p.set("emq:{big}:job:" + i, "v");
                p.set("emq:{bigger}:job:" + i, "v");
                mine.add("emq:{big}:job:" + i);
            }
            p.sync();
        }
        SERVER.client().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        Set<String> found = new TreeSet<>();
        AtomicInteger pages = new AtomicInteger();
        SharedScan.v2(SERVER.client(), false).keysOf("big", batch -> {
            if (pages.getAndIncrement() == 0) {
                assertTrue(scansSoon(2), "the next page asked for while the first is held");
            }
            batch.forEach(k -> assertTrue(found.add(k.display()), "each key once: " + k.display()));
        });
        assertTrue(pages.get() >= 2, "pages: " + pages);
        assertEquals(mine, found);
    }

    /** Whether the server has had {@code calls} SCANs since the last RESETSTAT within a few seconds. */
    private static boolean scansSoon(long calls) {
        for (int i = 0; i < 100; i++) {
            if (CommandStats.calls(SERVER.client(), "scan") >= calls) {
                return true;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
