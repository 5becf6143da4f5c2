package io.emq.migrate.v1;

/** What one key of a v1 keyspace is. Every key classifies to exactly one of these. */
public sealed interface KeyClass {

    /** The report's name for the class. */
    String kindName();

    /** A queue-level key with the right type ({@code wait}, {@code meta}, metrics, legacy shapes, …). */
    record Structure(QueueRef queue, QueueStructure structure) implements KeyClass {
        public String kindName() {
            if (structure.legacy()) {
                return "legacy";
            }
            return structure.suffix().startsWith("metrics:") ? "metrics" : "queue-structure";
        }
    }

    /** The hash {@code P:Q:<id>} of a job listed in a structure. */
    record JobHash(QueueRef queue, Bytes id) implements KeyClass {
        public String kindName() {
            return "job-hash";
        }
    }

    /** A per-job key {@code P:Q:<id>:<sub>} of the right type. */
    record JobSubkey(QueueRef queue, Bytes id, JobSubKind sub) implements KeyClass {
        static final String KIND = "job-subkey";

        public String kindName() {
            return KIND;
        }
    }

    /** A scheduler record {@code P:Q:repeat:<sid>} (a HASH). */
    record SchedulerRecord(QueueRef queue, Bytes schedulerId) implements KeyClass {
        static final String KIND = "scheduler";

        public String kindName() {
            return KIND;
        }
    }

    /** A deduplication key {@code P:Q:de:<did>} (a STRING). */
    record DedupKey(QueueRef queue, Bytes dedupId) implements KeyClass {
        /** What a dedup key's id follows under its queue's base. */
        public static final Bytes PREFIX = Bytes.utf8("de:");
        static final String KIND = "dedup";

        public String kindName() {
            return KIND;
        }
    }

    /** A hash under the queue that no structure lists: an orphan job, a stale scheduler, or neither; resolved by its fields. */
    record UnlistedHash(QueueRef queue, Bytes id) implements KeyClass {
        public String kindName() {
            return "unlisted-hash";
        }
    }

    /** A key that is wrong: the anomaly says why. */
    record Misfit(QueueRef queue, Anomaly anomaly) implements KeyClass {
        static final String KIND = "anomaly";

        public String kindName() {
            return KIND;
        }
    }

    /** A key that belongs to no v1 queue: counted, never touched. */
    record Foreign(Bytes key) implements KeyClass {
        public String kindName() {
            return "foreign";
        }
    }
}
