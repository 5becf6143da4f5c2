package io.emq.migrate.runtime;

/**
 * Thrown by a handler whose work was stopped rather than failed (a drain that exits ended it): the consumer neither
 * completes nor retries the job and stops extending its lease, so the job goes back to pending when the lease lapses,
 * with no attempt spent on it and no dead-lettering.
 */
public final class JobAbandoned extends Exception {
    public JobAbandoned(String why) {
        super(why);
    }
}
