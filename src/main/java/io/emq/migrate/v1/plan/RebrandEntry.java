package io.emq.migrate.v1.plan;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.V1State;

/** One line of the rebrand preview: rank in serve order, the v1 id, the v2 id it gets, and what it becomes. */
public record RebrandEntry(long rank, Bytes v1Id, String v2Id, V1State v1State, V2Fate fate) {
}
