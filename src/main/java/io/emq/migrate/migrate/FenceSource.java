package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.Refusal;
import io.emq.migrate.v1.RefusalKind;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.Script;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * V10: refuse what the plan refuses, pause the v1 queue (v1 workers then fetch nothing and v1
 * producers add into {@code paused}), wait out or refuse live locks, pause the v2 target until the
 * migration ends, and record the source's fingerprint. A refusal leaves both ends as they were.
 */
final class FenceSource implements Step {
    @Override
    public Map<String, Long> apply(QueueMigration m) {
        recordHeader(m);
        m.checkpoints.hit("header recorded");
        QueueSnapshot snap = m.refreshSnapshot();
        refuseWhatThePlanRefuses(m, snap);
        if (m.journal.get("v1_was_paused").isEmpty()) {
            boolean paused = m.sourceClient().hexists(m.source.key(QueueStructure.META).raw(), Utf8.bytes("paused"));
            m.journal.set(Map.of("v1_was_paused", paused ? "1" : "0"));
        }
        m.checkpoints.hit("v1 pause recorded");
        SourceFence.pause(m.sourceWire, m.source);
        m.checkpoints.hit("v1 paused");
        snap = awaitLocks(m, snap);
        if (m.journal.get("v2_was_paused").isEmpty()) {
            boolean paused = m.targetClient().hexists(m.keys.meta(), "paused");
            m.journal.set(Map.of("v2_was_paused", paused ? "1" : "0"));
        }
        m.targetWire.eval(Script.QUEUE_PAUSE, List.of(Utf8.bytes(m.keys.meta())), List.of());
        m.checkpoints.hit("v2 paused");
        m.journal.set("fingerprint", SourceFence.fingerprint(m.sourceWire, m.source));
        m.checkpoints.hit("fingerprint recorded");
        Map<String, Long> counts = new LinkedHashMap<>();
        for (V1State s : V1State.LISTED) {
            counts.put(s.wireName(), (long) snap.jobs(s).size());
        }
        return counts;
    }

    private static void recordHeader(QueueMigration m) {
        String policy = m.options.payload().wireName();
        java.util.Optional<String> recorded = m.journal.get("policy");
        if (recorded.isPresent() && !recorded.get().equals(policy) && !m.journal.state().map(s -> s == Journal.State.ABANDONED).orElse(false)) {
            throw new MigrationRefused("payload-policy", "the migration of '" + m.target + "' started with --payload "
                    + recorded.get() + "; re-run with --payload " + recorded.get() + " or abandon it first");
        }
        Map<String, String> header = new LinkedHashMap<>();
        header.put(Journal.STATE, Journal.State.RUNNING.wireName());
        header.put("policy", policy);
        header.put("v1_queue", m.source.display());
        header.put("v1_prefix", m.source.prefix().display());
        header.put("v1_name", m.source.name().display());
        header.put("source", m.sourceName);
        m.journal.get("started_on").ifPresentOrElse(s -> { }, () -> header.put("started_on", Instant.now().toString()));
        if (m.journal.get("id_base").isEmpty()) {
            header.put("id_base", Long.toString(freeIdBase(m)));
        }
        m.journal.set(header);
    }

    /** The queue's own id base, or the next one no other journal on the target holds (see {@link Rebrand}). */
    private static long freeIdBase(QueueMigration m) {
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (String other : Journals.queues(m.targetWire)) {
            if (!other.equals(m.target)) {
                new Journal(m.targetWire, other).get("id_base").ifPresent(taken::add);
            }
        }
        long base = Rebrand.idBase(m.target);
        while (taken.contains(Long.toString(base))) {
            base = (base + 1) % Rebrand.BASES;
        }
        return base;
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
            throw new MigrationRefused(first.kind().wireName(), "queue " + m.source.display() + " is refused: "
                    + blocking.stream().map(r -> r.reason() + " (" + r.kind().option() + " lifts it)")
                    .collect(Collectors.joining("; ")) + "; see `emq-migrate plan`");
        }
    }

    /** Waits up to --wait-for-locks for live v1 locks to lapse; refuses (and resumes v1 if it paused it) otherwise. */
    private static QueueSnapshot awaitLocks(QueueMigration m, QueueSnapshot first) {
        long deadline = System.nanoTime() + m.options.waitForLocks().toNanos();
        QueueSnapshot snap = first;
        while (true) {
            long live = snap.jobs(V1State.ACTIVE).stream().filter(JobFacts::hasLiveLock).count();
            if (live == 0) {
                return snap;
            }
            if (System.nanoTime() >= deadline) {
                if (m.journal.get("v1_was_paused").orElse("0").equals("0")) {
                    SourceFence.resume(m.sourceWire, m.source);
                }
                throw new MigrationRefused("live-lock", live + " v1 jobs of " + m.source.display()
                        + " are held by live workers (" + snap.jobs(V1State.ACTIVE).stream().filter(JobFacts::hasLiveLock).limit(5).map(j -> j.id().display() + " lock "
                        + j.lockTtlMs() + " ms").collect(Collectors.joining(", ")) + "): stop the v1 workers, or pass"
                        + " --wait-for-locks DURATION to wait for the locks to lapse");
            }
            sleep(200);
            snap = m.refreshSnapshot();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefused("interrupted", "interrupted while waiting for v1 locks");
        }
    }

}
