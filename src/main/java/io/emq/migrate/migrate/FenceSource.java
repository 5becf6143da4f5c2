package io.emq.migrate.migrate;

import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.AnomalyKind;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.Refusal;
import io.emq.migrate.v1.RefusalKind;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.V1State;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * V10: the v1 queue keeps serving (it is paused only for the last pass, V120). Start watching the
 * source's change feed (every key v1 writes from here on is told to the re-sync passes), record
 * whether v1 was paused before, pause the v2 target until the migration ends, read the source once as
 * it comes (producers and workers may move it meanwhile: the passes settle that), refuse what the plan
 * refuses in what was read (live locks are v1 workers at work: the last pass waits for them). A refusal
 * resumes the v2 queue, leaving both ends as they were.
 */
final class FenceSource implements Step {
    @Override
    public List<String> checkpoints() {
        return List.of("header recorded", "v2 paused", "source read", "read checked");
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        refuseAQueueHeldElsewhere(m);
        m.beginWatch(true);
        JournalHeader recorded = recordHeader(m);
        m.v1LiveAsIn(recorded);
        m.checkpoints.hit("header recorded");
        boolean v2Paused = TargetFence.pause(m.targetWire, m.keys, m.journal);
        if (recorded.get(JournalHeader.V2_WAS_PAUSED).isEmpty()) {
            m.journal.record(JournalHeader.V2_WAS_PAUSED, v2Paused);
        }
        m.checkpoints.hit("v2 paused");
        try {
            m.readLiveSource();
            m.noFlowKeysAtFence = SourceFence.noFlowKeysScanned(m.snapshot());
            refuseWhatThePlanRefuses(m);
        } catch (MigrationRefused refused) {
            unpause(m);
            throw refused;
        }
        m.checkpoints.hit("read checked");
        Map<String, Long> counts = new LinkedHashMap<>();
        for (V1State s : V1State.LISTED) {
            counts.put(s.wireName(), (long) m.snapshot().jobs(s).size());
        }
        return counts;
    }

    /**
     * Refuses, before anything is written but the v2 fence (let go here), a v1 queue whose meta holds the tombstone
     * (a migration retired it, and this target keeps no journal of it: this step runs only on a new or abandoned
     * journal, so it was forgotten, or the queue went into another target; the Migrator reports such a queue retired
     * before its run begins, so this meets one retired since), and one inside the pause window of
     * another migration (its add counter frozen: one into another target stopped there), which would otherwise be
     * copied as that migration left it and retired under it, both targets then holding its jobs. Before that, a
     * meta that is not a hash ({@link Planner#damagedMeta}), which no read of it nor pause could get past.
     */
    private static void refuseAQueueHeldElsewhere(QueueMigration m) {
        String metaType = m.sourceWire.type(m.source.key(QueueStructure.META).raw());
        if (!metaType.equals("hash") && !metaType.equals("none")) {
            TargetFence.release(m.targetWire, m.keys, m.journal);
            throw new MigrationRefused(MigrationRefused.Kind.DAMAGED_META, "the v1 queue " + m.source.display() + " is refused: "
                    + Planner.damagedMeta(m.source, "meta is a " + metaType + ", expected a hash") + "; nothing was written");
        }
        SourceFence.Holder holder = SourceFence.holder(m.sourceWire, m.source);
        if (holder.tombstoned()) {
            TargetFence.release(m.targetWire, m.keys, m.journal);
            throw new MigrationRefused(MigrationRefused.Kind.RETIRED, "the v1 queue " + m.source.display() + " was retired by a"
                    + " migration already (its meta holds the tombstone " + SourceFence.TOMBSTONE + ") and this target keeps"
                    + " no journal of " + m.target + " (forgotten, or the queue went into another target): there is nothing left to migrate;"
                    + " nothing was written");
        }
        if (holder.pauseWindowOpen() && (holder.token().isEmpty() || holder.takenByAnother(m.journal.sourceToken()))) {
            TargetFence.release(m.targetWire, m.keys, m.journal);
            throw m.insideTheWindowOf(holder);
        }
    }

    /**
     * Undoes the fence: resumes the v2 queue unless it was paused before, and lets go of the v2 fence
     * (nothing else of the migration is on the target yet).
     */
    private static void unpause(QueueMigration m) {
        if (!m.journal.header().get(JournalHeader.V2_WAS_PAUSED).orElse(true)) {
            TargetFence.resume(m.targetWire, m.keys, m.journal);
        }
        TargetFence.release(m.targetWire, m.keys, m.journal);
    }

