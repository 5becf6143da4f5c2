package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Batches read on a reader thread reach the caller in order; a failure on either side stops both; one batch is read here. */
class ReadAheadTest {
    @Test
    void everyBatchReachesTheCallerInTheOrderReadOnAnotherThread() {
        List<Integer> taken = new ArrayList<>();
        List<String> readers = new ArrayList<>();
        ReadAhead.<Integer>run("numbers", false, ahead -> IntStream.range(0, 1000).forEach(i -> {
            readers.add(Thread.currentThread().getName());
            ahead.accept(i);
        }), taken::add);
        assertEquals(IntStream.range(0, 1000).boxed().toList(), taken);
        assertNotEquals(Thread.currentThread().getName(), readers.get(0), "read on a reader thread");
    }

    @Test
    void aReadOfOneBatchRunsOnTheCallersThread() {
        List<Integer> taken = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        ReadAhead.<Integer>run("numbers", true, ahead -> {
            readers.add(Thread.currentThread());
            ahead.accept(7);
        }, taken::add);
        assertEquals(List.of(7), taken);
        assertEquals(List.of(Thread.currentThread()), readers, "read here: nothing to read ahead of");
        IllegalStateException failed = assertThrows(IllegalStateException.class, () -> ReadAhead.<Integer>run("numbers", true,
                ahead -> {
                    throw new IllegalStateException("the source went away");
                }, taken::add));
        assertEquals("the source went away", failed.getMessage());
    }

    @Test
    void aReadFailureReachesTheCallerAfterEveryBatchReadBeforeIt() {
        List<Integer> taken = new ArrayList<>();
        IllegalStateException failed = assertThrows(IllegalStateException.class, () -> ReadAhead.<Integer>run("numbers", false, ahead -> {
            for (int i = 0; i < 5; i++) {
                ahead.accept(i);
            }
            throw new IllegalStateException("the source went away");
        }, taken::add));
        assertEquals("the source went away", failed.getMessage());
        assertEquals(List.of(0, 1, 2, 3, 4), taken);
    }

    @Test
    void aFailureOfTheCallerStopsTheReader() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        assertThrows(IllegalArgumentException.class, () -> ReadAhead.<Integer>run("numbers", false, ahead -> {
            try {
                for (int i = 0; ; i++) { // never ends by itself: only a stop ends it
                    ahead.accept(i);
                }
            } finally {
                stopped.countDown();
            }
        }, i -> {
            if (i == 3) {
                throw new IllegalArgumentException("a bad batch");
            }
        }));
        assertTrue(stopped.await(5, TimeUnit.SECONDS), "the reader stopped");
    }

    @Test
    void runsOneAfterAnotherReuseTheirReaderThreads() {
        Set<Thread> readers = new HashSet<>();
        for (int run = 0; run < 100; run++) {
            ReadAhead.<Integer>run("numbers", false, ahead -> {
                readers.add(Thread.currentThread());
                ahead.accept(1);
            }, i -> { });
        }
        // a reader may still be on its way back to the pool when the next run starts, so a few threads, not one
        assertTrue(readers.size() < 50, readers.size() + " reader threads for 100 runs: one started for each run");
    }
}
