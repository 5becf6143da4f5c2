package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.AnomalyKind;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.FlowLink;
import io.emq.migrate.v1.FlowParent;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobLayout;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.KeyType;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.Refusal;
import io.emq.migrate.v1.RefusalKind;
import io.emq.migrate.v1.Scheduler;
import io.emq.migrate.v1.V1State;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Turns a queue snapshot into its dry-run plan (pure: no I/O), following the migration contract's
 * mapping (§3), naming (§4) and payload (§5) rules.
 */
public final class Planner {
    /** The v1 queue-level keys that have no v2 twin (contract §3, last row). */
    /** v1 structures with no v2 twin, deleted at retirement; not {@code id}, which retirement keeps frozen beside the tombstone. */
    private static final List<QueueStructure> DROPPED = List.of(QueueStructure.EVENTS, QueueStructure.MARKER,
            QueueStructure.PC, QueueStructure.STALLED, QueueStructure.STALLED_CHECK,
            QueueStructure.LIMITER, QueueStructure.METRICS_COMPLETED_DATA, QueueStructure.METRICS_FAILED_DATA,
            QueueStructure.LEGACY_PRIORITY, QueueStructure.LEGACY_DELAY);
    private static final int REFUSAL_IDS = 100;
    /** Stands for the v2 name in the key estimate of a queue whose name is refused until renamed. */
    static final String UNNAMED = "<NEW>";

    private final PlanOptions options;
    private final V2Names names;
    private final Function<Bytes, Optional<String>> flowJobWithoutId;
    private final Function<QueueRef, Optional<String>> spreadOverSlots;

    /** A planner that takes the v2 names as the renames give them (a run whose names were checked already). */
    public Planner(PlanOptions options) {
        this(options, V2Names.unchecked(options.renames()), job -> Optional.empty(), queue -> Optional.empty());
    }

    /**
     * A planner that also refuses a v2 name another queue or the target holds ({@code name-taken}), and a queue whose
     * job links to a flow job in another queue that {@code flowJobWithoutId} (given its full v1 key) tells will have no
     * branded id in the run: a job's parent ({@code flow-parent}), a parent's finished child ({@code flow-child}), as
     * {@code migrate} would stop at it ({@link FlowLinks}); and a queue {@code spreadOverSlots} tells why its keys
     * spread over a cluster's slots ({@code cross-slot}, as {@code migrate} refuses it before any write).
     */
    public Planner(PlanOptions options, V2Names names, Function<Bytes, Optional<String>> flowJobWithoutId,
                   Function<QueueRef, Optional<String>> spreadOverSlots) {
        this.options = options;
        this.names = names;
        this.flowJobWithoutId = flowJobWithoutId;
        this.spreadOverSlots = spreadOverSlots;
    }

    public QueuePlan plan(QueueSnapshot snap) {
        Optional<String> v2Name = v2Name(snap);
        Map<V1State, V2Fate> mapping = mapping();
        long[] fateCounts = new long[V2Fate.values().length];
        long[] layoutCounts = new long[JobLayout.values().length];
        List<RebrandEntry> preview = new ArrayList<>();
        long idBase = Rebrand.idBase(v2Name.orElse(snap.queue().name().display()));
        long minted = 0;
        long kept = 0;
        Rows rows = new Rows(v2Name.orElse(UNNAMED));
        for (V1State state : V1State.RANK_ORDER) { // the jobs in rank order, a state's at a time
            for (JobFacts j : snap.jobs(state)) {
                layoutCounts[j.layout().ordinal()]++;
                V2Fate fate = fate(j, mapping);
                fateCounts[fate.ordinal()]++;
                boolean keeps = getsIdentity(j) && options.keepBrandedIds() && BrandedId.isJobId(j.id().raw());
                kept += keeps ? 1 : 0;
                minted += getsIdentity(j) && !keeps ? 1 : 0;
                if (preview.size() < options.preview()) {
                    preview.add(new RebrandEntry(j.rank(), j.id(), keeps ? j.id().utf8()
                            : getsIdentity(j) ? Rebrand.jobId(idBase, minted) : null,
                            j.state(), fate));
                }
                rows.add(j);
            }
        }
        fateCounts[V2Fate.NOTHING.ordinal()] += snap.anomalyCount(AnomalyKind.MISSING_HASH);
        Map<V2Fate, Long> fates = new EnumMap<>(V2Fate.class);
        for (V2Fate f : V2Fate.values()) {
            fates.put(f, fateCounts[f.ordinal()]);
        }
        long unnamedDedupKeys = snap.dedupKeys().stream().filter(e -> !isV2DedupId(e.dedupId())).count();
        // a dedup key whose job v1 no longer holds blocks adds with its id in v1; v2 takes them
        long danglingDedupKeys = snap.dedupKeysNamingNoJob(Planner::isV2DedupId);
        Map<JobLayout, Long> layouts = new EnumMap<>(JobLayout.class);
        for (JobLayout l : JobLayout.values()) {
            layouts.put(l, layoutCounts[l.ordinal()]);
        }
        return new QueuePlan(snap, v2Name, options.payload(), mapping, fates, refusals(snap, v2Name), preview,
                v2Keys(snap, rows, fates, unnamedDedupKeys + danglingDedupKeys),
                dropped(snap, unnamedDedupKeys, danglingDedupKeys), QueueSetting.of(snap.meta()), layouts, kept);
    }

