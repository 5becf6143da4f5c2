package io.emq.migrate.migrate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The versioned steps this release ships, in version order. The folder listing is the file
 * {@code migrations/index} (a classpath cannot be listed inside a jar), kept in step by a test.
 */
public final class StepCatalog {
    private final List<StepDefinition> steps;

    private StepCatalog(List<StepDefinition> steps) {
        this.steps = steps;
    }

    public static StepCatalog load() {
        String index = new String(StepDefinition.resource("migrations/index"), StandardCharsets.UTF_8);
        List<StepDefinition> steps = new ArrayList<>();
        for (String line : index.split("\\R")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                steps.add(StepDefinition.load(line.trim()));
            }
        }
        steps.sort(Comparator.comparingInt(StepDefinition::version));
        for (int i = 1; i < steps.size(); i++) {
            if (steps.get(i).version() == steps.get(i - 1).version()) {
                throw new IllegalStateException("two steps share version " + steps.get(i).version());
            }
        }
        return new StepCatalog(List.copyOf(steps));
    }

    public List<StepDefinition> steps() {
        return steps;
    }

    public Optional<StepDefinition> byVersion(int version) {
        return steps.stream().filter(s -> s.version() == version).findFirst();
    }
}
