package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.KeyClass;
import io.emq.migrate.v1.KeyClassifier;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.SharedScan;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.FlowLinks;
import io.emq.migrate.v1.plan.V2Names;
import io.emq.migrate.wire.DedicatedConnections;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import io.emq.migrate.wire.Wire;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Everything the steps of one queue's migration share: both ends, the journal, the options, the snapshot. */
final class QueueMigration {
    static final int READS = 5;
    final QueueRef source;
    final String target;
    final Keys keys;
    final Wire sourceWire;
    final Wire targetWire;
    final Journal journal;
    final MigrationOptions options;
    final QueueBases bases;
    final Checkpoints checkpoints;
    final SourceServer sourceServer;
    final IdBases idBases;
    /** The source's and the target's key scans, shared by the queues of a run (see {@link SharedScan}). */
    final SharedScan<QueueRef> sourceKeys;
    final SharedScan<String> targetKeys;
    /** The source's change feed, shared by the queues of a run (see {@link SourceFeed}). */
    final SourceFeed feed;
    /** The connections the guards of a run watch the source on (see {@link SourceGuard}). */
    private final DedicatedConnections guardConnections;
    /**
     * This queue's watch on the feed, from its fence in this run on, or from the first re-sync step of a run resumed
     * past the fence ({@link #beginWatch}); empty when the feed cannot tell (see {@link Resync}).
     */
    Optional<SourceFeed.Watch> watch = Optional.empty();
    /** Whether {@link #beginWatch} ran in this run. */
    private boolean watchBegun;
    /**
     * Whether the watch began after the fence and no pass has read the whole source since: it tells nothing of what v1
     * wrote before it began, so the next pass reads in full ({@link Resync#pass}).
     */
    boolean watchUnproven;
    /** Why {@link #watch} is empty: the feed's reason ({@link SourceFeed#whyUnwatched}), else this run began inside the pause. */
    String unwatchedBecause = "this run began inside the pause window an earlier run opened, where a change feed begun now"
            + " cannot tell what v1 did before it";
    /** Why the last re-sync pass of this run that had no change feed had none; empty when every one had it. */
    Optional<String> withoutFeed = Optional.empty();
    /**
     * Whether this run's fence read (V10's key scan, after the watch began) met no flow key ({@link SourceFence#noFlowKeysScanned}):
     * then a job has a logs list only if a read since met it ({@link QueueSnapshot#hasLogs}) or the feed told it.
     */
    boolean noFlowKeysAtFence;
    /**
     * Whether the last absorb of dedup keys, receipts and schedulers in this run wrote all of them from the source as last
     * read, and none has started since: the next pass writes and drops only what the feed tells changed ({@link DedupAndSchedulers}).
     */
    boolean recordsCarried;
    /**
     * What the last successful re-sync pass of this run brought v2 in line with (see {@link InLine}); without the feed,
     * from the copy on, each job's digest too ({@link InLine#withDigests}).
     */
    Optional<InLine> inLine = Optional.empty();
    /**
     * Whether v2 may hold rows of this migration the journal does not know of: rows are written before their
     * expectations are recorded, and a run (or a try of a step) that stopped in between leaves them. True until V20
     * mints in this run (no earlier run wrote one), or until a re-sync pass looked for them ({@link Resync}); again
     * when a step is tried again in this run.
     */
    boolean unjournaledRows = true;
    /** The jobs re-sync passes added since the Migrator last took them ({@link #takeAdded}), by the v2 state of their rows. */
    private final Map<V2State, Long> added = new EnumMap<>(V2State.class);
    /**
     * The flow parents whose records (their children's results, {@code :dependencies}) this run wrote, and the child
     * links each holds ({@link AbsorbFlows}): a try of V60 after a lost connection goes on from there.
     */
    final Map<Bytes, Long> flowRecords = new HashMap<>();
    /** The work this run's steps did that no earlier try did ({@link #progressed}). */
    private final AtomicLong progress = new AtomicLong();
    /** The v1 finished counts this run last folded into v2's metrics ({@link FinishedCounts}); empty before the first fold. */
    Map<FinishedCounts.Metric, Long> folded = Map.of();
    /** The completed v1 jobs (their ids, in order) this run last wrote to the {@code --archive-completed} file; null before. */
    List<Bytes> archived;
    /**
     * The snapshot V20 minted ids from in this run, until the first re-sync pass: the absorb steps after it
     * copied every row-bearing job of it as it read it (see {@link Resync}); null when V20 did not run in this run.
     */
    private QueueSnapshot mintedFrom;
    /** The ids V20 minted in this run that follow from a job's rank in {@link #mintedFrom} (see {@link #freshIds}). */
    private Optional<FreshIds> freshIds = Optional.empty();
    private final Function<QueueRef, Optional<String>> targetNames;
    private final Map<String, Journal> otherJournals = new HashMap<>();
    /** The other queues this run recorded its v2 data links with ({@link Journal#LINKED_PREFIX}). */
    private final Set<String> linked = new HashSet<>();
    private QueueSnapshot snapshot;
    /**
     * Which jobs of the snapshot held get an id and a row ({@link Migratable.Rule}): after a read while v1 serves, not
     * the orphans whose hashes v1 wrote as it read (since the watch began, for V10's read; every orphan when the change
     * feed cannot tell), see {@link #orphansWrittenWhileRead}; after a read under the pause, the plan's rule.
     */
    private Migratable.Rule rule;
    /**
     * The edits a refresh under the pause let stand ({@link #onlyJobEdits}): told by the drain after its read, so the next
     * drain tells them no more, yet perhaps not in the snapshot held; the next refresh of it reads them again.
     */
    private Set<Bytes> editsSinceRefresh = Set.of();
    private final Map<BrandedId, String> knownLanes = new HashMap<>();
    /** Whether this run proved every journaled row (V110, or a whole proof in V120): then a pass under the pause proves only what it wrote. */
    boolean provenThisRun;
    /**
     * The source's {@link SourceFence#sizes} taken just before this run's last full read while v1 is live, when
     * the change feed does not watch the queue ({@link CatchUp} compares them); empty when none was taken.
     */
    private Optional<String> sizesBeforeLiveRead = Optional.empty();
    /** The journal's header as this run found it when it took the lease, until V10 takes it ({@link #headerAsBegun}). */
    private JournalHeader begunWith;
    /** Whether v1 is live: this migration has not paused it for its last pass yet (V120); read from the journal on first use. */
    private Boolean v1Live;
    /** The watch that has held since the exact snapshot was read ({@link #readSource}, {@link #refreshSource}); null when none does. */
    private SourceGuard guard;