    /** What {@code plan(snap).refusals()} holds, without the plan's pass over every job (none of them needs it). */
    public List<PlannedRefusal> refusals(QueueSnapshot snap) {
        return refusals(snap, v2Name(snap));
    }

    /** The v2 job rows a queue's jobs become (every job but completed ones), summed in the one pass over them. */
    private final class Rows {
        private final String q;
        private final String base;
        private long count;
        private long bytes;
        private long customIds;

        Rows(String q) {
            this.q = q;
            this.base = "emq:{" + q + "}:";
        }

        void add(JobFacts j) {
            if (j.state() == V1State.COMPLETED) {
                return;
            }
            count++;
            bytes += MemoryModel.jobRow(base, j, options.payload(), q);
            if (isCustomId(j.id())) {
                customIds++;
            }
        }
    }

    private Optional<String> v2Name(QueueSnapshot snap) {
        return names.v2Name(snap.queue());
    }

    private Map<V1State, V2Fate> mapping() {
        Map<V1State, V2Fate> m = new EnumMap<>(V1State.class);
        for (V1State state : V1State.values()) {
            m.put(state, state.becomes().map(V2Fate::of).orElse(V2Fate.COUNTED));
        }
        return m;
    }

    /**
     * Whether the rebrand mints an id for the job: every job that becomes a row (orphans only once
     * anomalies are accepted), and completed flow children, whose parents' {@code :processed} keys
     * need one. Ids are minted in rank order over these jobs only.
     */
    private boolean getsIdentity(JobFacts j) {
        return getsIdentity(j, options.acceptAnomalies());
    }

    /** The rule the dry run previews and the migration mints by. */
    public static boolean getsIdentity(JobFacts j, boolean acceptAnomalies) {
        return getsRow(j, acceptAnomalies) || (j.state() == V1State.COMPLETED && j.parentKey() != null);
    }

    /** Whether the job becomes a v2 row: every job but completed ones, and orphans only once anomalies are accepted. */
    public static boolean getsRow(JobFacts j, boolean acceptAnomalies) {
        return switch (j.state()) {
            case COMPLETED -> false;
            case UNKNOWN -> acceptAnomalies;
            default -> true;
        };
    }

    private V2Fate fate(JobFacts j, Map<V1State, V2Fate> mapping) {
        if (j.state() == V1State.ACTIVE && j.hasLiveLock()) {
            return V2Fate.HELD;
        }
        return mapping.get(j.state());
    }