    /**
     * Records the header and, the first time, whether v1 was paused before the migration, in one write;
     * returns the header as it was before (only this migration writes it, so it still tells what was
     * recorded before this step).
     */
    private static JournalHeader recordHeader(QueueMigration m) {
        JournalHeader recorded = m.headerAsBegun();
        JournalHeader.Write header = m.choices(new JournalHeader.Write())
                .set(JournalHeader.STATE, MigrationState.RUNNING)
                .set(JournalHeader.V1_QUEUE, m.source.display())
                .set(JournalHeader.V1_PREFIX, m.source.prefix().display())
                .set(JournalHeader.V1_NAME, m.source.name().display())
                .set(JournalHeader.SOURCE, m.sourceServer.name())
                .set(JournalHeader.SOURCE_REPLID, m.sourceServer.replicationId(m.source));
        if (recorded.get(JournalHeader.STARTED_ON).isEmpty()) {
            header.set(JournalHeader.STARTED_ON, Instant.now().toString());
        }
        if (recorded.get(JournalHeader.ID_BASE).isEmpty()) {
            header.set(JournalHeader.ID_BASE, m.idBases.claim(m.target)).set(JournalHeader.KEPT_IDS, false);
        }
        if (recorded.get(JournalHeader.V1_WAS_PAUSED).isEmpty()) {
            header.set(JournalHeader.V1_WAS_PAUSED,
                    m.sourceWire.hmget(m.source.key(QueueStructure.META).raw(), List.of(Utf8.bytes("paused"))).get(0) != null);
        }
        m.journal.record(header);
        return recorded;
    }

    /**
     * Anomalies a read of a moving source can show for a moment: a job read in two lists while a worker
     * moved it, a hash read before its listing while a producer added it.
     */
    private static final Set<AnomalyKind> PASSING = EnumSet.of(AnomalyKind.LISTED_TWICE, AnomalyKind.ORPHAN_HASH);

    /**
     * The plan's refusals, except live locks (waited for under the pause) and the name (settled by the
     * Migrator). When the only ones are anomalies a moving read can show for a moment, the source is
     * read again: they refuse only if the same keys show them again.
     */
    private static void refuseWhatThePlanRefuses(QueueMigration m) {
        List<Refusal> blocking = blocking(m, m.snapshot());
        if (!blocking.isEmpty() && onlyPassing(blocking, m.snapshot())) {
            Set<Bytes> first = passingKeys(m.snapshot());
            m.readLiveSource();
            blocking = blocking(m, m.snapshot());
            if (onlyPassing(blocking, m.snapshot()) && Collections.disjoint(first, passingKeys(m.snapshot()))) {
                return;
            }
        }
        if (!blocking.isEmpty()) {
            throw refused(m, blocking, "");
        }
    }

    /** The plan's refusals a source read of a later pass can meet first (v1 live): none lifts itself by a second read. */
    private static final Set<RefusalKind> LATE = EnumSet.of(RefusalKind.CRON_SCHEDULER, RefusalKind.LEGACY_REPEATABLE,
            RefusalKind.BOUNDED_SCHEDULER);

    /**
     * Refuses, as this step would have, what a re-sync pass's read meets that v1 wrote since: a scheduler with no v2 form
     * (made cron, bounded, or legacy), a job v1 gave a deferred failure; nothing deleted (a pass runs before the tombstone).
     */
    static void refuseWhatAppeared(QueueMigration m, QueueSnapshot snap) {
        List<Refusal> late = blocking(m, snap).stream().filter(r -> LATE.contains(r.kind())
                || r.kind() == RefusalKind.ANOMALIES && snap.anomalyCount(AnomalyKind.DEFERRED_FAILURE) > 0).toList();
        if (!late.isEmpty()) {
            throw refused(m, late, " (v1 wrote it during the migration; nothing was deleted)");
        }
    }

    private static MigrationRefused refused(QueueMigration m, List<Refusal> blocking, String when) {
        return new MigrationRefused(MigrationRefused.Kind.of(blocking.get(0).kind()), "queue " + m.source.display() + " is refused: "
                + blocking.stream().map(r -> r.reason() + " (" + r.kind().option() + " lifts it)")
                .collect(Collectors.joining("; ")) + when + "; see `emq-migrate plan`");
    }

    private static List<Refusal> blocking(QueueMigration m, QueueSnapshot snap) {
        return new Planner(m.options.planOptions()).refusals(snap).stream()
                .filter(r -> !r.lifted())
                .map(PlannedRefusal::refusal)
                .filter(r -> r.kind() != RefusalKind.LIVE_LOCK && r.kind() != RefusalKind.INVALID_QUEUE_NAME)
                .toList();
    }

    /** Whether nothing refuses but anomalies, each of a kind a moving read can show for a moment. */
    private static boolean onlyPassing(List<Refusal> blocking, QueueSnapshot snap) {
        return blocking.stream().allMatch(r -> r.kind() == RefusalKind.ANOMALIES) && snap.anomalies().stream()
                .filter(a -> a.kind().disposition() == AnomalyKind.Disposition.REFUSE && a.kind() != AnomalyKind.INVALID_QUEUE_NAME)
                .allMatch(a -> PASSING.contains(a.kind()));
    }

    private static Set<Bytes> passingKeys(QueueSnapshot snap) {
        return snap.anomalies().stream().filter(a -> PASSING.contains(a.kind())).map(Anomaly::key).collect(Collectors.toSet());
    }
}