    QueueMigration(QueueRef source, String target, Wire sourceWire, Wire targetWire, MigrationOptions options,
                   QueueBases bases, Checkpoints checkpoints, Function<QueueRef, Optional<String>> targetNames, SourceServer sourceServer,
                   IdBases idBases, SharedScan<QueueRef> sourceKeys, SharedScan<String> targetKeys, SourceFeed feed,
                   DedicatedConnections guardConnections) {
        this.feed = feed;
        this.guardConnections = guardConnections;
        this.sourceServer = sourceServer;
        this.idBases = idBases;
        this.sourceKeys = sourceKeys;
        this.targetKeys = targetKeys;
        this.source = source;
        this.target = target;
        this.keys = Keys.queue(target);
        this.sourceWire = sourceWire;
        this.targetWire = targetWire;
        this.journal = new Journal(targetWire, target);
        this.options = options;
        this.rule = Migratable.Rule.of(options);
        this.bases = bases;
        this.checkpoints = checkpoints;
        this.targetNames = targetNames;
    }

    /** {@code header} with this run's choices that shape the rows: the payload policy and the lanes. */
    JournalHeader.Write choices(JournalHeader.Write header) {
        return header.set(JournalHeader.POLICY, options.payload())
                .set(JournalHeader.LANE, options.lane().map(BrandedId::toString).orElse(""))
                .set(JournalHeader.LANE_FROM, options.laneFrom().orElse(""));
    }

    /**
     * The refusal a run owes when its options differ from those the queue's migration started with
     * (payload policy, lane): every step must write the same way. Empty when they agree, when
     * nothing is recorded yet, or after an abandon; {@code header} is the journal's header as just read.
     */
    Optional<MigrationRefused> changedChoice(JournalHeader header) {
        if (header.get(JournalHeader.STATE).map(s -> s == MigrationState.ABANDONED).orElse(false)) {
            return Optional.empty();
        }
        Optional<String> policy = header.get(JournalHeader.POLICY).map(PayloadPolicy::wireName);
        if (policy.isPresent() && !policy.get().equals(options.payload().wireName())) {
            return Optional.of(new MigrationRefused(MigrationRefused.Kind.PAYLOAD_POLICY, "the migration of '" + target + "' started with"
                    + " --payload " + policy.get() + "; re-run with --payload " + policy.get() + " or abandon it first"));
        }
        Optional<String> lane = header.get(JournalHeader.LANE);
        String given = options.lane().map(BrandedId::toString).orElse("");
        Optional<String> laneFrom = header.get(JournalHeader.LANE_FROM);
        String givenFrom = options.laneFrom().orElse("");
        if ((lane.isPresent() && !lane.get().equals(given)) || (laneFrom.isPresent() && !laneFrom.get().equals(givenFrom))) {
            return Optional.of(new MigrationRefused(MigrationRefused.Kind.LANE, "the migration of '" + target + "' started with "
                    + (lane.orElse("").isEmpty() ? "no --lane" : "--lane " + lane.get()) + " and "
                    + (laneFrom.orElse("").isEmpty() ? "no --lane-from" : "--lane-from " + laneFrom.get())
                    + "; re-run it the same way or abandon it first"));
        }
        return Optional.empty();
    }

