package io.emq.migrate.migrate;

import io.emq.migrate.v1.V1State;
import java.util.List;
import java.util.Map;

/** V30-V50: write the rows of the jobs of the v1 states the step file {@code takes} into their v2 structure. */
final class Absorb implements Step {
    private final List<V1State> states;

    Absorb(StepDefinition definition) {
        if (definition.takes().isEmpty()) {
            throw new IllegalStateException("an absorb step must say which v1 states it takes");
        }
        this.states = definition.takes();
    }

    @Override
    public List<String> checkpoints() {
        return List.of("rows built", "rows written", "expectations recorded");
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return JobWriter.write(m, Migratable.rows(m.snapshot(), states, m.options));
    }
}
