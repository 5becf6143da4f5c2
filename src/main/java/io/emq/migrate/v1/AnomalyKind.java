package io.emq.migrate.v1;

import java.util.Optional;

/**
 * Everything in a v1 keyspace that fits no row of the migration contract's mapping, with what
 * the migration does about it. Names are the report's {@code kind} strings.
 */
public enum AnomalyKind {
    WRONG_TYPE("wrong-type", Disposition.DROP_WITH_SOURCE,
            "a queue structure of the wrong type; it is not read and is dropped with the source"),
    HASH_WITHOUT_DATA("hash-without-data", Disposition.REFUSE,
            "a job hash without data; the queue is refused until --accept-anomalies, which migrates it with an empty payload"),
    MISSING_HASH("missing-hash", Disposition.WARN,
            "an id listed in a structure with no job hash; there is nothing to migrate, the id is reported"),
    LISTED_TWICE("listed-twice", Disposition.REFUSE,
            "an id listed in two states, or twice in one; refused until --accept-anomalies, which migrates it once: in the state BullMQ's getState reports, at its first place in serve order"),
    ORPHAN_HASH("orphan-hash", Disposition.REFUSE,
            "a job hash listed in no structure; refused until --accept-anomalies, which migrates it as dead"),
    ANOTHER_QUEUES_JOB("another-queues-job", Disposition.REFUSE,
            "a job hash under this queue's keys that a queue whose name this one's begins with lists as its own (a custom id"
                    + " holding a colon: job b:1 of queue a is bull:a:b:1, under queue a:b); refused, --accept-anomalies does not"
                    + " lift it, until that queue is migrated (which moves the job and retires it)"),
    FLOW_KEY_JOB("flow-key-job", Disposition.REFUSE,
            "a listed job whose hash is where a flow parent of the queue keeps its children (job 6:processed beside parent 6,"
                    + " waiting for children); refused, --accept-anomalies does not lift it, until the job has another id in v1"),
    DANGLING_SUBKEY("dangling-subkey", Disposition.DROP_WITH_SOURCE,
            "a per-job key whose job hash does not exist; dropped with the source"),
    PAUSED_WITHOUT_FLAG("paused-without-flag", Disposition.WARN,
            "jobs in paused without meta.paused (the v1 pause wrapper); migrated as waiting, the v2 queue is not paused"),
    BARE_QUEUE_HASH("bare-queue-hash", Disposition.DROP_WITH_SOURCE,
            "a stray hash at the bare P:Q key (the v1 stalled-check wrapper); dropped with the source"),
    DEFERRED_FAILURE("deferred-failure", Disposition.REFUSE,
            "a job holding BullMQ's defa, a deferred failure (a stalled job past its stall limit, or a flow parent a child"
                    + " that fails its parent failed): v1 fails it at its next fetch without running it; refused until"
                    + " --accept-anomalies, which migrates it as it is listed (v2 then runs it)"),
    EXPIRED_LOCK("expired-lock", Disposition.WARN,
            "an active job whose lock has expired (stalled, never recovered by v1); migrated as pending, attempts kept"),
    BAD_DELAYED_SCORE("bad-delayed-score", Disposition.REFUSE,
            "a delayed score that is not due*4096+seq; refused until --accept-anomalies, which schedules it at floor(score/4096), when v1 would promote it (negative: due now)"),
    BAD_PRIORITIZED_SCORE("bad-prioritized-score", Disposition.REFUSE,
            "a prioritized score that is not priority*2^32+seq; refused until --accept-anomalies, which keeps the zset order"),
    NON_JSON_DATA("non-json-data", Disposition.WARN,
            "data that is not JSON (or nested deeper than a JSON reader takes by default); the envelope carries it as a string with"
                    + " a flag, the data policy copies the bytes"),
    NON_JSON_OPTS("non-json-opts", Disposition.WARN,
            "opts that are not JSON (or nested deeper than a JSON reader takes by default); the envelope carries them as a string"
                    + " with a flag (opts_encoding), and no option is read from them (the v1 Elixir app's pri, del, lifo)"),
    BAD_ATTEMPTS("bad-attempts", Disposition.WARN,
            "an attempts counter (ats, atm, attemptsMade) that is not an integer from 0 to 2^53-2; migrated clamped into"
                    + " that range (negative or unreadable: 0, fractions down, larger: 2^53-2), so every v2 claim can count it"),
    WRONG_JOB_TYPE("wrong-job-type", Disposition.REFUSE,
            "a listed id whose key is not a hash; refused until --accept-anomalies, which skips it"),
    STALE_SCHEDULER("stale-scheduler", Disposition.DROP_WITH_SOURCE,
            "a job scheduler record whose id the repeat zset no longer lists: v1 runs it no more; not migrated, dropped"
                    + " with the source"),
    UNKNOWN_KEY("unknown-key", Disposition.DROP_WITH_SOURCE,
            "a key under the queue that matches no v1 shape; dropped with the source"),
    INVALID_QUEUE_NAME("invalid-queue-name", Disposition.REFUSE,
            "the queue name is not a valid v2 name; refused until --rename OLD=NEW");

    /** What the migration does with an anomaly of this kind. */
    public enum Disposition {
        /** Migrated (or reported) with a warning. */
        WARN("migrate-with-warning"),
        /** Not migrated; deleted with the rest of the source after verification. */
        DROP_WITH_SOURCE("drop-with-source"),
        /** The queue is refused until an option says otherwise. */
        REFUSE("refuse");

        private final String wireName;

        Disposition(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    private final String wireName;
    private final Disposition disposition;
    private final String treatment;

    AnomalyKind(String wireName, Disposition disposition, String treatment) {
        this.wireName = wireName;
        this.disposition = disposition;
        this.treatment = treatment;
    }

    public String wireName() {
        return wireName;
    }

    public Disposition disposition() {
        return disposition;
    }

    /** What the migration will do with it, for the report. */
    public String treatment() {
        return treatment;
    }

    /**
     * What {@code --accept-anomalies} has the migration do with an anomaly of this kind, in the plan's TREATMENT column
     * (the {@link #treatment} says it in full); empty for a kind the option does not lift, or one that refuses nothing.
     */
    public Optional<String> whenAccepted() {
        return Optional.ofNullable(switch (this) {
            case HASH_WITHOUT_DATA -> "migrate-with-empty-payload";
            case LISTED_TWICE -> "migrate-once";
            case ORPHAN_HASH -> "migrate-as-dead";
            case DEFERRED_FAILURE -> "migrate-as-listed";
            case BAD_DELAYED_SCORE -> "schedule-at-score/4096";
            case BAD_PRIORITIZED_SCORE -> "keep-zset-order";
            case WRONG_JOB_TYPE -> "skip, drop-with-source";
            default -> null;
        });
    }
}