    /**
     * Refuses a run that names another v1 server than the one this migration began from (the journal's {@code source};
     * an address differing only in its user or scheme names the same one, see {@link SourceAddress}), unless the server
     * named holds the same database with the replication id recorded then ({@link SourceServer#holdsDataOf}): the same data (the
     * master of the replica the migration began from, or the replica a failover promoted), and the journal then
     * records its address. Resuming from another server's queue of the same name would bring v2 in line with that
     * queue (rewriting rows, removing those whose v1 job it lacks) and retire it. Then refuses a v1 queue another
     * migration holds ({@link #heldByAnother}). Nothing is written when refused. Call only on a
     * journal that recorded its fence step and holds the lease (not on an abandoned one, which begins again from the
     * fence).
     */
    Optional<MigrationRefused> sourceRefusal(JournalHeader header) {
        Optional<String> recorded = header.get(JournalHeader.SOURCE);
        if (recorded.isEmpty() || SourceAddress.of(recorded.get()).sameServer(SourceAddress.of(sourceServer.name()))) {
            return heldByAnother();
        }
        if (sourceServer.holdsDataOf(source, recorded, header.get(JournalHeader.SOURCE_REPLID))) {
            journal.record(new JournalHeader.Write().set(JournalHeader.SOURCE, sourceServer.name())
                    .set(JournalHeader.SOURCE_REPLID, sourceServer.replicationId(source)));
            return heldByAnother();
        }
        return Optional.of(new MigrationRefused(MigrationRefused.Kind.OTHER_SOURCE, V2Names.otherSource(target, source, recorded.get(),
                sourceServer.name(), header.get(JournalHeader.STATE).equals(Optional.of(MigrationState.RETIRED))) + "; nothing was written"));
    }

    /**
     * Refuses to go on with a v1 queue another journal's migration holds ({@link SourceFence#holder}): it retired the
     * queue while this one was stopped (the tombstone with its token: what v1 held went to that migration's target, and
     * this one's copy must not be served; its v2 queue stays paused and {@code abandon} deletes it), or it holds the
     * queue inside its pause window (this one may neither copy it as that one left it nor pause it).
     */
    Optional<MigrationRefused> heldByAnother() {
        SourceFence.Holder holder = SourceFence.holder(sourceWire, source);
        if (holder.retiredByAnother(journal.sourceToken())) {
            return Optional.of(new MigrationRefused(MigrationRefused.Kind.RETIRED, retiredByAnother(source, holder.describe(), target)));
        }
        return holder.pauseWindowOpen() && holder.takenByAnother(journal.sourceToken()) ? Optional.of(insideTheWindowOf(holder))
                : Optional.empty();
    }

    /**
     * Why the migration into v2 queue {@code target} of v1 queue {@code source} is refused once {@code retiredBy} (another
     * journal's migration) retired the queue: plan and migrate say it alike.
     */
    static String retiredByAnother(QueueRef source, String retiredBy, String target) {
        return "the v1 queue " + source.display() + " was retired by " + retiredBy + ", another migration than this one (into"
                + " another target, or begun again after an abandon), since this one began: that migration's target holds its"
                + " jobs (if its run stopped before its v2 queue served them, run that migration again to finish it); this"
                + " target's copy in '" + target + "' stays paused, not served: `emq-migrate abandon` deletes it (v1 is left as"
                + " it is); nothing was written to v1";
    }

    /**
     * Throws {@link #heldByAnother}'s refusal, if any: for a run that read the source, to learn whether another
     * migration took the queue meanwhile (a second migrator into another target, running beside this one), before it
     * acts on what it read (a queue another retired reads empty).
     */
    void refuseIfHeldByAnother() {
        heldByAnother().ifPresent(refused -> {
            throw refused;
        });
    }

    /** The refusal of a v1 queue inside the pause window of another migration ({@code holder}'s). */
    MigrationRefused insideTheWindowOf(SourceFence.Holder holder) {
        return new MigrationRefused(MigrationRefused.Kind.LOCKED, "the v1 queue " + source.display() + " is inside the pause"
                + " window of " + holder.describe() + " (its add counter frozen, meta.migrating-id saved), another migration (into"
                + " another target, or under another v2 name) that is finishing there or stopped there: let it finish (run it"
                + " again if it stopped), or `emq-migrate abandon` it there (it gives v1 back), then migrate this one; nothing"
                + " was written to v1");
    }

