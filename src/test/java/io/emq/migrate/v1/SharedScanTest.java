package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    private static Set<String> keys(Optional<List<Bytes>> found) {
        return found.orElseThrow().stream().map(Bytes::display).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> expected(String name) {
        return List.of("meta", "id", "1", "2", "2:logs", "de:x").stream().map(s -> "bull:" + name + ":" + s)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void queuesWithGlobCharactersOrNestedNamesGetExactlyTheirOwnKeys() {
        SharedScan scan = new SharedScan(SERVER.client(), bases());
        for (String name : NAMES) {
            assertEquals(expected(name), keys(scan.keysOf(q(name))), name);
        }
    }

    @Test
    void queuesAskingAtOnceShareScansAndEachGetsItsOwnKeys() throws Exception {
        SharedScan scan = new SharedScan(SERVER.client(), bases());
        ExecutorService pool = Executors.newFixedThreadPool(NAMES.size());
        try {
            List<Future<Set<String>>> found = new ArrayList<>();
            for (String name : NAMES) {
                found.add(pool.submit(() -> keys(scan.keysOf(q(name)))));
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
        SharedScan scan = new SharedScan(SERVER.client(), bases());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> busy = new ArrayList<>();
            for (int t = 0; t < 3; t++) { // other queues asking again and again: a scan is nearly always running
                busy.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        scan.keysOf(q("plain"));
                    }
                }));
            }
            for (int n = 3; n <= 60; n++) {
                SERVER.client().set("bull:nest:" + n, "appeared while scans ran");
                Set<String> seen = keys(scan.keysOf(q("nest")));
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
    void aQueueWithMoreKeysThanAShareHoldsIsToldToScanAlone() {
        SharedScan scan = new SharedScan(SERVER.client(), bases(), 5);
        assertTrue(scan.keysOf(q("plain")).isEmpty(), "six keys do not fit a share of five");
        assertEquals(expected("plain"), keys(new SharedScan(SERVER.client(), bases(), 6).keysOf(q("plain"))));
    }
}
