package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.V2State;

/** What a v1 job becomes in v2 (migration contract §3). */
public enum V2Fate {
    PENDING("pending", "row state=pending in the pending zset (score 0), minted in serve order"),
    SCHEDULED("scheduled", "row state=scheduled in the schedule zset, score = due ms"),
    DEAD("dead", "row state=dead in the dead zset, last_error = failedReason"),
    AWAITING_CHILDREN("awaiting_children", "row state=awaiting_children in no set, job:<id>:dependencies = remaining count"),
    COUNTED("counted", "no row: counted into metrics:completed (journal id kept for flow parents)"),
    HELD("held", "refused while its lock is live (--wait-for-locks waits, then it becomes pending)"),
    NOTHING("nothing", "no hash to migrate");

    private final String wireName;
    private final String description;

    V2Fate(String wireName, String description) {
        this.wireName = wireName;
        this.description = description;
    }

    public String wireName() {
        return wireName;
    }

    public String description() {
        return description;
    }

    /** The fate of a job that gets a row in {@code state}. */
    public static V2Fate of(V2State state) {
        return switch (state) {
            case PENDING, ACTIVE -> PENDING;
            case SCHEDULED -> SCHEDULED;
            case DEAD -> DEAD;
            case AWAITING_CHILDREN -> AWAITING_CHILDREN;
        };
    }
}