    /**
     * The lane a job waits in ({@link JobLanes}), recorded in the journal the first time a lane is
     * used, so verify, drain and abandon find every lane; empty for the flat pending set.
     */
    Optional<BrandedId> laneOf(Map<Bytes, Bytes> hash) {
        Optional<Map.Entry<BrandedId, String>> lane = JobLanes.of(options, hash);
        if (lane.isEmpty()) {
            return Optional.empty();
        }
        BrandedId id = lane.get().getKey();
        if (!knownLanes.containsKey(id)) {
            String field = Journal.LANE_PREFIX + id;
            Optional<String> recorded = journal.text(field);
            if (recorded.isPresent() && !recorded.get().equals(lane.get().getValue())) {
                throw new MigrationRefused(MigrationRefused.Kind.LANE_COLLISION, "the values '" + recorded.get() + "' and '"
                        + lane.get().getValue() + "' both mint lane " + id + "; migrate this queue with --lane instead");
            }
            if (recorded.isEmpty()) {
                journal.set(Map.of(field, lane.get().getValue()));
            }
            knownLanes.put(id, lane.get().getValue());
        }
        return Optional.of(id);
    }

    /**
     * The source as last read; read on first use (a re-run resuming mid-way): as it comes while v1 is
     * live, exactly ({@link #readSource}) once this migration paused it.
     */
    QueueSnapshot snapshot() {
        if (snapshot == null && v1Live()) {
            readLiveSource();
        } else if (snapshot == null) {
            readSource();
        }
        return snapshot;
    }

    /** V20 minted ids from the snapshot held ({@link #copyDone} forgets it), these from ranks: no earlier run wrote a row. */
    void mintedFromSnapshot(Optional<FreshIds> fresh) {
        mintedFrom = snapshot;
        freshIds = fresh;
        unjournaledRows = false;
    }

    /**
     * The ids V20 minted in this run that follow from a job's rank in the snapshot held ({@link FreshIds}), while
     * that is the snapshot it minted from and no try of a step has stopped since ({@link #unjournaledRows} false):
     * the row of such a job exists only if this run wrote it, which the journal's expectation of it then tells.
     */
    Optional<FreshIds> freshIds() {
        return mintedFrom != null && mintedFrom == snapshot && !unjournaledRows ? freshIds : Optional.empty();
    }

    /**
     * The absorb steps are done (the run's first re-sync pass begins): forgets the snapshot V20 minted from, which the
     * pass replaces (at ten million jobs, holding both would pass the heap a migration is given).
     */
    void copyDone() {
        mintedFrom = null;
    }

    /** Keeps the journal's header as this run found it when it took the lease. */
    void begunWith(JournalHeader header) {
        begunWith = header;
    }

    /**
     * The journal's header as this run found it when it took the lease, the first time it is asked (V10, the
     * run's first step: nothing writes the header between the lease and it); read from the journal after
     * that (a retried V10 may have written it).
     */
    JournalHeader headerAsBegun() {
        JournalHeader header = begunWith != null ? begunWith : journal.header();
        begunWith = null;
        return header;
    }

    /**
     * Begins this run's watch on the queue's change feed, once: at the fence ({@code atFence}), before its read; else at
     * the first re-sync step of a run resumed past the fence while v1 serves, whose first pass then reads the whole
     * source ({@link #watchUnproven}), and the passes after it only what the feed tells v1 wrote since. A run resumed
     * after {@code --no-retire} so has the short pause window of one run. Records why when the feed cannot watch the queue.
     */
    void beginWatch(boolean atFence) {
        if (watchBegun) {
            return;
        }
        watchBegun = true;
        watch = feed.watch(source);
        watchUnproven = !atFence && watch.isPresent();
        if (watch.isEmpty()) {
            unwatchedBecause = feed.whyUnwatched(source);
        }
    }

    boolean v1Live() {
        if (v1Live == null) {
            v1LiveAsIn(journal.header());
        }
        return v1Live;
    }

    /** Whether v1 is live, as this header just read from the journal tells (no pause journaled). */
    void v1LiveAsIn(JournalHeader header) {
        v1Live = header.get(JournalHeader.V1_PAUSED_AT).isEmpty();
    }

    /** From here on v1 is paused by this migration (the last pass, V120). */
    void v1Paused() {
        v1Live = false;
    }

    /** V120 gave v1 back after a failure before the tombstone: it serves again. */
    void v1Resumed() {
        v1Live = true;
    }

