package io.emq.migrate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void fixedIsTheSameEveryAttempt() {
        Backoff b = Backoff.fixed(Duration.ofMillis(250));
        assertEquals(Duration.ofMillis(250), b.delay(1));
        assertEquals(Duration.ofMillis(250), b.delay(9));
    }

    @Test
    void exponentialDoublesFromTheBaseAndStopsAtTheCap() {
        Backoff b = Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(1000));
        assertEquals(Duration.ofMillis(100), b.delay(1));
        assertEquals(Duration.ofMillis(200), b.delay(2));
        assertEquals(Duration.ofMillis(800), b.delay(4));
        assertEquals(Duration.ofMillis(1000), b.delay(5));
        assertEquals(Duration.ofMillis(1000), b.delay(500));
        assertEquals(Duration.ofMillis(1000), b.ceiling());
    }

    @Test
    void fullJitterStaysWithinZeroAndTheInnerDelay() {
        Backoff b = Backoff.fullJitter(Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(80)));
        boolean sawLow = false;
        boolean sawHigh = false;
        for (int i = 0; i < 2000; i++) {
            long ms = b.delay(3).toMillis();
            assertTrue(ms >= 0 && ms <= 40, "delay " + ms);
            sawLow |= ms < 10;
            sawHigh |= ms > 30;
        }
        assertTrue(sawLow && sawHigh, "jitter does not spread over the range");
        assertEquals(Duration.ofMillis(80), b.ceiling());
    }
}
