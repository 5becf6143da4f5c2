package io.emq.migrate.migrate;

import io.emq.migrate.v1.RefusalKind;
import java.util.Locale;

/**
 * The migration of a queue stopped without destroying anything: a refusal of the plan, a source
 * that changed under the migration, or a failed verification. The message says what to do next.
 */
public final class MigrationRefused extends RuntimeException {
    /**
     * Why a queue's run stopped, for machines (the JSON report's {@code refusal.kind}): the plan's
     * refusals ({@link RefusalKind}) under their own names, then what the runner and the steps refuse.
     */
    public enum Kind {
        LIVE_LOCK, INVALID_QUEUE_NAME, NAME_TAKEN, MIGRATING_ELSEWHERE, DAMAGED_META, ANOTHER_QUEUES_JOB, FLOW_KEY_JOB, COUNTER_TAKEN, FLOW_IN_LANE, CRON_SCHEDULER, LEGACY_REPEATABLE, BOUNDED_SCHEDULER,
        SCHEDULER_NAME_CLASH, STRANDED, ANOMALIES,
        /** Another migrator holds the queue's lease. */
        LOCKED,
        /** This run's lease lapsed and another took it: this run wrote nothing after. */
        LEASE_LOST,
        /** The journal this run wrote, its lease with it, is gone from the target (restarted without persistence, flushed). */
        JOURNAL_LOST,
        LEASE_TOO_SHORT, FAILED_STEP, CHECKSUM, CONNECTION,
        /**
         * A server refused a write for lack of memory, as a read-only replica, or as it cannot save to disk; a cluster
         * source's master sent a command elsewhere as the queue's slot was being resharded ({@link ServerRefusal}): the
         * step resumes on a re-run once it is fixed, or the slot settled.
         */
        OUT_OF_MEMORY, READ_ONLY, DISK_ERROR, SLOT_MOVING,
        /** A server answered that it is loading its data set (it just restarted): the step resumes once it is done. */
        LOADING,
        /** A cluster node answered that the cluster is down (a master failed, no replica promoted yet): the step resumes once it is up. */
        CLUSTER_DOWN,
        /** The target's replicas did not acknowledge v2's writes before v1 was to give them up ({@link ReplicaAcks}). */
        REPLICAS_BEHIND,
        /** The target did not write v2's writes to its append-only file in time before v1 was to give them up ({@link ReplicaAcks}). */
        NOT_ON_DISK,
        ERROR, INTERRUPTED, VERIFICATION,
        SOURCE_CHANGED, OUT_OF_LINE, FLOW_PARENT, FLOW_CHILD, PAYLOAD_POLICY, LANE,
        LANE_COLLISION, UNKNOWN_RENAME, NO_SUCH_QUEUE, AMBIGUOUS_QUEUE, RETIRED, NO_JOURNAL,
        /** {@code abandon} of a queue whose flows link it with another queue's migration that stands ({@link Abandon}). */
        FLOW_PARTNER,
        /** A v1 queue a retired migration's journal names lists jobs again, without the tombstone (a restored backup). */
        V1_RESTORED,
        /** A run names another v1 server than the one the migration it resumes began from. */
        OTHER_SOURCE,
        /** v2 would serve or list jobs v1 moved while it served in another order than v1's ({@link ServeOrder}). */
        OUT_OF_ORDER,
        /** The completed-jobs archive cannot be written, or its file holds lines no migration wrote. */
        ARCHIVE,
        /** The v1 keys of a queue of a cluster source spread over its slots: no hash tag in its prefix or name ({@link Migrator#spreadOverSlots}). */
        CROSS_SLOT;

        /** The kind as the reports spell it: {@code source-changed}, {@code live-lock}, … */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The plan's refusal under the same name. */
        static Kind of(RefusalKind planned) {
            return valueOf(planned.name());
        }
    }

    private final Kind kind;

    public MigrationRefused(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
