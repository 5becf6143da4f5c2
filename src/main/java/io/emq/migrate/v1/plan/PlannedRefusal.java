package io.emq.migrate.v1.plan;

import io.emq.migrate.v1.Refusal;

/** A refusal and whether the options given already lift it. */
public record PlannedRefusal(Refusal refusal, boolean lifted) {
}
