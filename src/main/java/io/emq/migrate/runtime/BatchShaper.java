package io.emq.migrate.runtime;

import java.util.OptionalInt;

/**
 * When a batch consumer should claim (the reference's batch shaper core): a pure decision from the
 * pending depth it sees and the ms since its window opened. It flushes the whole depth once the
 * depth reaches {@code minSize}, or once {@code timeoutMs} has passed with anything pending;
 * otherwise it waits. No clock and no I/O: the caller claims the size it answers.
 */
public record BatchShaper(int minSize, long timeoutMs) {
    public BatchShaper {
        if (minSize < 1 || timeoutMs < 1) {
            throw new IllegalArgumentException("a batch shaper needs min size and timeout of at least 1, got "
                    + minSize + ", " + timeoutMs);
        }
    }

    /** The batch size to claim now, or empty to keep waiting. */
    public OptionalInt decide(long depth, long elapsedMs) {
        if (depth >= minSize || (elapsedMs >= timeoutMs && depth > 0)) {
            return OptionalInt.of((int) Math.min(depth, Integer.MAX_VALUE));
        }
        return OptionalInt.empty();
    }
}
