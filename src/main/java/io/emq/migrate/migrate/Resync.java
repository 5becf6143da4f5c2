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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Brings the v2 queue in line with its v1 source as it is now: the live catch-up (V100), and the last
 * passes under the v1 pause (V120). It reads the source (as it comes while v1 is live, exactly once
 * paused: {@link QueueMigration#readSource}), then, against the journal: jobs added since are minted ids above
 * the high-water mark in serve order and written; jobs whose v2 state or attempts no longer match
 * their v1 state (promoted, retried, failed, stalled, taken or finished by a v1 worker), whose due time moved
 * (BullMQ's {@code changeDelay}, even to the delay the hash already holds), or whose v1
 * digest moved (data, opts, progress or logs changed), are rewritten with their logs; jobs v1 no
 * longer holds as rows (removed, completed, held by a worker) are removed from v2; logs, dedup keys,
 * schedulers and the completed count follow. The v2 queue is paused throughout, so a v1 worker's moves
 * are simply applied: v2 never served the job. A v2 row the v2 runtime claimed meanwhile is never
 * overwritten or removed: the queue is refused instead ({@code out-of-line}, with {@code abandon} as the way back).
 *
 * <p>Under the pause a job still held under a live v1 lock (a worker took it just before) is waited
 * for up to {@code --wait-for-locks}, then refused ({@code live-lock}): the last pass must see where
 * it ends.
 */
final class Resync {
    /**
     * What one pass did: the rows it wrote, how many jobs it re-read (digested), how many it looked up in the
     * journal, how many keys the change feed told were written since the pass before (-1 for a full pass, which
     * re-reads every job), whether the source read refreshed the snapshot held instead of reading it all, and with how
     * many keys written (under the pause, {@link QueueMigration#refreshSource}, a refresh tried again is given only those
     * written since the try before read), how many expectations the journal holds
     * when the pass wrote and removed no row (the count it read; empty when it did either), the jobs held
     * under a live v1 lock, the jobs whose rows it wrote (added or moved), as it read them, and, under the pause, how
     * many of those v1 removed after the pass read the source ({@link JobWriter#GONE_SINCE_READ}: no row written; the
     * source moved, so the pass proves nothing, and the next pass removes what v2 held of them), and whether it walked
     * the whole journal for the rows to remove ({@link #gone}).
     */
    record Pass(long added, long rewritten, long removed, long reread, long lookedUp, long feedKeys,
                OptionalInt refreshedWith, List<BrandedId> written, OptionalLong journaled, List<String> held, List<JobFacts> moved,
                long goneSinceRead, boolean walkedJournal) {
        long changed() {
            return added + rewritten + removed;
        }

        Map<String, Long> counts() {
            Map<String, Long> c = new LinkedHashMap<>();
            c.put("added", added);
            c.put("rewritten", rewritten);
            c.put("removed", removed);
            c.put("re-read", reread);
            c.put("looked-up", lookedUp);
            c.put(feedKeys < 0 ? "full-pass" : "delta-keys", feedKeys < 0 ? 1 : feedKeys);
            refreshedWith.ifPresent(keys -> {
                c.put("refreshed-read", 1L);
                c.put("refresh-keys", (long) keys);
            });
            if (walkedJournal) {
                c.put("journal-walked", 1L);
            }
            return c;
        }
    }

    /** The checkpoints of a pass, its services' too. */
    static final List<String> CHECKPOINTS = Stream.of(List.of("feed drained", "source read"), IdMinter.CHECKPOINTS,
            JobWriter.CHECKPOINTS, List.of("removed rows forgotten", "rows removed"), LogCopier.CHECKPOINTS,
            DedupAndSchedulers.CHECKPOINTS, List.of("pass recorded")).flatMap(List::stream).toList();
    /** Jobs looked up in the journal at once. */
    private static final int LOOKUP = 1000;
    /** Rows removed at once. */
    private static final int REMOVALS = 256;

    private Resync() {
    }

    /**
     * One pass while v1 is live; under the pause, passes until one finds no job held by a live v1 worker
     * (waiting up to --wait-for-locks), or refuses {@code live-lock}.
     */
    static Pass run(QueueMigration m) {
        long deadline = System.nanoTime() + m.options.waitForLocks().toNanos();
        while (true) {
            Pass pass = pass(m);
            if (m.v1Live() || pass.held().isEmpty()) {
                return pass;
            }
            if (System.nanoTime() >= deadline) {
                throw new MigrationRefused(MigrationRefused.Kind.LIVE_LOCK, "v1 workers still hold jobs of " + m.source.display()
                        + " after it was paused: " + pass.held().size() + " jobs (" + String.join(", ",
                        pass.held().subList(0, Math.min(5, pass.held().size()))) + "); let them finish (" + (m.options.waitForLocks().isZero()
                        ? "pass --wait-for-locks DURATION to wait for them" : "they outlasted --wait-for-locks "
                        + (m.options.waitForLocks().toMillis() % 1000 == 0 ? m.options.waitForLocks().toSeconds() + "s"
                        : m.options.waitForLocks().toMillis() + "ms") + ": a longer one waits longer") + ") or stop the v1 workers, then re-run; nothing was"
                        + " deleted, v1 is resumed, and no job a worker holds is pending in v2");
            }
            Sleep.millis(200);
        }
    }

    /**
     * One pass: read, compare with the journal, write the difference. With the change feed intact since
     * the pass before (or since this run's fence, for the first), the snapshot held is refreshed with the
     * keys it told written instead of the source read in full (while v1 is live, {@link QueueMigration#refreshLiveSource};
     * under the pause, {@link QueueMigration#refreshSource}, a pass tried again after one that failed too); only the
     * jobs whose keys it told were written are re-read and digested; and when a pass of this run succeeded before it (or
     * this run's copy wrote the jobs), only the jobs touched or read in another state or with other attempts than that
     * pass read them (than the copy wrote them) ({@link InLine}), and new ones, are looked up in the journal: the others
     * still match the expectations that pass (or the copy) left them. A whole read under the pause with the feed intact takes the keys v1 wrote
     * since the drain into the pass's changes ({@link SourceFeed.Watch#peek}): a job v1 finished and removed meanwhile
     * is gone from the read, and the pass must know to drop its dedup key or receipt. Without the feed (none, a broken
     * one, a run begun inside an earlier run's pause) every job is re-read first: its hash alone when the pass's key scan met no job's logs list or
     * flow key ({@link SourceFence#readWithoutExtras}); after a pass of this run succeeded without the feed, only the jobs
     * read with another digest, state or attempts than that pass read them ({@link InLine#withDigests}), and new ones,
     * are looked up in the journal; after none, every one. A pass that fails (a dropped connection, which the step tries
     * again) gives back to the watch what it drained ({@link SourceFeed.Watch#tellAgain}): it may not have acted on all of
     * it, so the next drain tells those keys again, and the pass tried after it keeps the feed. A watch begun after the
     * fence ({@link QueueMigration#beginWatch}) has its first pass read as without the feed (drained, what it told set
     * aside): it tells nothing of what v1 wrote before it began.
     */
    static Pass pass(QueueMigration m) {
        Optional<SourceFeed.Changes> drained = m.watch.flatMap(SourceFeed.Watch::drain);
        if (drained.isEmpty()) {
            m.withoutFeed = Optional.of(m.watch.map(SourceFeed.Watch::whyNot).orElse(m.unwatchedBecause));
        }
        try {
            Pass pass = pass(m, m.watchUnproven ? Optional.empty() : drained);
            m.watchUnproven = false;
            return pass;
        } catch (RuntimeException failed) {
            drained.filter(SourceFeed.Changes::complete).ifPresent(c -> m.watch.orElseThrow().tellAgain(c.written()));
            throw failed;
        }
    }

    private static Pass pass(QueueMigration m, Optional<SourceFeed.Changes> changes) {
        boolean feedless = changes.isEmpty();
        if (!feedless) {
            m.checkpoints.hit("feed drained"); // v1 may write on before the source is read: the feed tells it next (toldGone)
        }
        // a table with digests serves a pass with the feed by its states and attempts alone (the pass reads no digest of a job untouched)
        Optional<InLine> before = m.inLine.filter(table -> !feedless || table.digests())
                .map(table -> feedless ? table : table.withoutDigests());
        m.inLine = Optional.empty();
        m.copyDone();
        OptionalInt refreshedWith = feedless ? OptionalInt.empty() : m.v1Live() ? m.refreshLiveSource(changes.get())
                : m.refreshSource(changes.get());
        boolean refreshed = refreshedWith.isPresent();
        if (!refreshed && m.v1Live()) {
            m.readLiveSource();
        } else if (!refreshed) {
            m.readSource(); // the source as it is now, the changes as they were at the drain: what v1 wrote between joins them
            changes.ifPresent(c -> m.watch.orElseThrow().peek().ifPresentOrElse(c::absorb, c::lost));
        }
        m.refuseIfHeldByAnother(); // another migration's window or tombstone on the queue read: not this one's to act on
        QueueSnapshot snap = m.snapshot();
        FenceSource.refuseWhatAppeared(m, snap);
        // without the feed, a pass that read the source in full reads no job's logs or flow keys when its scan met none:
        // one created since changes the job's digest, which the next pass (its scan meets the key) or, under the pause,
        // the retirement (each job retired only while its digest is the one v2 holds) finds and copies again
        boolean withoutExtras = feedless && SourceFence.noExtrasScanned(snap);
        InLine inLine = before.or(() -> feedless ? InLine.withDigestsIfTheyFit(snap.jobCount(), InLine.idBytes(snap)) : Optional.empty())
                .orElseGet(() -> new InLine(snap.jobCount(), InLine.idBytes(snap)));
        inLine.nextPass();
        List<JobFacts> fresh = new ArrayList<>();
        List<JobFacts> changed = new ArrayList<>();
        List<JobFacts> unwritten = new ArrayList<>();
        long[] matched = {0};
        long[] reread = {0};
        long[] lookedUp = {0};
        Bytes base = m.source.base();
        // the jobs to look up, gathered across the rows until a lookup's worth: the few a feed tells written are
        // scattered through a large queue, and looking up each with the rows it was read with cost a round trip or two each
        List<JobFacts> batch = new ArrayList<>(LOOKUP);
        Map<Integer, String> digests = new HashMap<>();
        Runnable lookUp = () -> {
            lookedUp[0] += batch.size();
            Journal.Known known = m.journal.known(batch.stream().map(j -> j.id().raw()).toList());
            List<Optional<BrandedId>> ids = known.ids();
            if (!feedless) {
                digests.putAll(touchedDigests(m, batch, ids, changes.get()));
                reread[0] += digests.size();
            }
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                Expectation e = known.expectation(i).orElse(null);
                if (e != null) {
                    matched[0]++;
                }
                if (ids.get(i).isEmpty()) {
                    fresh.add(job);
                } else if (e == null || !job.state().becomes().map(e::is).orElse(false) || e.attempts() != job.attempts()
                        || e.due() >= 0 && e.due() != job.dueAt()
                        || !(e.source().isEmpty() || !digests.containsKey(i) || e.source().equals(digests.get(i)))) {
                    changed.add(job);
                    if (e == null) {
                        unwritten.add(job); // minted before and given no row then (a v1 worker held it): its first row now
                    }
                }
            }
            batch.clear();
            digests.clear();
        };
        Migratable.inBatches(Migratable.rows(snap, m.rule()), LOOKUP, all -> {
            List<String> read = feedless ? digests(m, all.stream().map(JobFacts::id).toList(), withoutExtras) : List.of();
            reread[0] += read.size();
            for (int k = 0; k < all.size(); k++) {
                JobFacts j = all.get(k);
                // without the feed a table without digests (a queue too large for them) is this pass's own: it holds nothing yet
                boolean asBefore = feedless && inLine.digests() ? inLine.read(j, read.get(k)) : inLine.read(j);
                if (!asBefore || changes.map(c -> c.touchedJob(base, j.id())).orElse(false)) {
                    if (feedless) {
                        digests.put(batch.size(), read.get(k));
                    }
                    batch.add(j);
                    if (batch.size() == LOOKUP) {
                        lookUp.run();
                    }
                } else {
                    matched[0]++;
                }
            }
        });
        if (!batch.isEmpty()) {
            lookUp.run();
        }
        List<String> held = snap.jobs(V1State.ACTIVE).stream().filter(Migratable::held).map(j -> j.id().display() + " (locked)").toList();
        long journaled = m.journal.expectations().count();
        Gone gone = gone(m, snap, journaled - matched[0], changes);
        if (fresh.stream().anyMatch(j -> j.state() == V1State.WAITING_CHILDREN)) {
            throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "a flow was added to " + m.source.display()
                    + " during the migration: stop its producers, run `emq-migrate abandon`, and migrate again");
        }
        refuseMovedFlows(m, changed, gone.flows());
        if (!fresh.isEmpty() || !changed.isEmpty()) {
            m.journal.record(JournalHeader.PASS_WROTE, true);
        }
        IdMinter.mint(m, fresh);
        List<JobFacts> rows = new ArrayList<>(fresh);
        rows.addAll(changed);
        if (feedless) {
            rows.forEach(inLine::unsure); // each row is written from the hash as the write reads it, which may be newer
        }
        long goneSinceRead = JobWriter.write(m, rows).getOrDefault(JobWriter.GONE_SINCE_READ, 0L);
        AbsorbFlows.records(m, rows); // a parent v1 released: its children's records with its row
        m.added(fresh);
        m.added(unwritten);
        List<BrandedId> written = m.journal.ids().lookupV1(rows.stream().map(j -> j.id().raw()).toList()).stream()
                .flatMap(Optional::stream).toList();
        remove(m, gone.rows());
        m.unjournaledRows = false; // looked for, and removed, when they could be there
        LogCopier.copy(m, rows);
        DedupAndSchedulers.absorb(m, changes, rows);
        CountCompleted.archiveAgain(m, snap);
        FinishedCounts.fold(m, snap);
        m.checkpoints.hit("pass recorded");
        m.inLine = Optional.of(inLine);
        return new Pass(fresh.size(), changed.size(), gone.rows().size(), reread[0], lookedUp[0],
                changes.map(c -> (long) c.keys()).orElse(-1L), refreshedWith, written,
                rows.isEmpty() && gone.rows().isEmpty() ? OptionalLong.of(journaled) : OptionalLong.empty(), held, rows, goneSinceRead,
                gone.walkedJournal());
    }

    /**
     * Where a job gone since the pass before is, with the change feed intact: among the jobs it told written, up to now
     * (the read came after the drain; a job that left in between is told after it), less every job the pass reads as a
     * row. Empty without the feed.
     */
    private static Optional<Set<Bytes>> toldGone(QueueMigration m, QueueSnapshot snap, Optional<SourceFeed.Changes> changes) {
        Bytes base = m.source.base();
        return changes.filter(SourceFeed.Changes::complete).flatMap(c -> m.watch.flatMap(SourceFeed.Watch::peek)
                .filter(SourceFeed.Changes::complete).map(since -> {
                    Set<Bytes> told = new HashSet<>(c.touchedUnder(base));
                    told.addAll(since.touchedUnder(base));
                    Migratable.rows(snap, m.rule()).forEach(j -> told.remove(j.id()));
                    return told;
                }));
    }

    /** The digests of these jobs as they are now, in order: of their hashes alone when the pass's key scan met no logs list or flow key. */
    private static List<String> digests(QueueMigration m, List<Bytes> jobs, boolean withoutExtras) {
        return withoutExtras ? SourceFence.readWithoutExtras(m.sourceWire, m.source, jobs).stream().map(SourceFence.Job::digest).toList()
                : SourceFence.digests(m.sourceWire, m.source, jobs);
    }

    /**
     * The digests of the batch's journaled jobs whose keys the change feed told were written, by position (the others
     * hold what the journal holds).
     */
    private static Map<Integer, String> touchedDigests(QueueMigration m, List<JobFacts> batch, List<Optional<BrandedId>> ids,
                                                       SourceFeed.Changes changes) {
        List<Integer> at = new ArrayList<>();
        Bytes base = m.source.base();
        for (int i = 0; i < batch.size(); i++) {
            if (ids.get(i).isPresent() && changes.touchedJob(base, batch.get(i).id())) {
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
    private static void refuseMovedFlows(QueueMigration m, List<JobFacts> changed, List<String> goneFlows) {
        List<String> moved = new ArrayList<>();
        changed.stream().filter(j -> j.state() == V1State.WAITING_CHILDREN || j.parentKey() != null)
                .forEach(j -> moved.add(j.id().display()));
        moved.addAll(goneFlows);
        if (!moved.isEmpty()) {
            throw new MigrationRefused(MigrationRefused.Kind.OUT_OF_LINE, "flow jobs of " + m.source.display() + " moved after they were"
                    + " migrated (" + String.join(", ", moved.subList(0, Math.min(5, moved.size()))) + "): a flow cannot"
                    + " be brought in line piecemeal; stop the v1 workers, run `emq-migrate abandon`, then migrate again");
        }
    }

    /**
     * The rows to remove, each with the attempts it holds (the removal is guarded by them: never a row the v2 runtime
     * claimed), the flow jobs among them (refused: {@link #refuseMovedFlows}), and whether the whole journal was walked
     * to find them.
     */
    private record Gone(Map<BrandedId, Long> rows, List<String> flows, boolean walkedJournal) {
        Gone(boolean walkedJournal) {
            this(new LinkedHashMap<>(), new ArrayList<>(), walkedJournal);
        }

        /** Adds journaled rows, each with the attempts the journal expects of it. */
        void addJournaled(Map<BrandedId, Expectation> journaledRows) {
            journaledRows.forEach((id, e) -> {
                rows.put(id, e.attempts());
                if (e.is(V2State.AWAITING_CHILDREN)) {
                    flows.add("a flow parent");
                }
            });
        }
    }

    /**
     * The rows whose v1 job no longer gets a row (removed, completed, held by a worker): the journaled ones, looked for
     * when fewer of the snapshot's rows matched an expectation than the journal holds ({@code unmatched} of them); and,
     * when v2 may hold rows the journal does not know of ({@link QueueMigration#unjournaledRows}), the rows of such jobs
     * that are there without an expectation (read: state, attempts, parent). A job that left the rows was written (its
     * hash removed, moved or locked), so with the change feed intact the candidates are the jobs it told written that
     * the snapshot lists as no row ({@link #toldGone}); the whole journal is walked only when they hold fewer than
     * {@code unmatched} expectations (a job that left unwritten: the rows' options, a feed that missed it).
     */
    private static Gone gone(QueueMigration m, QueueSnapshot snap, long unmatched, Optional<SourceFeed.Changes> changes) {
        if (unmatched <= 0 && !m.unjournaledRows) {
            return new Gone(false);
        }
        Optional<Set<Bytes>> toldGone = m.unjournaledRows ? Optional.empty() : toldGone(m, snap, changes);
        if (toldGone.isPresent()) {
            Gone told = new Gone(false);
            Migratable.inBatches(List.copyOf(toldGone.get()), LOOKUP,
                    batch -> told.addJournaled(m.journal.known(batch.stream().map(Bytes::raw).toList()).expected()));
            if (told.rows().size() == unmatched) { // each is one of the unmatched (no row's id is left among the candidates): all of them
                return told;
            }
        }
        Gone gone = new Gone(true);
        IdSet rows = new IdSet();
        Migratable.rows(snap, m.rule()).forEach(j -> rows.add(j.id()));
        List<BrandedId> candidates = new ArrayList<>();
        m.journal.ids().forEach((id, v1) -> {
            if (!rows.contains(Bytes.of(v1))) {
                candidates.add(id);
            }
        });
        Migratable.inBatches(candidates, LOOKUP, batch -> {
            Map<BrandedId, Expectation> journaledRows = m.journal.expectations().of(batch);
            gone.addJournaled(journaledRows);
            if (m.unjournaledRows) {
                Rows.unjournaled(m, batch.stream().filter(id -> !journaledRows.containsKey(id)).toList()).forEach((id, row) -> {
                    gone.rows().put(id, row.attempts());
                    if (row.flow()) {
                        gone.flows().add(id + " (a flow job's row the journal does not know of)");
                    }
                });
            }
        });
        return gone;
    }

    /**
     * Forgets rows' expectations, then removes the rows (guarded by the attempts each holds: never one the v2 runtime
     * claimed) and their subkeys: the mirror of a write, which writes rows before their expectations. A run stopped in
     * between leaves rows the journal does not know of, which the next pass looks for ({@link QueueMigration#unjournaledRows})
     * and removes, or rewrites once their job is a row again (a worker's lock ran out); never an expectation of a row
     * gone, which that pass would take for a row the v2 runtime finished (refused out-of-line), and abandon for a copy served.
     */
    private static void remove(QueueMigration m, Map<BrandedId, Long> gone) {
        List<BrandedId> ids = new ArrayList<>(gone.keySet());
        for (int from = 0; from < ids.size(); from += REMOVALS) {
            Map<BrandedId, Long> batch = new LinkedHashMap<>();
            ids.subList(from, Math.min(ids.size(), from + REMOVALS)).forEach(id -> batch.put(id, gone.get(id)));
            m.journal.expectations().forget(batch.keySet());
            m.checkpoints.hit("removed rows forgotten");
            Rows.write(m, RowBuilder.removeCall(m, batch));
            TargetWrites w = new TargetWrites(m);
            batch.keySet().forEach(id -> {
                for (JobSub sub : JobSub.values()) {
                    w.del(m.keys.job(id, sub));
                }
            });
            w.flush();
            m.checkpoints.hit("rows removed");
        }
    }
}