    /**
     * Reads the source once, as it comes, while v1 producers and workers run: a job may be listed as it
     * was before or after a move, or be missing a moment; the passes after the pause settle every such
     * job exactly. Nothing destructive is ever checked against a live read.
     */
    void readLiveSource() {
        snapshot = null;
        sizesBeforeLiveRead = watch.isEmpty() ? Optional.of(SourceFence.sizes(sourceWire, source)) : Optional.empty();
        heldLive(reader().read(source));
    }

    /** Which jobs of the snapshot held get an id and a row. */
    Migratable.Rule rule() {
        return rule;
    }

    /** Holds a snapshot read while v1 serves, with the orphans it cannot settle ({@link #orphansWrittenWhileRead}). */
    private void heldLive(QueueSnapshot read) {
        snapshot = read;
        rule = new Migratable.Rule(options.acceptAnomalies(), orphansWrittenWhileRead(read));
        checkpoints.hit("source read");
    }

    /** Holds a snapshot read under the pause: the plan's rule, every orphan settled. */
    private void heldExact(QueueSnapshot read) {
        snapshot = read;
        rule = Migratable.Rule.of(options);
    }

    /**
     * The orphans of a read while v1 serves whose hashes (or locks, logs lists) the change feed tells written since the
     * drain before the read (since the watch began, for V10's read); every orphan when the feed tells the queue's meta
     * written meanwhile (BullMQ's resume renames {@code paused} to {@code wait}, moving every job it holds without writing
     * one, and writes meta: a read that took {@code wait} before it and {@code paused} after met them in neither), or
     * cannot tell. The read cannot tell such a hash from a job a producer added as it read (the hash met by the key scan,
     * its listing read before the add) or a client moved: minted now, among the orphans after every listed job, such a
     * job would break v1's order once the next read lists it. So it gets no id or row from this read, as an orphan without
     * {@code --accept-anomalies}: the next read lists it, or finds it an orphan again and settles it once its hash held
     * still, under the pause at the latest. None unless the anomalies are accepted (an orphan gets no row otherwise).
     */
    private Set<Bytes> orphansWrittenWhileRead(QueueSnapshot read) {
        List<JobFacts> orphans = read.jobs(V1State.UNKNOWN);
        if (orphans.isEmpty() || !options.acceptAnomalies()) {
            return Set.of();
        }
        Optional<SourceFeed.Changes> since = watch.flatMap(SourceFeed.Watch::peek).filter(c -> !c.touched(source.key(QueueStructure.META)));
        Bytes base = source.base();
        return orphans.stream().map(JobFacts::id).filter(id -> since.map(c -> c.touchedJob(base, id)).orElse(true))
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * Whether the source's sizes (its add counter and the size of each structure, one O(1) call) are those
     * taken before this run's last full read while v1 is live: nothing added since, no structure grown or
     * shrunk. Not a proof that nothing changed (an edit, or a move undone, keeps the sizes): the exact
     * pass under the pause is (V120). False when no such read was taken (a watched queue, a re-run).
     */
    boolean sizesAsBeforeLiveRead() {
        return sizesBeforeLiveRead.isPresent() && sizesBeforeLiveRead.get().equals(SourceFence.sizes(sourceWire, source));
    }

    /**
     * Reads the source as it comes while v1 is live, from the snapshot held (read after the drain before
     * {@code changes}, by V10's read after the watch began or by the last pass of this run) refreshed
     * with the keys written since ({@link QueueSnapshotReader#refreshLive}: the listings and those jobs read
     * again, no key scan). Nothing is proven here: a live read is no instant anyway, and a job written
     * after the drain is in the next pass's changes, so each job's facts are as read after the drain or
     * written since, as in a full live read; a v1 worker's move met half-way is kept as that read keeps it.
     * Empty when there is no snapshot or the refresh cannot stand for a full read: then read the source in
     * full with {@link #readLiveSource()}. Otherwise how many keys written it read again.
     */
    OptionalInt refreshLiveSource(SourceFeed.Changes changes) {
        Optional<QueueSnapshot> read = snapshot == null ? Optional.empty() : reader().refreshLive(snapshot, changes.written());
        read.ifPresent(this::heldLive);
        return read.isPresent() ? OptionalInt.of(changes.written().size()) : OptionalInt.empty();
    }

    private QueueSnapshotReader reader() {
        return new QueueSnapshotReader(sourceWire.client(), sourceKeys).withoutPayloadDigests();
    }

    /**
     * Reads the source at one instant: a {@link SourceGuard} watches it from before the read; a second
     * one starts watching after the read, then the first's empty transaction proves nothing was written
     * from before the read until after the second began, so the snapshot is the source as the second
     * found it, and the second is kept to carry that proof on to the retirement ({@link #takeGuard}).
     * When the first fails, the second is the first of the next read. A source written during every one
     * of {@link #READS} reads is refused with what moved since the first read found it moving (its
     * {@link SourceFence#sizes}, taken then: a read that holds needs none). Payloads are measured, not
     * read (the steps digest the bytes they copy). The snapshot read before is let go first, so two are
     * never held at once.
     */
    void readSource() {
        snapshot = null;
        guarded(null);
        String first = null;
        SourceGuard watching = SourceGuard.watch(guardConnections, source);
        try {
            for (int attempt = 1; ; attempt++) {
                QueueSnapshot read = reader().read(source);
                checkpoints.hit("source read");
                SourceGuard next = SourceGuard.watch(guardConnections, source);
                boolean held = watching.held();
                watching = next;
                if (held) {
                    heldExact(read);
                    guarded(watching);
                    watching = null;
                    return;
                }
                if (first == null) {
                    first = SourceFence.sizes(sourceWire, source);
                }
                if (attempt == READS) {
                    throw changedDuringEachRead(first, "reads", "v1 producers or workers are still running");
                }
                Sleep.millis(50L * attempt);
            }
        } finally {
            if (watching != null) {
                watching.close();
            }
        }
    }

    /**
     * The refusal of a source that moved during each of {@link #READS} reads, {@code first} its {@link SourceFence#sizes}
     * when the first read found it moving.
     */
    private MigrationRefused changedDuringEachRead(String first, String reads, String why) {
        return new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "the v1 queue " + source.display() + " changed during each of "
                + READS + " " + reads + " (" + SourceFence.describe(first, SourceFence.sizes(sourceWire, source)) + "): " + why
                + "; stop them, then re-run (nothing was deleted)");
    }

