package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.plan.PlanOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * What the operator chose for a run. Each refusal of the plan names the option that lifts it.
 *
 * @param renames          v1 name -> v2 name, for queues whose name is not a valid v2 name
 * @param keepBrandedIds   keep v1 ids that are already valid JOB branded ids (they then sort by their own mint time)
 * @param waitForLocks     how long to wait for live v1 locks to lapse before refusing (zero: refuse at once)
 * @param archiveCompleted a JSON Lines file that receives the completed jobs before they are counted
 * @param retire           delete the v1 source after verification (false: stop at verified)
 * @param acceptAnomalies  migrate queues with refusable anomalies, each treated as the report says
 * @param dropCronSchedulers drop cron (pattern) schedulers, which have no v2 form, with a report line
 * @param dropLegacyRepeatables drop legacy repeatables (repeat members without a scheduler record)
 * @param dropBoundedSchedulers drop {@code every} schedulers with a limit or an end date, which have no v2 form
 * @param lease            how long the queue's lock outlives a crashed migrator
 * @param lane             the lane (a branded group id) the queue's jobs are migrated into; empty: the flat pending set
 * @param laneFrom         the job field ({@code name}, or {@code group} for opts.group.id) whose value picks each job's
 *                         lane (see {@link JobLanes}); {@code lane} then takes the jobs without a value
 * @param acceptOrderDrift retire a queue whose v2 order breaks v1's (jobs v1 moved while it served: {@link ServeOrder})
 *                         instead of refusing it before the pause ({@code out-of-order})
 */
public record MigrationOptions(PayloadPolicy payload, Map<String, String> renames, boolean keepBrandedIds,
                               Duration waitForLocks, Optional<Path> archiveCompleted, boolean retire,
                               boolean acceptAnomalies, boolean dropCronSchedulers, boolean dropLegacyRepeatables,
                               boolean dropBoundedSchedulers, Duration lease, Optional<BrandedId> lane,
                               Optional<String> laneFrom, boolean acceptOrderDrift) {
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(15);

    public static MigrationOptions defaults() {
        return new MigrationOptions(PayloadPolicy.ENVELOPE, Map.of(), false, Duration.ZERO, Optional.empty(), true,
                false, false, false, false, DEFAULT_LEASE, Optional.empty(), Optional.empty(), false);
    }

    public MigrationOptions withWaitForLocks(Duration wait) {
        return new MigrationOptions(payload, renames, keepBrandedIds, wait, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withRetire(boolean retire) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withAcceptAnomalies(boolean accept) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                accept, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withDropCronSchedulers(boolean drop) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, drop, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withRenames(Map<String, String> renames) {
        return new MigrationOptions(payload, Map.copyOf(renames), keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withDropLegacyRepeatables(boolean drop) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, drop, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    /** The same choices as the dry run sees them, so plan and migrate refuse alike. */
    public PlanOptions planOptions() {
        return new PlanOptions(payload, renames, keepBrandedIds, lane.isPresent() || laneFrom.isPresent(), !waitForLocks.isZero(), acceptAnomalies, dropCronSchedulers,
                dropLegacyRepeatables, dropBoundedSchedulers, PlanOptions.DEFAULT_PREVIEW);
    }

    public MigrationOptions withDropBoundedSchedulers(boolean drop) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, drop, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withPayload(PayloadPolicy policy) {
        return new MigrationOptions(policy, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withLaneFrom(Optional<String> field) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, field, acceptOrderDrift);
    }

    public MigrationOptions withLane(Optional<BrandedId> lane) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withLease(Duration lease) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, acceptOrderDrift);
    }

    public MigrationOptions withAcceptOrderDrift(boolean accept) {
        return new MigrationOptions(payload, renames, keepBrandedIds, waitForLocks, archiveCompleted, retire,
                acceptAnomalies, dropCronSchedulers, dropLegacyRepeatables, dropBoundedSchedulers, lease, lane, laneFrom, accept);
    }
}
