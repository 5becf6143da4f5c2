package io.emq.migrate.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Each step of this release against one queue's history, as {@code flyway info} shows it. */
public record StepStatus(int version, String description, String summary, Status status, Optional<HistoryRow> row) {

    /** Where a step stands on one queue. */
    public enum Status {
        SUCCESS,
        FAILED,
        PENDING,
        /** The step file, its scripts or its code's revision changed after it ran. */
        CHECKSUM_CHANGED,
        /** Applied by a release that had a step this one lacks. */
        UNKNOWN;

        /** {@code success}, {@code failed}, {@code pending}, {@code checksum-changed}, {@code unknown}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public static List<StepStatus> of(StepCatalog catalog, List<HistoryRow> history) {
        Map<Integer, HistoryRow> applied = new TreeMap<>();
        history.forEach(r -> applied.put(r.version(), r));
        List<StepStatus> out = new ArrayList<>();
        for (StepDefinition step : catalog.steps()) {
            HistoryRow row = applied.remove(step.version());
            Status status = row == null ? Status.PENDING : !row.success() ? Status.FAILED
                    : row.checksum() != step.checksum() ? Status.CHECKSUM_CHANGED : Status.SUCCESS;
            out.add(new StepStatus(step.version(), step.description(), step.summary(), status, Optional.ofNullable(row)));
        }
        applied.values().forEach(r -> out.add(new StepStatus(r.version(), r.description(), "", Status.UNKNOWN, Optional.of(r))));
        return out;
    }

    public boolean valid() {
        return status != Status.CHECKSUM_CHANGED && status != Status.UNKNOWN;
    }
}
