package io.emq.migrate.runtime;

/**
 * Work that produces a result: returning completes the job and records the bytes in its flow
 * parent's {@code :processed} (by child id); throwing retries it, as with {@link JobHandler}.
 */
@FunctionalInterface
public interface ResultHandler {
    byte[] handle(Delivery job) throws Exception;
}
