package io.emq.migrate.migrate;

import java.util.Map;

/**
 * One applied step of one queue, in the spirit of Flyway's history table.
 *
 * @param rank        the order in which steps were installed on this queue (1, 2, …)
 * @param checksum    CRC32 of the step definition when it ran
 * @param installedBy the migrator that ran it (user@host:pid)
 * @param installedOn ISO-8601 instant the step finished
 * @param counts      what the step did, e.g. {@code pending: 120}
 */
public record HistoryRow(int rank, int version, String description, int checksum, String installedBy,
                         String installedOn, long executionMs, boolean success, Map<String, Long> counts,
                         String error) {
}
