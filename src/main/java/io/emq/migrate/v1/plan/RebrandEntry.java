package io.emq.migrate.v1.plan;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.V1State;

/**
 * One line of the rebrand preview: rank in v1 serve order, the v1 id, the v2 id it gets (null for
 * a job that gets none: a completed job outside any flow, an orphan until anomalies are accepted),
 * and what it becomes.
 */
public record RebrandEntry(long rank, Bytes v1Id, String v2Id, V1State v1State, V2Fate fate) {
}
