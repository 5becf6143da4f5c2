package io.emq.migrate.runtime;

/** Where a job is, by set membership ({@code state_lookup}). */
public enum JobState {
    PENDING("pending"),
    ACTIVE("active"),
    SCHEDULED("scheduled"),
    DEAD("dead"),
    AWAITING_CHILDREN("awaiting_children"),
    /** The row exists but no set lists it. */
    UNKNOWN("unknown"),
    /** No row. */
    ABSENT("absent");

    private final String wire;

    JobState(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    static JobState fromWire(String s) {
        for (JobState state : values()) {
            if (state.wire.equals(s)) {
                return state;
            }
        }
        throw new IllegalStateException("state_lookup answered an unknown state: " + s);
    }
}
