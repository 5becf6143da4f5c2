package io.emq.migrate.runtime;

/**
 * The work done for one job. Returning completes the job; throwing retries it (dead at max attempts), except
 * {@link JobAbandoned}, which leaves it unsettled, to its lease.
 */
@FunctionalInterface
public interface JobHandler {
    void handle(Delivery job) throws Exception;
}
