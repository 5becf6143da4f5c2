package io.emq.migrate.v1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lengths asked ahead through a ring smaller than the read (it asks more as the read takes them, a batch larger
 * than the ring included), a key that is not a hash read as no length, lock TTLs only where asked, and a connection
 * left with replies unread never serves another command.
 */
class LengthsAheadTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();
    private static final int JOBS = 100;

    /** Job {@code n}'s hash holds {@code n} bytes of data; job 13's key is a string; even jobs' locks are asked, job 4's lock lives. */
    @BeforeEach
    void jobs() {
        UnifiedJedis client = SERVER.client();
        client.flushAll();
        for (int n = 0; n < JOBS; n++) {
            if (n == 13) {
                client.set(key(n), "not a hash");
            } else {
                client.hset(key(n), "data", "x".repeat(n));
            }
        }
        client.psetex("lock:4", 600_000, "token");
    }

    private static String key(int n) {
        return "job:" + n;
    }

    /** Every job in order, locks of even ones. */
    private static final class InOrder implements LengthsAhead.Upcoming {
        private int next;

        @Override
        public int next() {
            return next < JOBS ? next++ : -1;
        }

        @Override
        public byte[] key(int entry) {
            return LengthsAheadTest.key(entry).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public byte[] lockKey(int entry) {
            return entry % 2 == 0 ? ("lock:" + entry).getBytes(StandardCharsets.UTF_8) : null;
        }
    }

    @Test
    void aRingSmallerThanTheReadAsksMoreAsTheReadTakesThem() {
        try (LengthsAhead ahead = new LengthsAhead(SERVER.client(), new InOrder(), 7)) {
            ahead.fill();
            for (int from = 0; from < JOBS; from += 10) {
                int[] entries = new int[10];
                long[] lengths = new long[10];
                long[] locks = new long[10];
                for (int n = 0; n < 10; n++) {
                    entries[n] = from + n;
                }
                ahead.take(entries, lengths, locks);
                for (int n = 0; n < 10; n++) {
                    int job = from + n;
                    assertEquals(job == 13 ? 0 : job, lengths[n], "the length of job " + job);
                    long lock = locks[n];
                    if (job == 4) {
                        assertEquals(true, lock > 0 && lock <= 600_000, "job 4's lock lives: " + lock);
                    } else {
                        assertEquals(-2, lock, "job " + job + "'s lock: gone, or not asked");
                    }
                }
            }
        }
    }

    @Test
    void aReadThatTakesAnotherJobThanTheNextAskedForFails() {
        try (LengthsAhead ahead = new LengthsAhead(SERVER.client(), new InOrder(), 7)) {
            assertThrows(IllegalStateException.class, () -> ahead.take(new int[] {1}, new long[1], new long[1]));
        }
    }

    @Test
    void aConnectionLeftWithRepliesUnreadServesNoOtherCommand() {
        try (LengthsAhead ahead = new LengthsAhead(SERVER.client(), new InOrder(), 50)) {
            ahead.fill();
            ahead.take(new int[] {0}, new long[1], new long[1]);
        }
        for (int n = 0; n < 13; n++) {
            assertArrayEquals(new String[] {"x".repeat(n)}, new String[] {SERVER.client().hget(key(n), "data")},
                    "a later command gets its own reply, not one left unread");
        }
    }
}
