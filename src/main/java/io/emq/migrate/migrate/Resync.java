package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.IdSet;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Brings the v2 queue in line with its v1 source as it is now: the catch-up, and every pass before
 * retirement. It reads the source between two equal fingerprints, then, against the journal:
 * jobs added since are minted ids above the high-water mark in serve order and written; jobs whose
 * v2 state or attempts no longer match their v1 state (promoted, retried, failed, stalled), or whose
 * v1 digest moved (data, opts, progress or logs changed), are rewritten with their logs; jobs v1 no
 * longer holds as rows (removed, completed, taken by a worker) are removed from
 * v2; logs, dedup keys, schedulers and the completed count follow; the journal records the fingerprint
 * the pass brought v2 in line with (and that no verification has proven it yet). A v2 row the v2 runtime claimed meanwhile is never overwritten or
 * removed: the queue is refused instead ({@code out-of-line}, with {@code abandon} as the way back).
 *
 * <p>A pass also watches for v1 workers: a job held under a live lock, or a migrated job a worker took
 * out of the pending states (into active, completed or failed). Seen while this run watches the
 * source (since its own fence, or its previous pass), that is a live worker: the queue is refused
 * ({@code live-worker}) unless {@code --wait-for-locks} gives the workers time to stop. Seen by the
 * first pass of a re-run with no lock alive, those moves happened while no migrator watched and are
 * simply applied.
 */
final class Resync {
    /**
     * What one pass did, and the fingerprint of the source it brought v2 in line with: how many jobs it
     * re-read (digested), and how many keys the change feed told were written since the pass before
     * (-1 for a full pass, which re-reads every job).
     */
    record Pass(String fingerprint, long added, long rewritten, long removed, long reread, long feedKeys, List<String> workers) {
        boolean changedAnything() {
            return added + rewritten + removed > 0;
        }

        Map<String, Long> counts() {
            Map<String, Long> c = new LinkedHashMap<>();
            c.put("added", added);
            c.put("rewritten", rewritten);
            c.put("removed", removed);
            c.put("re-read", reread);
            c.put(feedKeys < 0 ? "full-pass" : "delta-keys", feedKeys < 0 ? 1 : feedKeys);
            return c;
        }
    }

    /** The checkpoints of a pass, its services' too. */
    static final List<String> CHECKPOINTS = Stream.of(List.of("source read"), IdMinter.CHECKPOINTS,
            List.of("rows built", "rows written", "expectations recorded", "rows removed"), LogCopier.CHECKPOINTS,
            DedupAndSchedulers.CHECKPOINTS, List.of("pass recorded")).flatMap(List::stream).toList();
    /** Jobs looked up in the journal at once. */
    private static final int LOOKUP = 1000;
    /** Rows removed at once. */
    private static final int REMOVALS = 256;

    private Resync() {
    }

    /** Passes until one finds no live worker (waiting up to --wait-for-locks), or refuses {@code live-worker}. */
    static Pass run(QueueMigration m) {
        long deadline = System.nanoTime() + m.options.waitForLocks().toNanos();
        while (true) {
            boolean watching = m.watching;
            Pass pass = pass(m);
            m.watching = true;
            boolean live = pass.workers().stream().anyMatch(w -> w.endsWith("(locked)"));
            if (pass.workers().isEmpty() || (!watching && !live)) {
                return pass;
            }
            if (System.nanoTime() >= deadline) {
                throw new MigrationRefused(MigrationRefused.Kind.LIVE_WORKER, "v1 workers are still running on " + m.source.display() + ": "
                        + pass.workers().size() + " jobs taken since the fence (" + String.join(", ",
                        pass.workers().subList(0, Math.min(5, pass.workers().size()))) + "); stop the v1 workers, then"
                        + " re-run (or pass --wait-for-locks DURATION to wait for them); nothing was deleted, and no"
                        + " job a worker took is pending in v2");
            }
            Sleep.millis(200);
        }
    }

