package io.emq.migrate.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnowflakeMinterTest {
    private static final long T0 = Snowflake.EPOCH_MS + 1_000_000L;

    @Test
    void burstsCountTheSequenceWithinOneMillisecond() {
        SnowflakeMinter minter = new SnowflakeMinter(7, () -> T0);
        long a = minter.nextSnowflake();
        long b = minter.nextSnowflake();
        assertEquals(1_000_000L, a >>> 22);
        assertEquals(0, Snowflake.sequenceOf(a));
        assertEquals(1, Snowflake.sequenceOf(b));
        assertEquals(7, Snowflake.nodeOf(b));
    }

    @Test
    void aFullSequenceBorrowsTheNextMillisecond() {
        SnowflakeMinter minter = new SnowflakeMinter(1, () -> T0);
        long last = 0;
        for (int i = 0; i <= Snowflake.MAX_SEQ + 1; i++) {
            last = minter.nextSnowflake();
        }
        assertEquals(1_000_001L, last >>> 22);
        assertEquals(0, Snowflake.sequenceOf(last));
    }

    @Test
    void clockRegressionKeepsIdsIncreasing() {
        AtomicLong clock = new AtomicLong(T0);
        SnowflakeMinter minter = new SnowflakeMinter(3, clock::get);
        String before = minter.mintJob().toString();
        clock.set(T0 - 60_000);
        String after = minter.mintJob().toString();
        assertTrue(before.compareTo(after) < 0, before + " < " + after);
    }

    @Test
    void concurrentMintsAreUniqueAndEachThreadSeesThemIncrease() throws InterruptedException {
        SnowflakeMinter minter = new SnowflakeMinter(9);
        Set<String> all = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        List<Boolean> monotonic = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                String prev = "";
                boolean ok = true;
                for (int i = 0; i < 20_000; i++) {
                    String id = minter.mintJob().toString();
                    ok &= id.compareTo(prev) > 0;
                    prev = id;
                    all.add(id);
                }
                synchronized (monotonic) {
                    monotonic.add(ok);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(80_000, all.size());
        assertEquals(List.of(true, true, true, true), monotonic);
    }
}
