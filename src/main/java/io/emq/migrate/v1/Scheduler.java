package io.emq.migrate.v1;

/**
 * A job scheduler ({@code repeat} zset member + {@code repeat:<sid>} hash). {@code every} ones
 * have a v2 form, but for those bounded by a {@code limit} or an {@code endDate}; cron {@code pattern} ones do not; a member with no hash, or with five or more
 * {@code :}-parts, is a legacy repeatable (spec v1-keyspace §8.1).
 *
 * @param nextRunMs the {@code repeat} zset score, or -1 when not registered
 * @param everyMs   the interval for {@code every}, else -1
 * @param pattern   the cron pattern, else null
 */
public record Scheduler(Bytes id, Kind kind, long nextRunMs, long everyMs, String pattern, String tz,
                        String jobName, long iterations) {

    public enum Kind {
        EVERY("every"), PATTERN("pattern"), LEGACY("legacy"),
        /** An {@code every} scheduler with a {@code limit} or an {@code endDate}: v2's registration has no bound. */
        BOUNDED("bounded");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /**
         * The kind of a scheduler record holding these fields: {@code pattern} makes it cron; with no {@code every} it is
         * legacy; {@code limit} or {@code endDate} bound it.
         */
        public static Kind of(boolean pattern, boolean every, boolean limitOrEndDate) {
            return pattern ? PATTERN : !every ? LEGACY : limitOrEndDate ? BOUNDED : EVERY;
        }
    }
}