    /**
     * The source read exactly under the pause from the snapshot held (read after the drain before
     * {@code changes}, by the last pass of this run: one that failed gave back what it drained, {@link Resync#pass}),
     * refreshed with the keys written since
     * ({@link QueueSnapshotReader#refresh}), then a {@link SourceGuard} started, then the feed drained: when
     * the drain tells nothing written, the source held still from the drain before {@code changes} through
     * both, so the snapshot is the source as the guard found it, and the guard is kept to carry that on to
     * the retirement ({@link #takeGuard}); so it is when the drain tells only edits of jobs the snapshot lists
     * ({@link #onlyJobEdits}), which join {@code changes}: the pass reads those jobs again, as it reads those a whole
     * read under the pause finds written since its drain. Other keys written meanwhile join {@code changes} and the refresh is
     * tried again, up to {@link #READS} times, from the read it gave with only those keys (that read began after the drain
     * before them, as the snapshot held did before {@code changes}): under the pause a v1 worker still finishes the jobs it
     * holds, and a refresh that met one's move half-way (a job read in neither listing: an orphan to it) reads it again
     * where it ended. So is a refresh that gave nothing while keys were written (a job removed half-way as it read, its
     * logs list left). Empty when a refresh gives nothing with nothing written meanwhile (the
     * source holds what only a full read reports), when the snapshot held or the keys written hold what no refresh
     * carries on ({@link QueueSnapshotReader#mayRefresh}: an anomaly, a flow that moved), or when the feed broke (then
     * {@code changes} tells every key touched): read the source in full with {@link #readSource()}. Otherwise how many
     * keys written the refresh that stood read again.
     * Refuses ({@code source-changed}, v1 intact) when v1 moved during each of the {@link #READS} tries (a listing moved
     * while it read, or it gave nothing while keys were written): a client still moving jobs under the pause (removing,
     * retrying, promoting) would move one during each longer whole read too, and five of those at a million jobs keep v1
     * paused for a minute or more before the same refusal.
     */
    OptionalInt refreshSource(SourceFeed.Changes changes) {
        if (snapshot == null || watch.isEmpty()) {
            return OptionalInt.empty();
        }
        guarded(null);
        changes.absorb(new SourceFeed.Changes(editsSinceRefresh));
        editsSinceRefresh = Set.of();
        QueueSnapshotReader reader = reader();
        Set<Bytes> since = new HashSet<>(changes.written()); // the keys written since the drain before the snapshot held was read
        String first = null;
        for (int attempt = 1; attempt <= READS; attempt++) {
            if (attempt == 2) {
                first = SourceFence.sizes(sourceWire, source); // v1 moved during the first try: the refusal tells what moved since
            }
            if (!reader.mayRefresh(snapshot, since)) {
                return OptionalInt.empty(); // what only a whole read reads (an anomaly, a flow that moved): no try would stand
            }
            Optional<QueueSnapshot> read = reader.refresh(snapshot, since);
            if (read.isEmpty()) {
                checkpoints.hit("source refresh gave nothing");
                Optional<SourceFeed.Changes> meanwhile = watch.get().drain();
                if (meanwhile.isEmpty()) {
                    changes.lost();
                    return OptionalInt.empty();
                }
                changes.absorb(meanwhile.get());
                since.addAll(meanwhile.get().written());
                if (meanwhile.get().keys() == 0) {
                    return OptionalInt.empty();
                }
                continue;
            }
            checkpoints.hit("source refreshed");
            SourceGuard watching = SourceGuard.watch(guardConnections, source);
            Optional<SourceFeed.Changes> meanwhile;
            try {
                meanwhile = watch.get().drain();
            } catch (RuntimeException failed) {
                watching.close();
                throw failed;
            }
            if (meanwhile.isEmpty()) {
                watching.close();
                changes.lost();
                return OptionalInt.empty();
            }
            if (meanwhile.get().keys() == 0 || onlyJobEdits(read.get(), meanwhile.get().written())) {
                changes.absorb(meanwhile.get());
                editsSinceRefresh = Set.copyOf(meanwhile.get().written());
                heldExact(read.get());
                guarded(watching);
                checkpoints.hit("source read");
                return OptionalInt.of(since.size());
            }
            watching.close();
            changes.absorb(meanwhile.get());
            // the read began after the drain before meanwhile: the next try refreshes it with what meanwhile told, as a pass
            // while v1 is live refreshes the read of the pass before, not the snapshot held with every key told since
            heldExact(read.get());
            since = new HashSet<>(meanwhile.get().written());
        }
        throw changedDuringEachRead(first, "refreshes of what v1 wrote under the pause", "v1 workers or other clients still"
                + " move its jobs (the pause stops adds and the workers' fetches, not a client removing, retrying or promoting a job)");
    }

