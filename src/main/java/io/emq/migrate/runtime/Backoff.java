package io.emq.migrate.runtime;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The delay before a failed job runs again, as a function of the attempts it has made (the claim
 * token: 1 after the first claim). Pure; computed above the wire and passed to {@code retry}.
 */
public sealed interface Backoff {

    /** The delay before the next attempt, after {@code attempts} attempts (>= 1). */
    Duration delay(long attempts);

    /** The longest delay this backoff can answer. */
    Duration ceiling();

    static Backoff fixed(Duration delay) {
        return new Fixed(delay);
    }

    /** {@code base · 2^(attempts−1)}, capped at {@code cap}. */
    static Backoff exponential(Duration base, Duration cap) {
        return new Exponential(base, cap);
    }

    /** Full jitter: a uniform delay in {@code [0, inner]}. */
    static Backoff fullJitter(Backoff inner) {
        return new FullJitter(inner);
    }

    record Fixed(Duration delay) implements Backoff {
        @Override
        public Duration delay(long attempts) {
            return delay;
        }

        @Override
        public Duration ceiling() {
            return delay;
        }
    }

    record Exponential(Duration base, Duration cap) implements Backoff {
        @Override
        public Duration delay(long attempts) {
            long shift = Math.max(0, attempts - 1);
            long baseMs = base.toMillis();
            if (shift >= 62 || baseMs > (cap.toMillis() >> shift)) {
                return cap;
            }
            return Duration.ofMillis(Math.min(cap.toMillis(), baseMs << shift));
        }

        @Override
        public Duration ceiling() {
            return cap;
        }
    }

    record FullJitter(Backoff inner) implements Backoff {
        @Override
        public Duration delay(long attempts) {
            long max = inner.delay(attempts).toMillis();
            return Duration.ofMillis(ThreadLocalRandom.current().nextLong(max + 1));
        }

        @Override
        public Duration ceiling() {
            return inner.ceiling();
        }
    }
}