    private List<PlannedRefusal> refusals(QueueSnapshot snap, Optional<String> v2Name) {
        List<PlannedRefusal> out = new ArrayList<>();
        long locked = 0;
        long longest = 0;
        List<Bytes> lockedIds = new ArrayList<>();
        for (JobFacts j : snap.jobs(V1State.ACTIVE)) {
            if (j.hasLiveLock()) {
                locked++;
                longest = locked == 1 ? j.lockTtlMs() : Math.max(longest, j.lockTtlMs());
                if (lockedIds.size() < REFUSAL_IDS) {
                    lockedIds.add(j.id());
                }
            }
        }
        if (locked > 0) {
            out.add(new PlannedRefusal(new Refusal(RefusalKind.LIVE_LOCK, locked
                    + " active job(s) hold a live lock (longest TTL " + (longest < 0 ? "none" : longest + " ms")
                    + "); a v1 worker may still be running them", lockedIds), options.waitForLocks()));
        }
        spreadOverSlots.apply(snap.queue()).ifPresent(reason ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.CROSS_SLOT, reason, allIds(snap)), false)));
        String v1Name = snap.queue().name().display();
        Names.queueNameProblem(v1Name).filter(problem -> names.retiredAs(snap.queue()).isEmpty() || names.rename(snap.queue()).isPresent())
                .ifPresent(problem -> {
            String rename = names.rename(snap.queue()).orElse(null);
            String reason = rename == null ? problem + "; names are never changed silently"
                    : Names.queueNameProblem(rename).map(p -> "the rename target is invalid too: " + p)
                            .orElse(problem + "; renamed to '" + rename + "'");
            out.add(new PlannedRefusal(new Refusal(RefusalKind.INVALID_QUEUE_NAME, reason, allIds(snap)), v2Name.isPresent()));
        });
        names.conflict(snap.queue()).ifPresent(reason ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.NAME_TAKEN, reason, allIds(snap)), false)));
        names.otherSource(snap.queue()).ifPresent(reason ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.OTHER_SOURCE, reason, allIds(snap)), false)));
        names.migratingElsewhere(snap.queue()).ifPresent(reason ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.MIGRATING_ELSEWHERE, reason, allIds(snap)), false)));
        flowParentsOutsideTheRun(snap).ifPresent(out::add);
        flowParentsInLanes(snap).ifPresent(out::add);
        finishedChildrenOutsideTheRun(snap).ifPresent(out::add);
        if (!snap.retired() && v2Name.isPresent() && names.retiredAs(snap.queue()).equals(v2Name)) {
            restored(snap, v2Name.get()).ifPresent(reason ->
                    out.add(new PlannedRefusal(new Refusal(RefusalKind.V1_RESTORED, reason, allIds(snap)), false)));
        }
        names.retiredByAnother(snap).ifPresent(reason ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.RETIRED, reason, allIds(snap)), false)));
        if (snap.retired() && !names.migrating(snap.queue())) {
            stranded(snap, v2Name).ifPresent(reason -> out.add(new PlannedRefusal(new Refusal(RefusalKind.STRANDED, reason, allIds(snap)), false)));
        }
        Bytes meta = snap.queue().key(QueueStructure.META);
        snap.anomalies().stream().filter(a -> a.kind() == AnomalyKind.WRONG_TYPE && a.key().equals(meta)).findFirst().ifPresent(a ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.DAMAGED_META, damagedMeta(snap.queue(), a.reason()), allIds(snap)), false)));
        UNLIFTED.forEach((kind, refusal) -> {
            List<Anomaly> found = snap.anomalies().stream().filter(a -> a.kind() == kind).toList();
            if (!found.isEmpty()) {
                out.add(new PlannedRefusal(new Refusal(refusal, found.size() + " job hash(es) of " + kind.wireName() + ": "
                        + found.get(0).key().display() + ": " + found.get(0).reason(),
                        ids(found.stream().map(a -> a.key().dropPrefix(snap.queue().base())).toList())), false));
            }
        });
        Optional.ofNullable(snap.structures().get(QueueStructure.ID)).filter(t -> t != KeyType.STRING).ifPresent(t ->
                out.add(new PlannedRefusal(new Refusal(RefusalKind.COUNTER_TAKEN, counterTaken(snap, t), allIds(snap)), false)));
        List<Bytes> cron = snap.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.PATTERN).map(Scheduler::id).toList();
        if (!cron.isEmpty()) {
            out.add(new PlannedRefusal(new Refusal(RefusalKind.CRON_SCHEDULER, cron.size()
                    + " cron (pattern) scheduler(s) have no v2 form; they are never dropped silently", ids(cron)),
                    options.dropCronSchedulers()));
        }
        List<Bytes> legacy = snap.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.LEGACY).map(Scheduler::id).toList();
        if (!legacy.isEmpty()) {
            out.add(new PlannedRefusal(new Refusal(RefusalKind.LEGACY_REPEATABLE, legacy.size()
                    + " legacy repeatable(s) (repeat members without a scheduler record) have no v2 form", ids(legacy)),
                    options.dropLegacyRepeatables()));
        }
        List<Bytes> bounded = snap.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.BOUNDED).map(Scheduler::id).toList();
        if (!bounded.isEmpty()) {
            out.add(new PlannedRefusal(new Refusal(RefusalKind.BOUNDED_SCHEDULER, bounded.size() + " every scheduler(s) with a"
                    + " limit or an end date have no v2 form (a v2 registration fires every period for good); they are never"
                    + " dropped silently", ids(bounded)), options.dropBoundedSchedulers()));
        }
        SchedulerNames.clash(snap.schedulers()).ifPresent(reason -> out.add(new PlannedRefusal(new Refusal(
                RefusalKind.SCHEDULER_NAME_CLASH, reason, List.of()), false)));
        List<Anomaly> refusing = snap.anomalies().stream().filter(Planner::refusing).toList();
        if (!refusing.isEmpty()) {
            Map<String, Long> byKind = new TreeMap<>();
            snap.anomalyCounts().forEach((kind, n) -> {
                if (refusing(kind)) {
                    byKind.put(kind.wireName(), n);
                }
            });
            List<Bytes> jobIds = refusing.stream().map(a -> a.key().startsWith(snap.queue().base())
                    ? a.key().dropPrefix(snap.queue().base()) : a.key()).distinct().toList();
            out.add(new PlannedRefusal(new Refusal(RefusalKind.ANOMALIES, "anomalies that need a decision: " + byKind,
                    ids(jobIds)), options.acceptAnomalies()));
        }
        return out;
    }

    /**
     * The refusal of the jobs (given rows) whose flow parent will have no branded id in the run: one in another queue that
     * {@code flowJobWithoutId} tells of, or one of this queue that v1 no longer holds (a link left dangling) or holds
     * completed without a parent of its own ({@link FlowLinks#completedWithoutId}).
     */
    private Optional<PlannedRefusal> flowParentsOutsideTheRun(QueueSnapshot snap) {
        List<FlowLink> links = snap.flowLinks();
        Set<Bytes> rows = rowIds(snap, links.stream().map(FlowLink::childId));
        Bytes base = snap.queue().base();
        Map<Bytes, JobFacts> parents = jobsOf(snap, links.stream().filter(l -> !l.crossQueue()).map(l -> l.parentKey().dropPrefix(base)));
        List<Bytes> unlinked = new ArrayList<>();
        String first = null;
        for (FlowLink link : links) {
            if (!rows.contains(link.childId())) {
                continue;
            }
            Optional<String> why = link.crossQueue() ? flowJobWithoutId.apply(link.parentKey())
                    : sameQueueParentWithoutId(parents.get(link.parentKey().dropPrefix(base)), link.parentKey());
            if (why.isPresent()) {
                first = first != null ? first : "the parent " + link.parentKey().display() + " of job " + link.childId().display()
                        + " will have no branded id: " + why.get();
                unlinked.add(link.childId());
            }
        }
        return first == null ? Optional.empty() : Optional.of(new PlannedRefusal(new Refusal(RefusalKind.FLOW_PARENT,
                first + (unlinked.size() > 1 ? " (" + (unlinked.size() - 1) + " more job(s) like it)" : ""), ids(unlinked)), false));
    }

    /**
     * The refusal of a queue going into lanes whose flow parents wait for their children: the reference releases a parent
     * into the flat pending set when its last child settles (v2 protocol §4.9), a row with a group too, and its lanes
     * consumer (EchoMQ.Consumer) claims only from lanes: the parent would never be served.
     */
    private Optional<PlannedRefusal> flowParentsInLanes(QueueSnapshot snap) {
        List<JobFacts> parents = snap.jobs(V1State.WAITING_CHILDREN);
        if (!options.lanes() || parents.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PlannedRefusal(new Refusal(RefusalKind.FLOW_IN_LANE, parents.size() + " flow parent(s) wait for"
                + " their children; the reference releases a parent into the flat pending set when its last child settles,"
                + " which a lanes consumer (EchoMQ.Consumer) never claims: migrate this queue without --lane and --lane-from"
                + " (flows are flat in v2, as the reference's own) and serve it with a flat consumer (Jobs.claim,"
                + " BatchConsumer), or let its flows finish in v1 first", ids(parents.stream().map(JobFacts::id).toList())), false));
    }

    /**
     * The refusal of the flow parents (given rows) a finished child of which, in another queue, will have no branded id in
     * the run: its id keys the parent's v2 {@code :processed}, {@code :failed} or {@code :unsuccessful} hash.
     */
    private Optional<PlannedRefusal> finishedChildrenOutsideTheRun(QueueSnapshot snap) {
        Set<Bytes> rows = rowIds(snap, snap.flowParents().stream().filter(p -> !p.finishedElsewhere().isEmpty()).map(FlowParent::id));
        List<Bytes> parents = new ArrayList<>();
        String first = null;
        for (FlowParent parent : snap.flowParents()) {
            if (!rows.contains(parent.id())) {
                continue;
            }
            for (Bytes child : parent.finishedElsewhere()) {
                Optional<String> why = flowJobWithoutId.apply(child);
                if (why.isPresent()) {
                    first = first != null ? first : "child " + child.display() + " of flow parent " + parent.id().display()
                            + " will have no branded id: " + why.get();
                    parents.add(parent.id());
                    break;
                }
            }
        }
        return first == null ? Optional.empty() : Optional.of(new PlannedRefusal(new Refusal(RefusalKind.FLOW_CHILD,
                first + (parents.size() > 1 ? " (" + (parents.size() - 1) + " more parent(s) like it)" : ""), ids(parents)), false));
    }

    /** Which of these ids are of jobs the snapshot holds that get a row. */
    private Set<Bytes> rowIds(QueueSnapshot snap, Stream<Bytes> ids) {
        return jobsOf(snap, ids).values().stream().filter(j -> getsRow(j, options.acceptAnomalies())).map(JobFacts::id)
                .collect(Collectors.toSet());
    }

    /** The jobs of these ids the snapshot holds, by id: one walk of its jobs for them all. */
    private static Map<Bytes, JobFacts> jobsOf(QueueSnapshot snap, Stream<Bytes> ids) {
        Set<Bytes> wanted = ids.collect(Collectors.toSet());
        return wanted.isEmpty() ? Map.of() : snap.jobsWithIds(wanted).stream().collect(Collectors.toMap(JobFacts::id, j -> j, (a, b) -> a));
    }

    /**
     * Why a parent of this queue ({@code parent}, null when the snapshot holds none; at {@code key}) will have no branded
     * id: v1 holds no job there, or holds it completed without a parent of its own. An orphan hash is refused on its own.
     */
    private Optional<String> sameQueueParentWithoutId(JobFacts parent, Bytes key) {
        if (parent == null) {
            return Optional.of(FlowLinks.dangling(key));
        }
        return parent.state() == V1State.COMPLETED && !getsIdentity(parent) ? Optional.of(FlowLinks.completedWithoutId()) : Optional.empty();
    }

    /**
     * Why a queue that holds the tombstone, and that no migration on the target is retiring still, is refused when v1
     * lists jobs there, holds job hashes or holds job schedulers: a writer that does not INCR the add counter (BullMQ's
     * adds do, and fail on the tombstone) added the jobs after the retirement, and BullMQ's upsertJobScheduler writes its
     * scheduler before its add fails there; nothing serves them. Their migration is over (a new one would mint ids the v2
     * queue may hold already), so they go into v2 by hand; empty when the queue holds neither.
     */
    public static Optional<String> stranded(QueueSnapshot snap, Optional<String> v2Name) {
        List<V1State> listed = V1State.LISTED.stream().filter(s -> snap.listedCount(s) > 0).toList();
        long orphans = snap.jobs(V1State.UNKNOWN).size();
        List<String> schedulers = snap.schedulers().stream().map(s -> s.id().display()).toList();
        boolean jobs = !listed.isEmpty() || orphans > 0;
        if (!jobs && schedulers.isEmpty()) {
            return Optional.empty();
        }
        String base = snap.queue().base().display();
        List<String> held = new ArrayList<>();
        List<String> writers = new ArrayList<>();
        List<String> what = new ArrayList<>();
        List<String> hashes = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        if (jobs) {
            held.add(snap.listedCount() + " job(s) listed (" + listed.stream().map(s -> s.wireName() + " " + snap.listedCount(s))
                    .collect(Collectors.joining(", ")) + ")" + (orphans > 0 ? " and " + orphans + " job hash(es) listed nowhere" : ""));
            writers.add("a writer that does not INCR the add counter " + snap.queue().key(QueueStructure.ID).display()
                    + " (BullMQ's adds do, and fail on the tombstone) added the jobs after the retirement");
            what.add("job");
            hashes.add("a job's hash " + base + "<id> holds its name, data and opts");
            deletes.add("DEL " + base + "<id> and the lists that name them, e.g. " + base + "wait");
        }
        if (!schedulers.isEmpty()) {
            held.add(schedulers.size() + " job scheduler(s) (" + String.join(", ", schedulers.subList(0, Math.min(5, schedulers.size())))
                    + (schedulers.size() > 5 ? ", ..." : "") + ")");
            writers.add("a v1 client's upsertJobScheduler wrote the schedulers after it (it writes one before its add fails on"
                    + " the tombstone)");
            what.add("scheduler");
            hashes.add("a scheduler's hash " + base + "repeat:<id> holds its every or pattern and its job's template");
            deletes.add("DEL " + snap.queue().key(QueueStructure.REPEAT).display() + " " + base + "repeat:<id>");
        }
        String writer = String.join("; ", writers);
        return Optional.of(String.join(" and ", held) + " under " + snap.queue().display() + ", which a migration retired"
                + " (meta.version is the tombstone): nothing serves them. " + Character.toUpperCase(writer.charAt(0))
                + writer.substring(1) + (orphans > 0 || !schedulers.isEmpty() ? ", or a retirement into another target stopped"
                + " before it deleted them (`info` there shows it `verified`: run that migration again, it deletes them)" : "")
                + ": stop that writer (point it at v2), add each " + String.join(" and ", what) + " to the v2 queue "
                + v2Name.map(n -> "emq:{" + n + "} ").orElse("") + "by hand (" + String.join("; ", hashes)
                + "), then delete them from v1 (" + String.join("; ", deletes) + "), and run this again");
    }

    /**
     * Why a v1 queue is refused that lists jobs without the tombstone while the target's journal of it under
     * {@code v2Name} says its migration retired it: the v1 server was restored from a backup taken before the migration
     * (its jobs are in v2 already: v1 workers would run them again), or a new queue of that name was made since; empty
     * when v1 lists no job there.
     */
    public static Optional<String> restored(QueueSnapshot snap, String v2Name) {
        long listed = snap.listedCount();
        if (listed == 0) {
            return Optional.empty();
        }
        return Optional.of("the journal on the target says its migration into v2 queue '" + v2Name + "' retired it, yet v1 holds"
                + " it again without the tombstone and lists " + listed + " job(s): if the v1 server was restored from a backup"
                + " taken before the migration, those jobs are in v2 already and v1 workers would run them a second time: stop"
                + " them and delete the v1 queue (BullMQ's queue.obliterate()); if a new queue of that name was made since,"
                + " migrate it into another v2 queue (" + RenameArgument.suggested(snap.queue().name().display(), "NEW") + ")");
    }

    /**
     * Why a queue whose meta is not a hash ({@code what}: {@code meta is a set, expected a hash}) cannot be migrated:
     * v1 itself fails on it, and the migration pauses v1 and stamps its tombstone there.
     */
    public static String damagedMeta(QueueRef queue, String what) {
        String meta = queue.key(QueueStructure.META).display();
        return what + " at " + meta + ": BullMQ reads meta on every call to the queue, so v1 fails on it too, and a"
                + " migration pauses v1 and stamps its tombstone there; find what wrote it, move it aside (RENAME " + meta + " "
                + meta + ".damaged), then plan again";
    }

    /**
     * Why a queue whose add counter's key holds another type than a string is refused: the migration freezes the counter
     * and stamps its tombstone there (a {@code SET}), which would overwrite what it holds, a job whose id is {@code id}
     * (BullMQ never writes one: every add INCRs the counter first).
     */
    private static String counterTaken(QueueSnapshot snap, KeyType type) {
        Bytes counter = snap.queue().key(QueueStructure.ID);
        boolean job = type == KeyType.HASH && snap.job(Bytes.utf8(QueueStructure.ID.suffix())).isPresent();
        return "the add counter " + counter.display() + " is a " + type.wireName() + (job ? ", the hash of the job whose id is 'id'" : "")
                + ": every BullMQ add INCRs it first (so v1 adds fail on the queue too), and the migration freezes it and"
                + " stamps its tombstone there, which would overwrite it; " + (job ? "give that job another id in v1 (RENAME "
                + counter.display() + " " + snap.queue().base().display() + "NEWID, and NEWID in place of 'id' where v1 lists it)"
                : "move it aside in v1 (RENAME " + counter.display() + " " + counter.display() + ".moved: an unknown-key then,"
                + " dropped with the source)") + ", then SET " + counter.display() + " to the queue's highest numeric job id (v1's"
                + " next add INCRs it: from nothing it would mint 1, a job that may exist), then plan again";
    }

    /** The anomalies that refuse a queue under a refusal of their own, which --accept-anomalies does not lift. */
    private static final Map<AnomalyKind, RefusalKind> UNLIFTED = new EnumMap<>(Map.of(
            AnomalyKind.ANOTHER_QUEUES_JOB, RefusalKind.ANOTHER_QUEUES_JOB, AnomalyKind.FLOW_KEY_JOB, RefusalKind.FLOW_KEY_JOB));

    private static boolean refusing(Anomaly a) {
        return refusing(a.kind());
    }

    private static boolean refusing(AnomalyKind kind) {
        return kind.disposition() == AnomalyKind.Disposition.REFUSE && kind != AnomalyKind.INVALID_QUEUE_NAME
                && !UNLIFTED.containsKey(kind);
    }

    private static List<Bytes> ids(List<Bytes> all) {
        return all.size() <= REFUSAL_IDS ? all : all.subList(0, REFUSAL_IDS);
    }

    private static List<Bytes> allIds(QueueSnapshot snap) {
        List<Bytes> out = new ArrayList<>();
        for (JobFacts j : snap.jobsInRankOrder()) {
            if (out.size() == REFUSAL_IDS) {
                break;
            }
            out.add(j.id());
        }
        return out;
    }

    /** The v2 keys the plan estimates; {@code unwrittenDedupKeys}: the dedup keys dropped with the source, not written. */
    private List<V2KeyEstimate> v2Keys(QueueSnapshot snap, Rows rows, Map<V2Fate, Long> fates, long unwrittenDedupKeys) {
        String q = rows.q;
        String base = rows.base;
        long customIds = rows.customIds;
        List<V2KeyEstimate> out = new ArrayList<>();
        out.add(new V2KeyEstimate(base + "job:<JOB id>", "hash", rows.count, rows.bytes));
        long pending = fates.get(V2Fate.PENDING) + fates.get(V2Fate.HELD);
        if (options.lanes() && pending > 0) { // each lane's own pending set, and the ring that lists the lanes
            zset(out, base + "g:<lane>:pending", pending);
            out.add(new V2KeyEstimate(base + "ring", "list", 1, MemoryModel.LIST_KEY));
        } else {
            zset(out, base + "pending", pending);
        }
        zset(out, base + "schedule", fates.get(V2Fate.SCHEDULED));
        zset(out, base + "dead", fates.get(V2Fate.DEAD));
        long logs = snap.subkeys().getOrDefault(JobSubKind.LOGS, 0L);
        if (logs > 0) {
            out.add(new V2KeyEstimate(base + "job:<JOB id>:logs", "list", logs, logs * MemoryModel.LIST_KEY));
        }
        long parents = snap.flowParents().size();
        if (parents > 0) {
            out.add(new V2KeyEstimate(base + "job:<JOB id>:dependencies", "string", parents, parents * MemoryModel.STRING_KEY));
            long finished = snap.flowParents().stream().mapToLong(p -> p.processed() + p.failed() + p.unsuccessful()).sum();
            if (finished > 0) {
                out.add(new V2KeyEstimate(base + "job:<JOB id>:processed|failed|unsuccessful", "hash", finished,
                        finished * MemoryModel.HASH_FIELD));
            }
        }
        long dedup = snap.dedupKeys().size() - unwrittenDedupKeys + customIds;
        if (dedup > 0) {
            out.add(new V2KeyEstimate(base + "de:<dedup id>", "string", dedup, dedup * MemoryModel.STRING_KEY));
        }
        long every = snap.schedulers().stream().filter(s -> s.kind() == Scheduler.Kind.EVERY).count();
        if (every > 0) {
            out.add(new V2KeyEstimate(base + "repeat", "zset", 1, MemoryModel.zset(every)));
            out.add(new V2KeyEstimate(base + "repeat:<name>", "hash", every, every * MemoryModel.SMALL_HASH));
        }
        out.add(new V2KeyEstimate(base + "meta", "hash", 1, MemoryModel.SMALL_HASH));
        if (fates.get(V2Fate.COUNTED) > 0) {
            out.add(new V2KeyEstimate(base + "metrics:completed", "hash", 1, MemoryModel.SMALL_HASH));
        }
        if (snap.listedCount(V1State.FAILED) > 0) {
            out.add(new V2KeyEstimate(base + "metrics:failed", "hash", 1, MemoryModel.SMALL_HASH));
        }
        long mapped = snap.jobCount();
        out.add(new V2KeyEstimate("{emq}:migration:" + q, "journal", 1, mapped * MemoryModel.JOURNAL_ENTRY + MemoryModel.SMALL_HASH));
        return out;
    }

    private static void zset(List<V2KeyEstimate> out, String key, long members) {
        if (members > 0) {
            out.add(new V2KeyEstimate(key, "zset", 1, MemoryModel.zset(members)));
        }
    }

    /**
     * Whether a v1 id is a custom one a v2 producer could still use to deduplicate: not a counter
     * value, and a valid v2 dedup id. Such an id is also written as {@code emq:{q}:de:<id>}.
     */
    public static boolean isCustomId(Bytes id) {
        return !id.isCounterValue() && isV2DedupId(id);
    }

    /**
     * Whether v1 bytes are a v2 dedup id ({@code [A-Za-z0-9._-]{1,255}}): a dedup key of another id ({@code user:42})
     * cannot be held in v2 nor named by a v2 producer, so it is dropped with the source (V70 counts it
     * {@code dedup-invalid-id}).
     */
    public static boolean isV2DedupId(Bytes id) {
        return id.isUtf8() && Names.isDedupId(id.utf8());
    }

    /**
     * The v1 keys dropped with the source, by what they are; of the dedup keys, those v2 cannot hold ({@code unnamed}) and
     * those of the rest that name no v1 job ({@code dangling}).
     */
    private static Map<String, Long> dropped(QueueSnapshot snap, long unnamed, long dangling) {
        Map<String, Long> out = new TreeMap<>();
        for (QueueStructure s : DROPPED) {
            if (snap.has(s)) {
                out.put(s.suffix(), 1L);
            }
        }
        snap.structures().forEach((s, t) -> {
            // a hash at a structure's key that v1 lists as a job is that job (a custom id such as "active"): carried
            if (t != s.type() && t != KeyType.NONE && !(t == KeyType.HASH && snap.job(Bytes.utf8(s.suffix())).isPresent())) {
                out.put(s.suffix() + " (" + t.wireName() + ", wrong type)", 1L);
            }
        });
        if (snap.legacyMarkers() > 0) {
            out.put("0: markers", snap.legacyMarkers());
        }
        if (unnamed > 0) {
            out.put("dedup keys whose id is no v2 dedup id", unnamed);
        }
        if (dangling > 0) {
            out.put("dedup keys naming no v1 job", dangling);
        }
        return out;
    }
}
