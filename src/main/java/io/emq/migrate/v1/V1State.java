package io.emq.migrate.v1;

import io.emq.migrate.keyspace.V2State;
import java.util.List;
import java.util.Optional;

/** Where a v1 job's id sits (spec v1-keyspace §5); {@link #UNKNOWN} is a hash listed nowhere. */
public enum V1State {
    WAIT("wait"),
    PAUSED("paused"),
    ACTIVE("active"),
    PRIORITIZED("prioritized"),
    DELAYED("delayed"),
    WAITING_CHILDREN("waiting-children"),
    COMPLETED("completed"),
    FAILED("failed"),
    UNKNOWN("unknown");

    /** The eight states a structure holds, in report order. */
    public static final List<V1State> LISTED =
            List.of(WAIT, PAUSED, ACTIVE, PRIORITIZED, DELAYED, WAITING_CHILDREN, COMPLETED, FAILED);

    /** BullMQ getState's probe order: the state that wins when an id is listed twice. */
    public static final List<V1State> PROBE_ORDER =
            List.of(COMPLETED, FAILED, DELAYED, PRIORITIZED, ACTIVE, WAIT, PAUSED, WAITING_CHILDREN);

    /** The order in which the rebrand mints ranks (see {@code ServeOrder}). */
    public static final List<V1State> RANK_ORDER =
            List.of(ACTIVE, PAUSED, WAIT, PRIORITIZED, DELAYED, WAITING_CHILDREN, FAILED, COMPLETED, UNKNOWN);

    private final String wireName;

    V1State(String wireName) {
        this.wireName = wireName;
    }

    /** The state's name in v1 (also the structure key suffix). */
    public String wireName() {
        return wireName;
    }

    /**
     * The v2 state a job of this v1 state is migrated into (migration contract §3); empty for a
     * completed job, which gets no row (it is counted).
     */
    public Optional<V2State> becomes() {
        return switch (this) {
            case WAIT, PAUSED, ACTIVE, PRIORITIZED -> Optional.of(V2State.PENDING);
            case DELAYED -> Optional.of(V2State.SCHEDULED);
            case WAITING_CHILDREN -> Optional.of(V2State.AWAITING_CHILDREN);
            case FAILED, UNKNOWN -> Optional.of(V2State.DEAD);
            case COMPLETED -> Optional.empty();
        };
    }

    public boolean isList() {
        return this == WAIT || this == PAUSED || this == ACTIVE;
    }
}
