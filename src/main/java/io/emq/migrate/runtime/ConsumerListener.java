package io.emq.migrate.runtime;

import io.emq.migrate.wire.EmqWireException;

/** Observes what a {@link Consumer} settled. Called from worker and beat threads; must be thread-safe. */
public interface ConsumerListener {

    default void completed(Delivery job) {
    }

    /** The handler failed and the job went back to the schedule. */
    default void retried(Delivery job, Throwable cause) {
    }

    /** The handler failed at max attempts and the job was dead-lettered. */
    default void dead(Delivery job, Throwable cause) {
    }

    /** A settlement was refused {@code EMQSTALE}: the job was re-claimed by another worker meanwhile. */
    default void staleRefused(Delivery job, EmqWireException.Stale refusal) {
    }

    /** The row was gone at settlement (removed or drained by an operator meanwhile). */
    default void gone(Delivery job) {
    }

    /** A lease extension found the job no longer held under this token. */
    default void leaseLost(String id, long token) {
    }

    /**
     * Entries of the queue's flow outbox were delivered to their parents in other queues (from the
     * beat thread, or a worker's drained check). Malformed entries were taken off the outbox and
     * are listed in the sweep; nothing else keeps them.
     */
    default void outboxDelivered(OutboxSweep sweep) {
    }

    /** A wire or server error the consumer survived (it backs off and goes on). */
    default void error(Throwable error) {
    }
}
