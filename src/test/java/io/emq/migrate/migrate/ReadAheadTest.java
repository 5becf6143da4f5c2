package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Batches read on a reader thread reach the caller in order; a failure on either side stops both. */
class ReadAheadTest {
    @Test
    void everyBatchReachesTheCallerInTheOrderReadOnAnotherThread() {
        List<Integer> taken = new ArrayList<>();
        List<String> readers = new ArrayList<>();
        ReadAhead.<Integer>run("numbers", ahead -> IntStream.range(0, 1000).forEach(i -> {
            readers.add(Thread.currentThread().getName());
            ahead.accept(i);
        }), taken::add);
        assertEquals(IntStream.range(0, 1000).boxed().toList(), taken);
        assertNotEquals(Thread.currentThread().getName(), readers.get(0), "read on a reader thread");
    }

    @Test
    void aReadFailureReachesTheCallerAfterEveryBatchReadBeforeIt() {
        List<Integer> taken = new ArrayList<>();
        IllegalStateException failed = assertThrows(IllegalStateException.class, () -> ReadAhead.<Integer>run("numbers", ahead -> {
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
        AtomicReference<Thread> reader = new AtomicReference<>();
        assertThrows(IllegalArgumentException.class, () -> ReadAhead.<Integer>run("numbers", ahead -> {
            reader.set(Thread.currentThread());
            for (int i = 0; ; i++) { // never ends by itself: only a stop ends it
                ahead.accept(i);
            }
        }, i -> {
            if (i == 3) {
                throw new IllegalArgumentException("a bad batch");
            }
        }));
        reader.get().join(5000);
        assertFalse(reader.get().isAlive(), "the reader stopped");
    }
}
