package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.ServerState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * V120, the v1 pause window, then retirement, in five parts.
 *
 * <p>The catch-up: while v1 still serves, re-sync passes as V100's ({@link CatchUp}) apply what v1 did
 * since (while V110 verified), until the delta is small, and the rows they wrote are proven
 * ({@link Verification#proveWritten}); so the pass under the pause and its proof have only what v1 did
 * during the last of them left. Done here rather than as a step of its own: it must run right before
 * the pause, on every run that pauses (a re-run resuming V120 with v1 live too).
 *
 * <p>The pause: the instant is journaled ({@code v1_paused_at}), then the v1 queue is paused as
 * BullMQ's pause does (v1 workers fetch nothing more) and its add counter frozen (a v1 add fails
 * loudly from here on: the tombstone takes over from the freeze; see {@code migrate_v1_fence.lua}).
 * A refusal or a failure before the tombstone gives both back (v1 serves again, nothing deleted), but
 * for a lost connection (the step runs again); so does {@code abandon} after a crash mid-window.
 *
 * <p>The structures: a re-sync pass ({@link Resync}: an exact read of the source, the catch-up's last
 * snapshot refreshed with the keys the change feed reports written since when it can prove the result
 * ({@link QueueMigration#refreshSource}: the listings and those jobs read again, no key scan), else the
 * whole source, O(jobs); only the job hashes the feed reports are digested again, and only those, new
 * jobs and jobs moved since the catch-up's pass are looked up in the journal) brings v2 in line with the paused
 * source, waiting for jobs v1 workers still hold (up to {@code --wait-for-locks}); the rows it wrote are verified (the rest
 * were proven at V110 and by the catch-up while v1 served; see {@link Verification#proveWritten}); then one transaction deletes
 * the v1 structures and stamps the tombstone only if nothing wrote the add counter, any structure or the schedulers'
 * zset since that pass read them: a {@link SourceGuard} has watched them since ({@code WATCH}, O(1) on the
 * server whatever the queue holds; the transaction is its {@code EXEC}). The guard, not the feed,
 * guards this instant: the server checks it in the same step as the deletion, where a feed drain and
 * the deletion would be two. With v1 paused and its add counter frozen, the source is written only when
 * something bypasses BullMQ's pause (a worker that ignores it, a writer of its own); then a pass and its
 * proof run again, up to {@link #PASSES} times, then the queue is refused with nothing deleted. A
 * re-run after a crash in the window takes a pass first (a watch does not outlive its connection).
 *
 * <p>The v2 queue is resumed (unless either side was paused before) and the window is journaled
 * ({@code window-ms}): v2 serves from here. What v1 wrote since the pass read it without moving a watched key follows:
 * the dedup keys it deleted on their own are dropped from v2 ({@link DedupAndSchedulers#dropDeletedAlone}: those the
 * change feed tells, or without it every one the pass read), the templates and periods of schedulers it upserted keeping
 * their next run are rewritten ({@link DedupAndSchedulers#rewriteEditedTemplates}: one made cron or bounded is refused
 * unless the run drops such schedulers), the queue settings v1's {@code meta} holds now
 * are carried ({@link CarrySettings#followV1}: {@code meta} is not watched); a run resumed past the tombstone whose
 * journal says an earlier run did not get to it follows from the journal (every dedup key and scheduler it records),
 * as nothing of v1 is deleted before the journal says it followed ({@code v1_followed}).
 *
 * <p>The jobs: those the change feed tells unwritten since the last pass have their hash and logs
 * (their hash alone when they have no logs list or flow key: the fence's read met no flow key of the queue, no read met a
 * logs list of the job, and the feed told none since) unlinked under
 * {@code WATCH} ({@link UnlinkUnwritten}; its watch on the feed kept until then); the
 * others (all of them without an intact feed: a source user without its rules, a cluster source's slot moved, a run begun inside an earlier run's pause, more than
 * {@link SourceFeed#MOST_WATCHED} queues) a batch at a time, each job's hash and logs deleted in one
 * script only while its digest is still the one v2 holds (the journal's expectation). A job edited
 * since the pass (data, progress, logs) is copied again from the source as read before the tombstone,
 * then retired; one that keeps changing, or that this run cannot copy again, is refused with its hash
 * kept. Then every other key of the queue (subkeys, completed jobs, dedup keys, scheduler records) is
 * deleted in batches, {@code meta} kept as the tombstone and the add counter left holding it.
 */
final class RetireSource implements Step {
    static final int PASSES = 5;
    static final int BATCH = 500;
    /** Jobs retired at once on the change feed's word: ten rounds of {@link UnlinkUnwritten}. */
    static final int UNLINK_BATCH = 10 * UnlinkUnwritten.ROUND;
    /** The most edited jobs a refusal of a retirement resumed past the tombstone names (the count says how many more). */
    static final int MOST_NAMED = 20;
    static final List<String> QUEUE_LEVEL = List.of("pc", "marker", "events", "stalled", "stalled-check", "limiter",
            "repeat", "metrics:completed", "metrics:failed", "metrics:completed:data", "metrics:failed:data",
            "priority", "delay", "waiting");

    @Override
    public List<String> checkpoints() {
        return Stream.of(Resync.CHECKPOINTS, List.of("source refresh gave nothing", "source refreshed", "verified, not yet recorded", "caught up", "v2 on disk", "pause recorded", "v1 paused",
                "before retire", "source moved at retire", "structures deleted", "v2 resumed", "v1 followed", "jobs watched", "job keys deleted",
                "jobs retired",
                "source deleted")).flatMap(List::stream).toList();
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        m.refuseIfHeldByAnother(); // a tombstone is then this journal's: an earlier run of it stamped it
        boolean stamped = SourceFence.tombstoned(m.sourceWire, m.source);
        // read once: of what this step reads, only the pause instant (recorded below when absent, with v1_followed
        // false: read only when an earlier run stamped the tombstone) and the window (recorded after its last use) are
        // written before the step ends
        JournalHeader header = m.journal.header();
        if (!stamped && m.v1Live()) {
            m.beginWatch(false); // a run resumed past the fence (after --no-retire): its catch-up reads in full, its last pass a delta
        }
        Map<String, Long> caughtUp = !stamped && m.v1Live() && m.watch.isPresent() ? catchUpBeforeThePause(m) : Map.of();
        boolean inWindow = header.get(JournalHeader.V1_PAUSED_AT).isPresent(); // an earlier run paused v1 (and may have stopped anywhere)
        if (!stamped && !inWindow) {
            ServeOrder.refuseADrift(m, () -> ServeOrder.of(m, m.snapshot())); // v1 serves on: nothing to give back
            ReplicaAcks.await(m, "nothing of v1 was deleted, and it serves on"); // the bulk of the copy, v1 still serving
        }
        Stamped stamp = stamped ? new Stamped(Optional.empty(), 0, Map.of(), header.get(JournalHeader.V1_PAUSED_AT), Optional.empty(),
                Optional.empty()) : pauseAndRetireStructures(m, header, inWindow);
        m.checkpoints.hit("structures deleted");
        if (header.get(JournalHeader.WINDOW_MS).isEmpty()) {
            refuseUntilV1sReplicasHoldTheTombstone(m, stamp.tombstone());
        }
        long window = header.get(JournalHeader.WINDOW_MS).orElseGet(() ->
                System.currentTimeMillis() - stamp.pausedAt().orElseThrow());
        JournalHeader.Write windowMs = new JournalHeader.Write().set(JournalHeader.WINDOW_MS, window);
        boolean v1WasPaused = stamp.v1WasPaused().orElseGet(() -> header.get(JournalHeader.V1_WAS_PAUSED).orElse(false));
        if (!v1WasPaused && !header.get(JournalHeader.V2_WAS_PAUSED).orElse(false)) {
            TargetFence.resumeAndRecord(m.targetWire, m.keys, m.journal, windowMs);
        } else {
            m.journal.record(windowMs);
        }
        m.checkpoints.hit("v2 resumed");
        Followed followed = followV1(m, stamp.before(), header);
        m.checkpoints.hit("v1 followed");
        Optional<ServeOrder.Drift> drift = ServeOrder.accepted(m, stamp.before());
        drift.ifPresent(d -> m.journal.record(JournalHeader.ORDER_DRIFT, d.describe()));
        Retired jobs = retireJobs(m, stamp.before());
        m.checkpoints.hit("jobs retired");
        long keys = deleteRemainingKeys(m);
        m.checkpoints.hit("source deleted");
        TargetFence.releaseAndRecord(m.targetWire, m.keys, m.journal, new JournalHeader.Write().set(JournalHeader.STATE, MigrationState.RETIRED));
        Map<String, Long> counts = new LinkedHashMap<>();
        caughtUp.forEach((k, v) -> counts.put("live-" + k, v));
        stamp.pass().forEach((k, v) -> counts.put("pass-" + k, v));
        counts.putAll(Map.of("structures", stamp.structures(), "jobs", jobs.deleted(), "unlinked", jobs.unlinked(), "keys", keys,
                "window-ms", window));
        if (followed.dedupKeys() > 0) {
            counts.put("dedup-keys-deleted-alone", followed.dedupKeys());
        }
        if (followed.templates() > 0) {
            counts.put("scheduler-templates-edited", followed.templates());
        }
        drift.ifPresent(d -> d.sets().forEach((set, broken) -> counts.put(set.wireName() + "-order-breaks", broken.times())));
        return counts;
    }

    /**
     * While v1 still serves, just before the pause: catches up again as V100 does ({@link CatchUp#run}:
     * what v1 did since V100's last pass, while V110 verified, until the delta is small), then proves the rows those
     * passes wrote ({@link Verification#proveWritten}), so the pass under the pause and its proof have
     * only what v1 did during the last of them left. Its counts, each pass's summed. Only when the change
     * feed watches the queue, which makes a live pass a refresh of what v1 wrote: without it (a source user
     * without its rules, a run of more than {@link SourceFeed#MOST_WATCHED} queues) each pass would read the whole
     * source again, as the pass under the pause does anyway (10,000 queues of 4 jobs: twice the key scans). A run resumed
     * past the fence (after {@code --no-retire}) begins its watch just before: its first pass reads the whole source
     * ({@link QueueMigration#beginWatch}).
     */
    private static Map<String, Long> catchUpBeforeThePause(QueueMigration m) {
        CatchUp.Passes passes = CatchUp.run(m);
        Verification.proveWritten(m, passes.written(), passes.journaled());
        m.checkpoints.hit("caught up");
        return passes.counts();
    }

    /** The source's replicas online when a run stamped the tombstone, and how many acknowledged it (-1: WAIT refused). */
    private record TombstoneAcks(long replicas, long acknowledged) {
    }

    /**
     * Before v2 serves: v1's replicas hold the tombstone (and so the pause before it), else a failover of v1's server
     * could promote a replica where the queue is not paused and still holds its jobs, which v1 workers would then serve
     * beside v2. {@code tombstone}: the source's replicas online when this run stamped it, and how many acknowledged it
     * ({@link SourceGuard#retire}: {@code WAIT} on the connection that stamped it); empty when an earlier run stamped it,
     * or -1 acknowledged when the user may not run {@code WAIT}: every online replica must then be seen at the server's
     * offset now ({@link ServerState#replicasAtOffset}, as they acknowledge, once a second). Refuses
     * ({@code replicas-behind}), v2 paused, the tombstone kept; a re-run resumes here. Nothing is waited for without replicas, or when the source's {@code INFO} is refused.
     */
    private static void refuseUntilV1sReplicasHoldTheTombstone(QueueMigration m, Optional<TombstoneAcks> tombstone) {
        byte[] meta = m.source.key(QueueStructure.META).raw();
        TombstoneAcks held = tombstone.filter(acks -> acks.acknowledged() >= 0).orElseGet(() -> {
            int online = ServerState.onlineReplicas(m.sourceWire.client(), meta).orElse(0);
            boolean atOffset = online == 0 || ServerState.replicasAtOffset(m.sourceWire.client(), meta, ReplicaAcks.TIMEOUT).orElse(true);
            return new TombstoneAcks(online, atOffset ? online : 0);
        });
        if (held.acknowledged() >= held.replicas()) {
            return;
        }
        throw new MigrationRefused(MigrationRefused.Kind.REPLICAS_BEHIND, "the v1 server holding " + m.source.display() + " has "
                + held.replicas() + " replica(s) online and " + held.acknowledged() + " acknowledged the tombstone within "
                + ReplicaAcks.TIMEOUT.toSeconds() + " s: a failover now could promote a replica where the queue still serves its jobs,"
                + " beside v2; the tombstone is stamped and v2 stays paused (nothing serves the queue meanwhile); bring v1's replicas"
                + " up to date (INFO replication shows each one's lag), or detach one that cannot keep up, then run migrate again:"
                + " it resumes the v2 queue");
    }

    /** What the retirement followed of v1: the dedup keys it deleted alone, dropped from v2, and the scheduler templates it edited. */
    private record Followed(long dedupKeys, long templates) {
    }

    /**
     * Once v2 serves, before any v1 job or key is deleted: follows what v1 wrote since the last pass read it without
     * moving a watched key ({@link DedupAndSchedulers#dropDeletedAlone}, {@link DedupAndSchedulers#rewriteEditedTemplates}),
     * from {@code before} (that pass's read, the feed's keys since) when this run stamped the tombstone, else from the
     * journal when the run that stamped it stopped before it followed ({@link JournalHeader#V1_FOLLOWED} false), and the
     * queue settings from v1's {@code meta} as it is now ({@link CarrySettings#followV1}); then journals it followed.
     * Nothing when an earlier run followed, or its release journaled no such fact.
     */
    private static Followed followV1(QueueMigration m, Optional<QueueSnapshot> before, JournalHeader header) {
        boolean due = header.get(JournalHeader.V1_FOLLOWED).equals(Optional.of(false));
        if (before.isEmpty() && !due) {
            return new Followed(0, 0);
        }
        Followed followed = before.map(read -> new Followed(
                        DedupAndSchedulers.dropDeletedAlone(m, read, m.watch.flatMap(SourceFeed.Watch::peek)),
                        DedupAndSchedulers.rewriteEditedTemplates(m, read)))
                .orElseGet(() -> new Followed(DedupAndSchedulers.dropDeletedAlone(m), DedupAndSchedulers.rewriteEditedTemplates(m)));
        CarrySettings.followV1(m);
        m.journal.record(JournalHeader.V1_FOLLOWED, true);
        return followed;
    }

    /**
     * Pauses v1 (journaled first, so a crash in between is undone by abandon) and retires its
     * structures. A refusal or a failure before the tombstone (a server out of memory, a bug) gives v1
     * back: resumes it (thaws its add counter only, when it was paused before the migration, or when the window
     * opened, by an operator since the fence: the pause says so, on every run inside the window) and forgets the
     * pause, v1 serving again as it did; a failure of the give-back is added to the first one's (v1 then stays
     * paused, which {@code abandon} undoes). Not a lost connection, after which the step
     * runs again (pausing v1 again), nor a lost lease (the migrator that took the queue over may be in its
     * own window, v1 paused for it), nor an injected crash, which stands for a process that stopped.
     */
    private static Stamped pauseAndRetireStructures(QueueMigration m, JournalHeader header, boolean inWindow) {
        long pausedAt = header.get(JournalHeader.V1_PAUSED_AT).orElseGet(() -> {
            long now = System.currentTimeMillis();
            m.journal.record(new JournalHeader.Write().set(JournalHeader.V1_PAUSED_AT, now).set(JournalHeader.V1_FOLLOWED, false));
            return now;
        });
        m.checkpoints.hit("pause recorded");
        m.v1Paused();
        boolean v1WasPaused = header.get(JournalHeader.V1_WAS_PAUSED).orElse(false);
        try {
            boolean pausedWhenOpened = Long.valueOf(1).equals(SourceFence.pause(m.sourceWire, m.source, m.journal.sourceToken()).get(0));
            m.checkpoints.hit("v1 paused");
            if (pausedWhenOpened && !v1WasPaused) {
                // paused since the fence, by an operator: it stays paused if this run gives v1 back, and the v2 queue
                // starts paused (v1 keeps the fact until the window closes: a run stopped before this record finds it)
                m.journal.record(JournalHeader.V1_WAS_PAUSED, true);
                v1WasPaused = true;
            }
        } catch (JedisDataException refused) {
            forgetThePause(m, refused); // the script refused its first write (a read-only replica...): v1 is as it was
            throw refused;
        } catch (EmqWireException.Lock refused) {
            Optional<MigrationRefused> elsewhere = m.heldByAnother(); // else a migrator of this journal took the queue: lease lost
            if (elsewhere.isEmpty()) {
                throw refused;
            }
            forgetThePause(m, refused); // another migration's window, or its tombstone: this one paused nothing
            throw elsewhere.get();
        }
        try {
            return retireStructures(m, pausedAt, v1WasPaused, inWindow);
        } catch (JedisConnectionException | EmqWireException.Lock | Checkpoints.InjectedCrash stopped) {
            throw stopped; // the step runs again; or another migrator holds the queue now, v1's pause its own; or a crash
        } catch (RuntimeException failed) {
            try {
                SourceFence.giveBack(m.sourceWire, m.source, m.journal.sourceToken(), v1WasPaused);
                forgetThePause(m, failed);
            } catch (RuntimeException alsoFailed) {
                failed.addSuppressed(alsoFailed);
            }
            throw failed;
        }
    }

    /** Forgets the pause journaled, v1 serving as it did; a failure to is added to {@code failed}'s, v1 then counted paused. */
    private static void forgetThePause(QueueMigration m, RuntimeException failed) {
        try {
            m.journal.forget(List.of(Utf8.bytes(JournalHeader.V1_PAUSED_AT.name()), Utf8.bytes(JournalHeader.V1_FOLLOWED.name())));
            m.v1Resumed();
        } catch (RuntimeException alsoFailed) {
            failed.addSuppressed(alsoFailed);
        }
    }

    /**
     * What stamping the tombstone deleted, the source as read by the pass it stamped after, and the
     * counts of that pass (empty when an earlier run stamped it); the instant v1 was paused, as journaled; and
     * whether v1 was paused before this migration paused it (empty when an earlier run stamped it: the journal says).
     */
    private record Stamped(Optional<QueueSnapshot> before, long structures, Map<String, Long> pass, Optional<Long> pausedAt,
                           Optional<Boolean> v1WasPaused, Optional<TombstoneAcks> tombstone) {
    }

    /**
     * Deletes the structures and stamps the tombstone in the transaction of the {@link SourceGuard}
     * that has watched the source since the pass read it (a re-run takes a pass: a watch does not
     * outlive its run), keeping the source as that pass read it (what a job edited later is copied
     * again from). The source's {@link SourceFence#sizes} are taken when it is first found moved, so a
     * refusal tells what moved since; a retirement that holds at once takes none. The order is checked around the
     * jobs each pass moved, but on the first pass of a run resumed {@code inWindow}: the whole order then, as a run
     * that stopped there may have written a moved job and not checked it.
     */
    private static Stamped retireStructures(QueueMigration m, long pausedAt, boolean v1WasPaused, boolean inWindow) {
        String first = null;
        int sourceReplicas = ServerState.onlineReplicas(m.sourceWire.client(), m.source.key(QueueStructure.META).raw()).orElse(0);
        try {
            for (int pass = 0; pass < PASSES; pass++) {
                Resync.Pass synced = Resync.run(m);
                // a pass that found jobs it read removed since (a client's removal) proves nothing: the next one reads them gone
                Optional<SourceGuard.Retirement> deleted = synced.goneSinceRead() > 0 ? Optional.empty()
                        : proveAndRetire(m, synced, inWindow && pass == 0, sourceReplicas);
                if (deleted.isPresent()) {
                    return new Stamped(Optional.of(m.snapshot()), deleted.get().deleted(), synced.counts(), Optional.of(pausedAt),
                            Optional.of(v1WasPaused), deleted.map(d -> new TombstoneAcks(sourceReplicas, d.acknowledged())));
                }
                m.checkpoints.hit("source moved at retire");
                if (first == null) {
                    first = SourceFence.sizes(m.sourceWire, m.source);
                }
            }
        } finally {
            m.takeGuard().ifPresent(SourceGuard::close);
        }
        throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "the v1 queue " + m.source.display() + " kept changing at"
                + " retirement over " + PASSES + " passes (" + SourceFence.describe(first,
                SourceFence.sizes(m.sourceWire, m.source)) + "): v1 producers or workers are still running;"
                + " stop them (point producers at v2), then re-run; nothing was deleted");
    }

    /**
     * After a pass under the pause: proves the rows it wrote, checks the order around the jobs it moved ({@code whole}: the
     * whole order), awaits v1's replicas, then deletes the structures and stamps the tombstone in the transaction of the
     * guard that has watched the source since the pass read it; empty when the source moved since (or a flow job did).
     */
    private static Optional<SourceGuard.Retirement> proveAndRetire(QueueMigration m, Resync.Pass synced, boolean whole, int sourceReplicas) {
        Verification.proveWritten(m, synced.written(), synced.journaled());
        QueueSnapshot snapshot = m.snapshot();
        ServeOrder.refuseADrift(m, () -> whole ? ServeOrder.of(m, snapshot) : ServeOrder.around(m, snapshot, synced.moved()));
        ReplicaAcks.await(m, "nothing of v1 was deleted, and its pause is given back");
        m.checkpoints.hit("before retire");
        return flowsMoved(m, snapshot) ? Optional.empty()
                : m.takeGuard().orElseThrow().retire(queueLevelKeys(m), m.journal.sourceToken(), sourceReplicas, ReplicaAcks.TIMEOUT);
    }

    /**
     * Whether a flow job (a parent waiting for children, or a child) holds other than v2 holds: a flow
     * cannot be copied again piecemeal, so it is looked at before the tombstone, where the re-sync
     * pass that follows can still refuse the queue with v1 intact. A snapshot that lists no job waiting
     * for children and met no child (every job with a parent is a flow link) is not walked. With the change feed
     * intact, only the flow jobs it tells written since the pass drained it are digested (the pass left every other one
     * as v2 holds it), the keys kept for the retirement's drain ({@link SourceFeed.Watch#peek}); without it, every one.
     */
    private static boolean flowsMoved(QueueMigration m, QueueSnapshot snapshot) {
        if (snapshot.flowLinks().isEmpty() && snapshot.jobs(V1State.WAITING_CHILDREN).isEmpty()) {
            return false;
        }
        Optional<SourceFeed.Changes> since = m.watch.flatMap(SourceFeed.Watch::peek);
        Bytes base = m.source.base();
        boolean[] moved = {false};
        Iterable<JobFacts> flows = Migratable.select(List.of(snapshot.jobsInRankOrder()),
                j -> m.rule().getsRow(j) && (j.state() == V1State.WAITING_CHILDREN || j.parentKey() != null)
                        && since.map(c -> c.touchedJob(base, j.id())).orElse(true));
        Migratable.inBatches(flows, BATCH, batch -> {
            List<Bytes> v1Ids = batch.stream().map(JobFacts::id).toList();
            Journal.Known known = m.journal.known(v1Ids.stream().map(Bytes::raw).toList());
            List<String> digests = SourceFence.digests(m.sourceWire, m.source, v1Ids);
            for (int i = 0; i < batch.size(); i++) {
                Expectation e = known.expectation(i).orElse(null);
                moved[0] |= e == null || !e.source().equals(digests.get(i));
            }
        });
        return moved[0];
    }

    /** What the jobs' retirement did: the keys it deleted, and how many jobs it unlinked on the change feed's word. */
    private record Retired(long deleted, long unlinked) {
    }

    /**
     * Retires every job that has a row; the jobs are those of the source as read before the tombstone
     * (the pass brought the journal in line with them), or, when an earlier run stamped it, the
     * journal's. Then the queue's watch on the change feed ends (what the deletions that follow write
     * is not kept).
     */
    private static Retired retireJobs(QueueMigration m, Optional<QueueSnapshot> before) {
        try {
            ReplicaAcks.await(m, "v1's tombstone is stamped, its jobs kept"); // a run resumed past the tombstone: rows an earlier run wrote
            return before.isPresent() ? retireRead(m, before.get()) : new Retired(retireJournaled(m), 0);
        } finally {
            m.watch.ifPresent(SourceFeed.Watch::end);
        }
    }

    /**
     * Retires the jobs of the source as read before the tombstone, {@link #UNLINK_BATCH} at a time: those
     * the change feed tells unwritten since the pass are unlinked ({@link UnlinkUnwritten}), each batch once the
     * target is seen to hold this run's lease still (a target that lost its data holds no journal: the v1 jobs left are
     * then kept); the others, and every one without a feed, have their digests checked {@link #BATCH} at a time
     * (gathered across those batches) against the journal's expectations.
     */
    private static Retired retireRead(QueueMigration m, QueueSnapshot before) {
        long[] done = {0, 0};
        Set<Bytes> parents = new HashSet<>();
        before.flowParents().forEach(p -> parents.add(p.id()));
        Optional<UnlinkUnwritten> unlinker = m.watch.flatMap(w -> UnlinkUnwritten.open(m.sourceWire, m.source, parents, w,
                id -> !m.noFlowKeysAtFence || before.hasLogs(id), m.checkpoints));
        // the jobs left to the digest check, gathered to a batch's worth: with the feed they are the few v1 wrote since the
        // pass, scattered through the queue, and a check of each batch's one or two cost a copy's round trips each
        List<Bytes> digestChecked = new ArrayList<>();
        try {
            Migratable.inBatches(Migratable.rows(before, m.rule()), UNLINK_BATCH, batch -> {
                List<Bytes> v1Ids = batch.stream().map(JobFacts::id).toList();
                List<Bytes> left = v1Ids;
                if (unlinker.isPresent()) {
                    m.journal.lease().hold(); // the feed's word needs no target read: the v2 copy must still be there
                    UnlinkUnwritten.Unlinked unlinked = unlinker.get().unlink(v1Ids);
                    left = unlinked.left();
                    done[0] += unlinked.deleted();
                    m.progressed(unlinked.deleted());
                    done[1] += v1Ids.size() - left.size();
                    if (left.size() < v1Ids.size()) {
                        m.checkpoints.hit("job keys deleted");
                    }
                    copyLate(m, before, unlinked.late());
                }
                digestChecked.addAll(left);
                if (digestChecked.size() >= BATCH) {
                    Migratable.inBatches(digestChecked, BATCH, chunk -> done[0] += retireBatch(m, before, chunk));
                    digestChecked.clear();
                }
            });
            Migratable.inBatches(digestChecked, BATCH, chunk -> done[0] += retireBatch(m, before, chunk));
            unlinker.ifPresent(u -> copyLate(m, before, u.finish()));
        } finally {
            unlinker.ifPresent(UnlinkUnwritten::close);
        }
        return new Retired(done[0], done[1]);
    }

    /**
     * Jobs unlinked by their hash alone that may have had a logs list or flow key written between their
     * WATCH and their EXEC ({@link UnlinkUnwritten.Unlinked#late}): their logs are copied again (their
     * hash gone, v1 can add no more), the lists left to the deletion of the queue's other keys; a flow
     * key (not {@code :dependencies}, which was watched: one written by hand) refuses the queue, the key kept.
     */
    private static void copyLate(QueueMigration m, QueueSnapshot before, List<Bytes> late) {
        if (late.isEmpty()) {
            return;
        }
        List<byte[]> flowKeys = late.stream().flatMap(id -> SourceFence.EXTRAS.stream().filter(kind -> kind != JobSubKind.LOGS)
                .map(kind -> m.source.jobSubKey(id, kind).raw())).toList();
        if (m.sourceWire.existing(List.of(flowKeys)).get(0) > 0) {
            throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "a flow key was written to a job of " + m.source.display()
                    + " while retirement deleted its hash, after the tombstone: its flow keys are kept, its v2 row holds what was"
                    + " copied before; stop whatever writes v1 flows, then copy the change by hand");
        }
        m.checkpoints.hit("source moved at retire");
        LogCopier.copy(m, before.jobsWithIds(new HashSet<>(late)));
        ReplicaAcks.await(m, "v1's tombstone is stamped, the logs of jobs copied again kept");
    }

    /**
     * Retires the journal's jobs, a batch at a time, each only while its digest is the one v2 holds; with no read of v1
     * from before the tombstone to copy an edited job again from, every such job is kept, the others retired, and then the
     * queue refused once, naming them all ({@link #MOST_NAMED} of them), not at the first.
     */
    private static long retireJournaled(QueueMigration m) {
        long[] deleted = {0};
        List<Bytes> edited = new ArrayList<>();
        m.journal.ids().inBatches(BATCH, (id, v1) -> Bytes.of(v1), batch -> {
            Unchanged retired = retireUnchanged(m, batch);
            deleted[0] += retired.deleted();
            edited.addAll(retired.edited());
        });
        if (!edited.isEmpty()) {
            List<String> keys = edited.stream().limit(MOST_NAMED).map(id -> m.source.jobKey(id).display()).toList();
            throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, edited.size() + " v1 job(s) of " + m.source.display()
                    + " changed after an earlier run's retirement stamped the tombstone, and this run cannot copy them again"
                    + " (v1 lists them no more): " + String.join(", ", keys) + (edited.size() > keys.size() ? " and "
                    + (edited.size() - keys.size()) + " more" : "") + "; every other job is retired; their v1 hashes are kept, their"
                    + " v2 rows hold what was copied before; stop whatever edits them, copy an edit into its v2 row by hand if it"
                    + " matters, then delete them from v1 (DEL " + String.join(" ", keys) + ") and run migrate again: the"
                    + " retirement finishes" + (edited.size() > keys.size() ? " (or names the rest)" : ""));
        }
        return deleted[0];
    }

    /** What retiring some jobs did: how many it deleted, and those it kept, edited since v2's copy (their digest moved). */
    private record Unchanged(long deleted, List<Bytes> edited) {
    }

    /** Deletes those of these jobs whose digest is the one v2 holds (its expectation's; a job the journal expects no row of is left). */
    private static Unchanged retireUnchanged(QueueMigration m, List<Bytes> v1Ids) {
        Journal.Known known = m.journal.known(v1Ids.stream().map(Bytes::raw).toList());
        List<Bytes> rows = new ArrayList<>(v1Ids.size());
        List<String> digests = new ArrayList<>(v1Ids.size());
        for (int i = 0; i < v1Ids.size(); i++) {
            Optional<Expectation> e = known.expectation(i);
            if (e.isPresent()) {
                rows.add(v1Ids.get(i));
                digests.add(e.get().source());
            }
        }
        if (rows.isEmpty()) {
            return new Unchanged(0, List.of());
        }
        SourceFence.RetiredJobs retired = SourceFence.retireJobs(m.sourceWire, m.source, rows, digests);
        m.progressed(retired.deleted());
        m.checkpoints.hit("job keys deleted");
        return new Unchanged(retired.deleted(), retired.moved().stream().map(rows::get).toList());
    }

    /**
     * Retires these jobs, each only while its digest is the one v2 holds ({@link #retireUnchanged}); a job edited since is
     * copied again from {@code before} and retired.
     */
    private static long retireBatch(QueueMigration m, QueueSnapshot before, List<Bytes> v1Ids) {
        long deleted = 0;
        List<Bytes> left = v1Ids;
        for (int attempt = 1; ; attempt++) {
            Unchanged retired = retireUnchanged(m, left);
            deleted += retired.deleted();
            if (retired.edited().isEmpty()) {
                return deleted;
            }
            m.checkpoints.hit("source moved at retire");
            copyAgain(m, before, retired.edited(), attempt);
            left = retired.edited();
        }
    }

    /** Copies again jobs edited since the pass v2 was brought in line with, from the source as read before the tombstone. */
    private static void copyAgain(QueueMigration m, QueueSnapshot before, List<Bytes> moved, int attempt) {
        List<JobFacts> jobs = new ArrayList<>(moved.size());
        Map<Bytes, JobFacts> read = new HashMap<>(); // one walk of the source as read for all of them
        before.jobsWithIds(new HashSet<>(moved)).forEach(j -> read.put(j.id(), j));
        for (Bytes id : moved) {
            Optional<JobFacts> facts = Optional.ofNullable(read.get(id)).filter(j -> m.rule().getsRow(j)
                    && j.state() != V1State.WAITING_CHILDREN);
            if (facts.isEmpty() || attempt == PASSES) {
                throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "v1 job " + m.source.jobKey(id).display() + " changed after"
                        + " retirement stamped the tombstone on " + m.source.display() + (facts.isEmpty()
                        ? " and this run cannot copy it again (a flow parent)"
                        : " and kept changing over " + PASSES + " attempts") + ": its v1 hash is kept, its v2 row holds"
                        + " what was copied before, and no later run can copy it again (v1 lists it no more); stop whatever edits"
                        + " it, copy the edit into its v2 row by hand if it matters, then delete it from v1 (DEL "
                        + m.source.jobKey(id).display() + ") and run migrate again: the retirement finishes");
            }
            jobs.add(facts.get());
        }
        JobWriter.write(m, jobs); // one v1 removed since retire_jobs found it edited is left out: the next call finds it retired already
        LogCopier.copy(m, jobs);
        ReplicaAcks.await(m, "v1's tombstone is stamped, the hashes of jobs copied again kept");
    }

    private static List<byte[]> queueLevelKeys(QueueMigration m) {
        return QUEUE_LEVEL.stream().map(s -> m.source.key(s).raw()).toList();
    }

    /** Deletes every key this queue owns (its share of a key scan, see {@link QueueMigration#sourceKeys}) except meta and the add counter; and the stray bare hash. */
    private static long deleteRemainingKeys(QueueMigration m) {
        Bytes meta = m.source.key(QueueStructure.META);
        Bytes counter = m.source.key("id");
        long[] deleted = {0};
        m.sourceKeys.keysOf(m.source, batch -> {
            List<byte[]> mine = new ArrayList<>();
            for (Bytes k : batch) {
                if (!k.equals(meta) && !k.equals(counter)) {
                    mine.add(k.raw());
                }
            }
            if (!mine.isEmpty()) {
                long unlinked = m.sourceWire.unlink(mine);
                deleted[0] += unlinked;
                m.progressed(unlinked);
                m.checkpoints.hit("job keys deleted");
            }
        });
        byte[] bare = m.source.bareKey().raw();
        if ("hash".equals(m.sourceWire.type(bare))) {
            deleted[0] += m.sourceWire.unlink(List.of(bare));
        }
        return deleted[0];
    }
}
