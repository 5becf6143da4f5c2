package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.ParsedKey;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** The journals on a target, and the operator's maintenance of them: list, validate, repair. */
public final class Journals {
    private Journals() {
    }

    /** Every queue with a journal on the target ({@code {emq}:migration:*}, one slot, so one SCAN also on a cluster). */
    public static List<String> queues(Wire target) {
        TreeSet<String> out = new TreeSet<>();
        target.scan("{emq}:migration:*", page -> page.forEach(key -> {
            if (KeyGrammar.parse(key) instanceof ParsedKey.ReserveKey r && r.queue().isPresent()) {
                out.add(r.queue().get());
            }
        }));
        return new ArrayList<>(out);
    }

    /** The steps whose recorded checksum no longer matches this release (empty when valid). */
    public static List<StepStatus> invalid(Wire target, String queue) {
        return StepStatus.of(StepCatalog.load(), new Journal(target, queue).history().rows()).stream()
                .filter(s -> !s.valid()).toList();
    }

    /**
     * Clears failed steps (they run again next time) and realigns recorded checksums to this
     * release's step files, under the queue's lease. Returns what it changed, one line each.
     */
    public static List<String> repair(Wire target, String queue, java.time.Duration lease) {
        Journal journal = new Journal(target, queue);
        StepCatalog catalog = StepCatalog.load();
        journal.lease().acquire(Migrator.owner(), lease.toMillis());
        List<String> changed = new ArrayList<>();
        try {
            for (HistoryRow row : journal.history().rows()) {
                if (!row.success()) {
                    journal.history().forget(row.version());
                    changed.add("V" + row.version() + " " + row.description() + ": failed row removed (" + row.error() + ")");
                    continue;
                }
                catalog.byVersion(row.version()).filter(def -> def.checksum() != row.checksum()).ifPresent(def -> {
                    journal.history().record(new HistoryRow(row.rank(), row.version(), row.description(), def.checksum(),
                            row.installedBy(), row.installedOn(), row.executionMs(), true, row.counts(), null));
                    changed.add("V" + row.version() + " " + row.description() + ": checksum " + row.checksum() + " -> "
                            + def.checksum());
                });
            }
        } finally {
            journal.lease().release();
        }
        return changed;
    }

    /** The identity mapping of a queue as {@code v1 -> v2} pairs (all of it; for --all lookups). */
    public static List<Map.Entry<byte[], BrandedId>> mapping(Wire target, String queue) {
        List<Map.Entry<byte[], BrandedId>> out = new ArrayList<>();
        new Journal(target, queue).ids().forEach((v2, v1) -> out.add(Map.entry(v1, v2)));
        out.sort(Comparator.comparing(e -> e.getValue().toString()));
        return out;
    }
}
