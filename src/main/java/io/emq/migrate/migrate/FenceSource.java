package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.Refusal;
import io.emq.migrate.v1.RefusalKind;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.v1.V1State;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * V10: pause the v1 queue first (v1 workers then fetch nothing and v1 producers add into
 * {@code paused}), pause the v2 target until the migration ends, then read the source between two
 * equal fingerprints (so nothing changed unseen while it was read), refuse what the plan refuses,
 * wait out or refuse live locks, and record the fingerprint the snapshot shows. A refusal resumes
 * what this step paused, leaving both ends as they were.
 */
final class FenceSource implements Step {
    @Override
    public List<String> checkpoints() {
        return List.of("header recorded", "v1 pause recorded", "v1 paused", "v2 paused", "source read", "fingerprint recorded");
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        m.watch = m.feed.watch(m.source);
        recordHeader(m);
        m.checkpoints.hit("header recorded");
        if (m.journal.header().get(JournalHeader.V1_WAS_PAUSED).isEmpty()) {
            boolean paused = m.sourceWire.hmget(m.source.key(QueueStructure.META).raw(), List.of(Utf8.bytes("paused"))).get(0) != null;
            m.journal.record(JournalHeader.V1_WAS_PAUSED, paused);
        }
        m.checkpoints.hit("v1 pause recorded");
        SourceFence.pause(m.sourceWire, m.source);
        m.checkpoints.hit("v1 paused");
        boolean v2Paused = TargetFence.pause(m.targetWire, m.keys, m.journal);
        if (m.journal.header().get(JournalHeader.V2_WAS_PAUSED).isEmpty()) {
            m.journal.record(JournalHeader.V2_WAS_PAUSED, v2Paused);
        }
        m.checkpoints.hit("v2 paused");
        String fingerprint;
        try {
            fingerprint = m.readSource();
            refuseWhatThePlanRefuses(m, m.snapshot());
            fingerprint = awaitLocks(m, fingerprint);
        } catch (MigrationRefused refused) {
            unpause(m);
            throw refused;
        }
        m.journal.record(JournalHeader.FINGERPRINT, fingerprint);
        m.watching = true;
        m.checkpoints.hit("fingerprint recorded");
        Map<String, Long> counts = new LinkedHashMap<>();
        for (V1State s : V1State.LISTED) {
            counts.put(s.wireName(), (long) m.snapshot().jobs(s).size());
        }
        return counts;
    }

    /**
     * Undoes the fence: resumes the v1 queue unless it was paused before, the v2 queue likewise, and
     * lets go of the v2 fence (nothing else of the migration is on the target yet).
     */
    private static void unpause(QueueMigration m) {
        if (!m.journal.header().get(JournalHeader.V1_WAS_PAUSED).orElse(true)) {
            SourceFence.resume(m.sourceWire, m.source);
        }
        if (!m.journal.header().get(JournalHeader.V2_WAS_PAUSED).orElse(true)) {
            TargetFence.resume(m.targetWire, m.keys, m.journal);
        }
        TargetFence.release(m.targetWire, m.keys, m.journal);
    }

    private static void recordHeader(QueueMigration m) {
        JournalHeader recorded = m.journal.header();
        JournalHeader.Write header = new JournalHeader.Write()
                .set(JournalHeader.STATE, MigrationState.RUNNING)
                .set(JournalHeader.POLICY, m.options.payload())
                .set(JournalHeader.LANE, m.options.lane().map(BrandedId::toString).orElse(""))
                .set(JournalHeader.LANE_FROM, m.options.laneFrom().orElse(""))
                .set(JournalHeader.V1_QUEUE, m.source.display())
                .set(JournalHeader.V1_PREFIX, m.source.prefix().display())
                .set(JournalHeader.V1_NAME, m.source.name().display())
                .set(JournalHeader.SOURCE, m.sourceName);
        if (recorded.get(JournalHeader.STARTED_ON).isEmpty()) {
            header.set(JournalHeader.STARTED_ON, Instant.now().toString());
        }
        if (recorded.get(JournalHeader.ID_BASE).isEmpty()) {
            header.set(JournalHeader.ID_BASE, m.idBases.claim(m.target));
        }
        m.journal.record(header);
    }

    /** The plan's refusals, except live locks (waited out below) and the name (settled by the Migrator). */
    private static void refuseWhatThePlanRefuses(QueueMigration m, QueueSnapshot snap) {
        List<Refusal> blocking = new Planner(m.options.planOptions()).plan(snap).refusals().stream()
                .filter(r -> !r.lifted())
                .map(PlannedRefusal::refusal)
                .filter(r -> r.kind() != RefusalKind.LIVE_LOCK && r.kind() != RefusalKind.INVALID_QUEUE_NAME)
                .toList();
        if (!blocking.isEmpty()) {
            Refusal first = blocking.get(0);
            throw new MigrationRefused(MigrationRefused.Kind.of(first.kind()), "queue " + m.source.display() + " is refused: "
                    + blocking.stream().map(r -> r.reason() + " (" + r.kind().option() + " lifts it)")
                    .collect(Collectors.joining("; ")) + "; see `emq-migrate plan`");
        }
    }

    /** Waits up to --wait-for-locks for live v1 locks to lapse, re-reading the source; refuses otherwise. */
    private static String awaitLocks(QueueMigration m, String fingerprint) {
        long deadline = System.nanoTime() + m.options.waitForLocks().toNanos();
        String current = fingerprint;
        while (true) {
            List<JobFacts> live = m.snapshot().jobs(V1State.ACTIVE).stream().filter(JobFacts::hasLiveLock).toList();
            if (live.isEmpty()) {
                return current;
            }
            if (System.nanoTime() >= deadline) {
                throw new MigrationRefused(MigrationRefused.Kind.LIVE_LOCK, live.size() + " v1 jobs of " + m.source.display()
                        + " are held by live workers (" + live.stream().limit(5).map(j -> j.id().display() + " lock "
                        + j.lockTtlMs() + " ms").collect(Collectors.joining(", ")) + "): stop the v1 workers, or pass"
                        + " --wait-for-locks DURATION to wait for the locks to lapse");
            }
            Sleep.millis(200);
            current = m.readSource();
        }
    }
}
