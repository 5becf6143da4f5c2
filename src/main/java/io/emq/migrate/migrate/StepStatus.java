package io.emq.migrate.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Each step of this release against one queue's history, as {@code flyway info} shows it:
 * {@code success}, {@code failed}, {@code pending}, {@code checksum-changed} (the step file or its
 * scripts changed after it ran) or {@code unknown} (applied by a release that had a step this one lacks).
 */
public record StepStatus(int version, String description, String status, Optional<HistoryRow> row) {

    public static List<StepStatus> of(StepCatalog catalog, List<HistoryRow> history) {
        Map<Integer, HistoryRow> applied = new TreeMap<>();
        history.forEach(r -> applied.put(r.version(), r));
        List<StepStatus> out = new ArrayList<>();
        for (StepDefinition step : catalog.steps()) {
            HistoryRow row = applied.remove(step.version());
            String status = row == null ? "pending" : !row.success() ? "failed"
                    : row.checksum() != step.checksum() ? "checksum-changed" : "success";
            out.add(new StepStatus(step.version(), step.description(), status, Optional.ofNullable(row)));
        }
        applied.values().forEach(r -> out.add(new StepStatus(r.version(), r.description(), "unknown", Optional.of(r))));
        return out;
    }

    public boolean valid() {
        return !status.equals("checksum-changed") && !status.equals("unknown");
    }
}