    /**
     * Whether these keys, written while a refresh read the source or before its guard began, are only the hashes and
     * logs lists of jobs {@code read} lists (BullMQ's updateData, updateProgress and log, which move no job) and the
     * events stream such an edit adds to. Then no key the guard watches, no listing, lock, dedup key or scheduler moved
     * meanwhile: {@code read} is the source as the guard found it but for those jobs' hashes and logs, whose digests the
     * pass reads again, and writes anew what moved.
     */
    private boolean onlyJobEdits(QueueSnapshot read, Set<Bytes> keys) {
        Bytes base = source.base();
        Bytes logs = JobSubKind.LOGS.colonSuffix();
        Set<Bytes> ids = new HashSet<>();
        for (Bytes key : keys) {
            if (key.equals(source.key(QueueStructure.EVENTS))) {
                continue;
            }
            if (!key.startsWith(base)) {
                return false;
            }
            Bytes rest = key.dropPrefix(base);
            Bytes id = rest.endsWith(logs) ? rest.dropSuffix(logs) : rest;
            if (id.startsWith(KeyClass.DedupKey.PREFIX) || id.startsWith(KeyClassifier.REPEAT)
                    || Arrays.stream(QueueStructure.values()).anyMatch(s -> s.suffix().equals(id.utf8()))) {
                return false; // a queue's own key, whatever job shares its name
            }
            ids.add(id);
        }
        return read.jobsWithIds(ids).size() == ids.size();
    }

    /**
     * Hands over the guard that has watched the source since the exact snapshot was read (the caller
     * spends or closes it); empty when no exact read holds one (a live read, or taken already).
     */
    Optional<SourceGuard> takeGuard() {
        Optional<SourceGuard> taken = Optional.ofNullable(guard);
        guard = null;
        return taken;
    }

    /** Keeps a new guard, closing the one it replaces. */
    private void guarded(SourceGuard next) {
        if (guard != null) {
            guard.close();
        }
        guard = next;
    }

    /**
     * The v2 name under which a v1 queue's branded ids are (its migration's on the target, or its name in this run); empty
     * when it has none: a queue left out of the run and never migrated, or one whose name is no valid v2 name.
     */
    Optional<String> targetName(QueueRef queue) {
        return targetNames.apply(queue);
    }

    /**
     * The journal of the queue a full v1 job key belongs to, and the id inside it; empty when no known queue owns it, or
     * its owner has no valid v2 name (so no journal).
     */
    Optional<Map.Entry<Journal, Bytes>> journalOf(Bytes fullJobKey) {
        return bases.owner(fullJobKey).flatMap(q -> {
            Bytes id = fullJobKey.dropPrefix(q.base());
            Optional<Journal> j = q.equals(source) ? Optional.of(journal)
                    : targetName(q).map(name -> otherJournals.computeIfAbsent(name, n -> new Journal(targetWire, n)));
            return j.map(journal -> Map.entry(journal, id));
        });
    }

