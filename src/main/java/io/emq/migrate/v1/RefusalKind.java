package io.emq.migrate.v1;

/** Why a queue (or some of its jobs) would not be migrated, and the option that lifts it. */
public enum RefusalKind {
    LIVE_LOCK("live-lock", "--wait-for-locks"),
    INVALID_QUEUE_NAME("invalid-queue-name", "--rename OLD=NEW"),
    NAME_TAKEN("name-taken", "--rename OLD=NEW"),
    OTHER_SOURCE("other-source", "--source of the server the migration began from (one retired: --rename OLD=NEW)"),
    MIGRATING_ELSEWHERE("migrating-elsewhere", "abandon --queue OTHER"),
    DAMAGED_META("damaged-meta", "moving the damaged meta aside in v1"),
    ANOTHER_QUEUES_JOB("another-queues-job", "migrating the queue that lists the job first"),
    FLOW_KEY_JOB("flow-key-job", "giving the job another id in v1"),
    COUNTER_TAKEN("counter-taken", "moving the key at the add counter aside in v1"),
    FLOW_PARENT("flow-parent", "--queue for the parent's queue (--rename for its name), or --all; see the reason"),
    FLOW_CHILD("flow-child", "--queue for the child's queue (--rename for its name), or --all; see the reason"),
    FLOW_IN_LANE("flow-in-lane", "migrating the queue without --lane and --lane-from (or once its flows finished in v1)"),
    CRON_SCHEDULER("cron-scheduler", "--drop-cron-schedulers"),
    LEGACY_REPEATABLE("legacy-repeatable", "--drop-legacy-repeatables"),
    BOUNDED_SCHEDULER("bounded-scheduler", "--drop-bounded-schedulers"),
    SCHEDULER_NAME_CLASH("scheduler-name-clash", "another id for one of the schedulers in v1"),
    STRANDED("stranded", "adding the jobs to the v2 queue by hand, then deleting them from v1"),
    RETIRED("retired", "abandon (deletes this target's copy; the migration that retired the queue holds its jobs)"),
    V1_RESTORED("v1-restored", "deleting the restored v1 queue (its jobs are in v2), or --rename OLD=NEW for a new queue of that name"),
    ANOMALIES("anomalies", "--accept-anomalies"),
    CROSS_SLOT("cross-slot", "--prefix with the hash tag your v1 app uses ('{bull}'), or a standalone source");

    private final String wireName;
    private final String option;

    RefusalKind(String wireName, String option) {
        this.wireName = wireName;
        this.option = option;
    }

    public String wireName() {
        return wireName;
    }

    /** The command-line option that would lift this refusal. */
    public String option() {
        return option;
    }
}
