package io.emq.migrate.v1.plan;

import io.emq.migrate.payload.PayloadPolicy;
import java.util.Map;

/**
 * The operator's choices a plan takes into account: the payload policy, explicit queue renames
 * ({@code old=new}), whether the jobs go into lanes, and the options that lift refusals.
 *
 * @param keepBrandedIds whether v1 ids that are already JOB branded ids keep themselves ({@code --keep-branded-ids})
 * @param lanes   whether the rows go into lanes ({@code --lane} or {@code --lane-from})
 * @param preview how many rebranded ids to show per queue
 */
public record PlanOptions(PayloadPolicy payload, Map<String, String> renames, boolean keepBrandedIds, boolean lanes, boolean waitForLocks,
                          boolean acceptAnomalies, boolean dropCronSchedulers, boolean dropLegacyRepeatables,
                          boolean dropBoundedSchedulers, int preview) {
    public static final int DEFAULT_PREVIEW = 10;

    public PlanOptions {
        renames = Map.copyOf(renames);
    }

    public static PlanOptions defaults() {
        return new PlanOptions(PayloadPolicy.ENVELOPE, Map.of(), false, false, false, false, false, false, false, DEFAULT_PREVIEW);
    }
}
