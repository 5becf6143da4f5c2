package io.emq.migrate.keyspace;

import java.util.List;
import java.util.Optional;

/**
 * Where a v2 job row is (v2 protocol §3): its {@code state} field and the structure that lists it.
 * One vocabulary for the migration, the plan, the verifier and the drain; the wire names are the
 * protocol's.
 */
public enum V2State {
    PENDING("pending", Optional.of(StructureType.PENDING)),
    ACTIVE("active", Optional.of(StructureType.ACTIVE)),
    SCHEDULED("scheduled", Optional.of(StructureType.SCHEDULE)),
    DEAD("dead", Optional.of(StructureType.DEAD)),
    /** A flow parent waiting for its children: listed in no structure. */
    AWAITING_CHILDREN("awaiting_children", Optional.empty());

    /** The states a migration writes rows in: every one but active (it never writes a claimed row). */
    public static final List<V2State> MIGRATED = List.of(PENDING, SCHEDULED, DEAD, AWAITING_CHILDREN);

    private final String wireName;
    private final Optional<StructureType> structure;

    V2State(String wireName, Optional<StructureType> structure) {
        this.wireName = wireName;
        this.structure = structure;
    }

    /** The row's {@code state} field. */
    public String wireName() {
        return wireName;
    }

    /** The structure that lists a row in this state (empty for {@link #AWAITING_CHILDREN}). */
    public Optional<StructureType> structure() {
        return structure;
    }

    /** The state a wire name names; empty for anything else. */
    public static Optional<V2State> parse(String wireName) {
        for (V2State s : values()) {
            if (s.wireName.equals(wireName)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