    /**
     * Why the flow job at a full v1 key, which a job of this queue links to, has no branded id, and what to do
     * ({@link FlowLinks}): no v1 queue under the run's prefixes holds it; v1 holds no such job (a link left dangling);
     * its queue has no valid v2 name (no {@code --rename} gives it one); it is completed and names no parent (so it gets
     * no id); its queue's migration began without it (a flow producer added it since: live); or its queue is not in this run.
     */
    String whyNoBrandedId(Bytes fullJobKey) {
        Optional<QueueRef> owner = bases.owner(fullJobKey);
        if (owner.isEmpty()) {
            return FlowLinks.outsideThePrefixes();
        }
        if (!sourceWire.exists(fullJobKey.raw())) {
            return FlowLinks.dangling(fullJobKey);
        }
        if (targetName(owner.get()).isEmpty() && V2Names.unchecked(options.renames()).v2Name(owner.get()).isEmpty()) {
            return FlowLinks.withoutV2Name(owner.get());
        }
        if (FlowLinks.completedWithoutParent(sourceWire.client(), owner.get(), fullJobKey)) {
            return FlowLinks.completedWithoutId();
        }
        Optional<Journal> journal = journalOf(fullJobKey).map(Map.Entry::getKey).filter(Journal::exists);
        if (journal.isPresent() && journal.get().ids().highWaterMark() == 0) {
            return FlowLinks.givenNoIdsYet(owner.get());
        }
        if (journal.isPresent()) {
            return FlowLinks.addedSince(owner.get());
        }
        return FlowLinks.queueLeftOut(owner.get());
    }

    /**
     * The branded ids of the jobs at these full v1 keys, resolved through their queues' journals, each journal read once
     * for all its keys; a key whose job has no id is absent. The first time ids of another queue are found, the journal
     * records the link ({@link Journal#LINKED_PREFIX}) before the caller writes them.
     */
    Map<Bytes, BrandedId> brandedIdsOf(Collection<Bytes> fullJobKeys) {
        Map<Journal, Map<Bytes, Bytes>> byJournal = new LinkedHashMap<>(); // journal -> full key -> v1 id in it
        for (Bytes key : fullJobKeys) {
            journalOf(key).ifPresent(e -> byJournal.computeIfAbsent(e.getKey(), j -> new LinkedHashMap<>()).put(key, e.getValue()));
        }
        Map<Bytes, BrandedId> out = new HashMap<>();
        byJournal.forEach((j, ids) -> {
            List<Bytes> keys = List.copyOf(ids.keySet());
            List<Optional<BrandedId>> found = j.ids().lookupV1(ids.values().stream().map(Bytes::raw).toList());
            if (j != journal && found.stream().anyMatch(Optional::isPresent) && linked.add(j.queue())) {
                journal.set(Map.of(Journal.LINKED_PREFIX + j.queue(), "1")); // before any row names them
            }
            for (int i = 0; i < keys.size(); i++) {
                int at = i;
                found.get(i).ifPresent(id -> out.put(keys.get(at), id));
            }
        });
        return out;
    }

    /** Runs calls in one pipeline; the first refusal among them is thrown. */
    <T> List<ScriptReply<T>> evalAll(Wire wire, List<ScriptCall<T>> calls) {
        List<ScriptReply<T>> replies = wire.evalAll(calls);
        for (ScriptReply<T> r : replies) {
            r.get();
        }
        return replies;
    }

    /** Counts jobs a re-sync pass gave their first row (each of the v2 state its v1 state becomes): added, or held before. */
    void added(List<JobFacts> fresh) {
        fresh.forEach(j -> j.state().becomes().ifPresent(state -> added.merge(state, 1L, Long::sum)));
    }

    /**
     * Counts work no earlier try of a step did, so a step tried again after a lost connection does it only once: v1 jobs
     * whose rows and expectations the journal records for the first time ({@link JobWriter}: the copy steps and the
     * re-sync passes), flow parents whose records this run writes for the first time ({@link AbsorbFlows}), and v1 keys
     * retirement deleted ({@link RetireSource}). The {@link Migrator} counts a step's lost
     * connections in a row from the last such progress.
     */
    void progressed(long units) {
        progress.addAndGet(units);
    }

    /** The work counted by {@link #progressed} so far. */
    long progress() {
        return progress.get();
    }

    /** The jobs re-sync passes added since the last call, by v2 state; forgets them. */
    Map<V2State, Long> takeAdded() {
        Map<V2State, Long> taken = new EnumMap<>(added);
        added.clear();
        return taken;
    }
}
