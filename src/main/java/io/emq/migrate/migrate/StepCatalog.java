package io.emq.migrate.migrate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The versioned steps this release ships, in version order: every {@code V<n>__<what>.json} found in
 * the classpath folder {@code migrations/} (a build tree or the jar), nothing listed by hand.
 * Versions are sparse (V10, V20, …) so a release can add a step between two others, before
 * retirement, without renumbering history any queue already holds.
 */
public final class StepCatalog {
    private final List<StepDefinition> steps;

    private StepCatalog(List<StepDefinition> steps) {
        this.steps = steps;
    }

    public static StepCatalog load() {
        List<StepDefinition> steps = new ArrayList<>();
        for (String name : ClasspathFolder.list("migrations")) {
            if (!StepDefinition.FILE_NAME.matcher(name).matches()) {
                throw new IllegalStateException("migrations/" + name + " is not a step file (V<n>__<what>.json)");
            }
            steps.add(StepDefinition.load(name));
        }
        if (steps.isEmpty()) {
            throw new IllegalStateException("no step files in the classpath folder migrations/");
        }
        steps.sort(Comparator.comparingInt(StepDefinition::version));
        for (int i = 1; i < steps.size(); i++) {
            if (steps.get(i).version() == steps.get(i - 1).version()) {
                throw new IllegalStateException("two steps share version " + steps.get(i).version() + ": "
                        + steps.get(i - 1).fileName() + " and " + steps.get(i).fileName());
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
