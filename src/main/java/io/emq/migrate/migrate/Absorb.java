package io.emq.migrate.migrate;

import io.emq.migrate.v1.V1State;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** V3-V5: write the rows of the jobs of some v1 states into their v2 structure (pending, schedule, dead). */
final class Absorb implements Step {
    private final List<V1State> states = new ArrayList<>();

    Absorb(List<String> stateNames) {
        for (String name : stateNames) {
            states.add(java.util.Arrays.stream(V1State.values()).filter(s -> s.wireName().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("unknown v1 state '" + name + "' in a step file")));
        }
        if (states.contains(V1State.FAILED)) {
            states.add(V1State.UNKNOWN);
        }
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return JobWriter.write(m, Migratable.rows(m.snapshot(), states, m.options));
    }
}
