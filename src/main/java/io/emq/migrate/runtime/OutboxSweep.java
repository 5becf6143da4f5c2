package io.emq.migrate.runtime;

import java.util.List;

/**
 * One pass over the head of a queue's {@code flow:outbox}: the outcome of each entry taken, in
 * outbox order, and the raw bytes of the malformed ones (dropped from the outbox, kept here so
 * the caller can log them).
 */
public record OutboxSweep(List<FlowDelivery> outcomes, List<byte[]> malformed) {

    public OutboxSweep {
        outcomes = List.copyOf(outcomes);
        malformed = List.copyOf(malformed);
    }

    /** Entries taken off the outbox. */
    public int taken() {
        return outcomes.size();
    }

    public long count(FlowDelivery outcome) {
        return outcomes.stream().filter(outcome::equals).count();
    }
}
