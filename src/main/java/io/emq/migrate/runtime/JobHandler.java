package io.emq.migrate.runtime;

/** The work done for one job. Returning completes the job; throwing retries it (dead at max attempts). */
@FunctionalInterface
public interface JobHandler {
    void handle(Delivery job) throws Exception;
}