    /**
     * One pass: read, compare with the journal, write the difference. With the change feed intact since
     * the pass before (or since this run's fence, for the first), only the jobs whose keys it told were
     * written are re-read and digested; the listings, states and attempts are compared for every job as
     * always. Without it (no feed, a broken one, a re-run) every job is re-read. A pass that fails spoils
     * the watch: what it drained was not acted on, so only full passes follow.
     */
    static Pass pass(QueueMigration m) {
        Optional<SourceFeed.Changes> changes = m.watch.flatMap(SourceFeed.Watch::drain);
        try {
            return pass(m, changes);
        } catch (RuntimeException failed) {
            m.watch.ifPresent(SourceFeed.Watch::spoil);
            throw failed;
        }
    }

    private static Pass pass(QueueMigration m, Optional<SourceFeed.Changes> changes) {
        String fingerprint = m.readSource();
        QueueSnapshot snap = m.snapshot();
        List<JobFacts> fresh = new ArrayList<>();
        List<JobFacts> changed = new ArrayList<>();
        List<String> workers = new ArrayList<>();
        long[] matched = {0};
        long[] reread = {0};
        Migratable.inBatches(Migratable.rows(snap, m.options), LOOKUP, batch -> {
            Journal.Known known = m.journal.known(batch.stream().map(j -> j.id().raw()).toList());
            List<Optional<BrandedId>> ids = known.ids();
            Map<Integer, String> digests = digests(m, batch, ids, changes);
            reread[0] += digests.size();
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                Expectation e = known.expectation(i).orElse(null);
                if (e != null) {
                    matched[0]++;
                }
                if (ids.get(i).isEmpty()) {
                    fresh.add(job);
                } else if (e == null || !job.state().becomes().map(e::is).orElse(false) || e.attempts() != job.attempts()
                        || !(e.source().isEmpty() || !digests.containsKey(i) || e.source().equals(digests.get(i)))) {
                    if (e != null && e.is(V2State.PENDING) && job.state() == V1State.FAILED) {
                        workers.add(job.id().display() + " (failed)");
                    }
                    changed.add(job);
                }
            }
        });
        snap.jobs(V1State.ACTIVE).stream().filter(Migratable::held).forEach(j -> workers.add(j.id().display() + " (locked)"));
        Map<BrandedId, Expectation> gone = gone(m, snap, matched[0], workers);
        if (fresh.stream().anyMatch(j -> j.state() == V1State.WAITING_CHILDREN)) {
            throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "a flow was added to " + m.source.display()
                    + " during the migration: stop its producers, run `emq-migrate abandon`, and migrate again");
        }
        refuseMovedFlows(m, changed, gone);
        IdMinter.mint(m, fresh);
        List<JobFacts> rows = new ArrayList<>(fresh);
        rows.addAll(changed);
        JobWriter.write(m, rows);
        remove(m, gone);
        LogCopier.copy(m, rows);
        DedupAndSchedulers.absorb(m);
        CompletedCount.fold(m, snap.listedCount(V1State.COMPLETED));
        m.journal.record(new JournalHeader.Write().set(JournalHeader.FINGERPRINT, fingerprint).set(JournalHeader.PROVEN, ""));
        m.checkpoints.hit("pass recorded");
        return new Pass(fingerprint, fresh.size(), changed.size(), gone.size(), reread[0],
                changes.map(c -> (long) c.keys()).orElse(-1L), workers);
    }

    /**
     * The digests of the batch's journaled jobs, by position: of every one in a full pass, of those
     * whose keys the feed told were written in a delta pass (the others hold what the journal holds).
     */
    private static Map<Integer, String> digests(QueueMigration m, List<JobFacts> batch, List<Optional<BrandedId>> ids,
                                                Optional<SourceFeed.Changes> changes) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Bytes key = m.source.jobKey(batch.get(i).id());
            if (ids.get(i).isPresent() && changes.map(c -> c.touched(key)).orElse(true)) {
                at.add(i);
            }
        }
        List<String> read = SourceFence.digests(m.sourceWire, m.source, at.stream().map(i -> batch.get(i).id()).toList());
        Map<Integer, String> digests = new HashMap<>();
        for (int k = 0; k < at.size(); k++) {
            digests.put(at.get(k), read.get(k));
        }
        return digests;
    }

    /**
     * A flow cannot be re-synced piecemeal: a parent whose children moved (its digest covers their
     * records) or a child that moved or left would leave the v2 parent counting the wrong children.
     * Such a queue is refused before anything of the pass is written, with {@code abandon} as the way back.
     */
    private static void refuseMovedFlows(QueueMigration m, List<JobFacts> changed, Map<BrandedId, Expectation> gone) {
        List<String> moved = new ArrayList<>();
        changed.stream().filter(j -> j.state() == V1State.WAITING_CHILDREN || j.parentKey() != null)
                .forEach(j -> moved.add(j.id().display()));
        gone.values().stream().filter(e -> e.is(V2State.AWAITING_CHILDREN)).forEach(e -> moved.add("a flow parent"));
        if (!moved.isEmpty()) {
            throw new MigrationRefused(MigrationRefused.Kind.OUT_OF_LINE, "flow jobs of " + m.source.display() + " moved after they were"
                    + " migrated (" + String.join(", ", moved.subList(0, Math.min(5, moved.size()))) + "): a flow cannot"
                    + " be brought in line piecemeal; stop the v1 workers, run `emq-migrate abandon`, then migrate again");
        }
    }

    /**
     * The journaled rows whose v1 job no longer gets a row (removed, completed, held by a worker). Only
     * looked for when fewer of the snapshot's rows matched an expectation than the journal holds.
     */
    private static Map<BrandedId, Expectation> gone(QueueMigration m, QueueSnapshot snap, long matched, List<String> workers) {
        Map<BrandedId, Expectation> gone = new LinkedHashMap<>();
        if (m.journal.expectations().count() <= matched) {
            return gone;
        }
        IdSet rows = new IdSet();
        IdSet completed = new IdSet();
        Migratable.rows(snap, m.options).forEach(j -> rows.add(j.id()));
        snap.jobs(V1State.COMPLETED).forEach(j -> completed.add(j.id()));
        List<BrandedId> candidates = new ArrayList<>();
        Map<BrandedId, Bytes> v1Of = new LinkedHashMap<>();
        m.journal.ids().forEach((id, v1) -> {
            Bytes v1Id = Bytes.of(v1);
            if (!rows.contains(v1Id)) {
                candidates.add(id);
                v1Of.put(id, v1Id);
            }
        });
        for (int from = 0; from < candidates.size(); from += LOOKUP) {
            gone.putAll(m.journal.expectations().of(candidates.subList(from, Math.min(candidates.size(), from + LOOKUP))));
        }
        gone.forEach((id, e) -> {
            if (completed.contains(v1Of.get(id))) {
                workers.add(v1Of.get(id).display() + " (completed)");
            }
        });
        return gone;
    }

    /** Removes rows (guarded: never one the v2 runtime claimed), their subkeys, then their expectations. */
    private static void remove(QueueMigration m, Map<BrandedId, Expectation> gone) {
        List<BrandedId> ids = new ArrayList<>(gone.keySet());
        for (int from = 0; from < ids.size(); from += REMOVALS) {
            Map<BrandedId, Expectation> batch = new LinkedHashMap<>();
            ids.subList(from, Math.min(ids.size(), from + REMOVALS)).forEach(id -> batch.put(id, gone.get(id)));
            Rows.write(m, RowBuilder.removeCall(m, batch));
            TargetWrites w = new TargetWrites(m);
            batch.keySet().forEach(id -> {
                for (JobSub sub : JobSub.values()) {
                    w.del(m.keys.job(id, sub));
                }
            });
            w.flush();
            m.checkpoints.hit("rows removed");
            m.journal.expectations().forget(batch.keySet());
        }
    }
}
