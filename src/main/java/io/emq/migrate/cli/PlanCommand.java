package io.emq.migrate.cli;

import io.emq.migrate.keyspace.Names;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.PauseWindow;
import io.emq.migrate.migrate.TargetNames;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.Anomaly;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.ParentOnFailure;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.Scheduler;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.v1.plan.FlowLinks;
import io.emq.migrate.v1.plan.PlanOptions;
import io.emq.migrate.v1.plan.PlannedRefusal;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.QueuePlan;
import io.emq.migrate.v1.plan.QueueSetting;
import io.emq.migrate.v1.plan.RebrandEntry;
import io.emq.migrate.v1.plan.SchedulerNames;
import io.emq.migrate.v1.plan.V2Fate;
import io.emq.migrate.v1.plan.V2KeyEstimate;
import io.emq.migrate.v1.plan.V2Names;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.ServerState;
import io.emq.migrate.wire.VersionFence;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * {@code emq-migrate plan --source URI [--queue Q]... [--all]}: the dry run. Per queue: jobs per
 * v1 state, what each becomes in v2, anomalies, refusals with the option that lifts each, the
 * payload policy, the first rebranded ids, the v2 keys and their estimated memory. Reads only.
 * Exit 0 when nothing blocks, 3 when a queue is refused or has anomalies, 2 on bad usage or an
 * unreachable server.
 */
final class PlanCommand implements Command {
    public void options(Options options) {
        DiscoverCommand.prefixOption(options);
        options.addOption(Cli.valued("queue", "Q", "a v1 queue to plan (repeatable)"))
                .addOption(null, "all", false, "plan every v1 queue found")
                .addOption(MigrateCommand.laneOption())
                .addOption(MigrateCommand.laneFromOption())
                .addOption(Cli.valued("html", "FILE", "also write a self-contained HTML report"))
                .addOption(Cli.valued("payload", "POLICY", "envelope (default) or data: how v1 data becomes the v2 payload"))
                .addOption(Cli.valued("rename", "OLD=NEW", "migrate v1 queue OLD (a name, or PREFIX:QUEUE) as v2 queue NEW (repeatable)"))
                .addOption(null, "keep-branded-ids", false, "keep v1 ids that are already JOB branded ids (they sort by their own mint time)")
                .addOption(Option.builder().longOpt("wait-for-locks").hasArg().optionalArg(true)
                        .argName("DURATION").desc("lift live-lock refusals: the migration waits for the locks (as migrate's"
                        + " --wait-for-locks DURATION, which may be given here too)").get())
                .addOption(null, "accept-anomalies", false, "lift anomaly refusals: apply each anomaly's stated treatment")
                .addOption(null, "drop-cron-schedulers", false, "lift cron-scheduler refusals: drop them, named in the journal")
                .addOption(null, "drop-legacy-repeatables", false, "lift legacy-repeatable refusals: drop them, named in the journal")
                .addOption(null, "drop-bounded-schedulers", false, "lift bounded-scheduler refusals: drop them, named in the journal")
                .addOption(Cli.valued("preview", "N", "how many rebranded ids to show per queue (default "
                        + PlanOptions.DEFAULT_PREVIEW + ", 0 for none)"));
    }

    public int run(Invocation in) {
        PlanOptions planOptions = planOptions(in);
        String servedBy = PlanDocument.servedBy(MigrateCommand.lane(in), MigrateCommand.laneFrom(in));
        boolean inLanes = MigrateCommand.lane(in).isPresent() || MigrateCommand.laneFrom(in).isPresent();
        List<String> named = in.values("queue");
        if (named.isEmpty() == !in.has("all")) {
            throw CliException.usage("name the queues with --queue Q (repeatable) or plan them all with --all" + (named.isEmpty() ? "" : ", not both"));
        }
        Path htmlFile = in.has("html") ? in.outputFile("html") : null;
        List<String> prefixes = DiscoverCommand.prefixes(in);
        Endpoint source = in.require(Side.SOURCE);
        UnifiedJedis jedis = in.open(source, Side.SOURCE, 8);
        Discovery.Discovered discovered = Scanning.discoverHoldingKeys(jedis, prefixes, in);
        DiscoveryResult found = discovered.result();
        List<QueueRef> chosen = new ArrayList<>();
        for (QueueRef q : found.queues()) {
            if (named.isEmpty() || named.contains(q.name().display()) || named.contains(q.display())) {
                chosen.add(q);
            }
        }
        for (String n : named) {
            if (chosen.stream().noneMatch(q -> q.name().display().equals(n) || q.display().equals(n))) {
                throw Migrator.noSuchQueue(jedis, n, prefixes);
            }
        }
        Wire v2 = in.readableTarget(in.targetOrSource()); // refuses a foreign fence, as migrate would
        if (chosen.isEmpty()) {
            throw Migrator.noQueues(jedis, prefixes);
        }
        Migrator.refuseUnknownRenames(jedis, found.queues(), planOptions.renames(), prefixes);
        List<ServerChecks> checks = ServerChecks.of(source, jedis, in.targetOrSource(), v2.client());
        checks.forEach(c -> c.note().ifPresent(note -> in.note("emq-migrate plan: " + note)));
        List<String> serverProblems = checks.stream().flatMap(c -> c.problems().stream()).toList();
        if (serverProblems.isEmpty()) { // else migrate refuses the servers first: the claim is no news yet
            in.noteClaim(v2.client(), "plan");
        }
        // the target's journals, listed as migrate lists them (a key scan of the target: a journal under a renamed queue's
        // name holds its v1 queue too); none where the target holds no {emq}:version, which every v2 write claims first
        List<String> journaled = v2.client().exists(VersionFence.KEY) ? Journals.queues(v2) : List.of();
        TargetNames.Recorded recorded = TargetNames.recorded(v2, Wire.unfenced(jedis), source.describe(), journaled);
        V2Names names = new V2Names(found.queues(), planOptions.renames(), name -> TargetNames.holder(v2, name), recorded);
        // each queue's keys as discovery's pass met them (a queue scans its own when they did not fit in memory);
        // payloads checked for the report, not hashed (it shows no digest)
        QueueSnapshotReader reader = discovered.keys().map(keys -> new QueueSnapshotReader(jedis, keys))
                .orElseGet(() -> new QueueSnapshotReader(jedis, new QueueBases(found.queues()))).withoutPayloadHashes();
        Planner planner = new Planner(planOptions, names, flowJobWithoutId(new QueueBases(found.queues()), chosen, names,
                recorded, jedis, v2), q -> Migrator.spreadOverSlots(jedis, q));
        boolean blocked = !serverProblems.isEmpty();
        List<Map<String, Object>> rendered = new ArrayList<>();
        PlanHtml html = htmlFile == null ? null : new PlanHtml(source.describe(), serverProblems);
        if (!in.json()) {
            serverProblems.forEach(problem -> in.out().println("BLOCKED: " + problem + "; migrate refuses it as it is"));
        }
        Map<Integer, Long> bySlot = new HashMap<>(); // the estimate by the cluster slot its keys hash to
        try (PauseWindow windows = PauseWindow.of(Wire.unfenced(jedis))) {
            for (QueueRef q : chosen) { // one queue's snapshot in memory at a time
                QueuePlan plan = planner.plan(reader.read(q));
                PauseWindow.Estimate window = windows.next(plan.snapshot());
                blocked |= plan.blocked();
                plan.v2Keys().forEach(k -> bySlot.merge(JedisClusterCRC16.getSlot(k.key()), k.bytes(), Long::sum));
                if (html != null) {
                    html.add(plan);
                }
                if (in.json()) {
                    rendered.add(PlanDocument.queue(plan, window, servedBy));
                } else {
                    text(plan, window, servedBy, inLanes, in.out());
                }
            }
        }
        List<String> warnings = shortOfMemory(in.targetOrSource(), checks.get(checks.size() - 1), bySlot);
        if (html != null) {
            warnings.forEach(html::warning);
        }
        if (in.json()) {
            Json.print(PlanDocument.of(source.describe(), found, rendered, serverProblems, warnings, blocked), in.out());
        } else {
            warnings.forEach(w -> in.out().println("WARNING: " + w));
            in.out().println(found.foreignKeys() + " foreign keys under the prefixes and " + found.keysOutsidePrefixes()
                    + " keys outside them: untouched. This was a dry run; nothing was written.");
        }
        if (html != null) {
            html.write(htmlFile);
            in.note("wrote " + htmlFile.toAbsolutePath());
        }
        return blocked ? ExitCodes.REFUSED : ExitCodes.OK;
    }

    /**
     * A warning for each server of the target with a maxmemory (a single server, or a cluster master) that has less room
     * left than the plan estimates the v2 keys and journals it would hold take ({@code bySlot}: the estimate by slot).
     */
    private static List<String> shortOfMemory(Endpoint target, ServerChecks checks, Map<Integer, Long> bySlot) {
        List<String> warnings = new ArrayList<>();
        for (ServerState.Memory memory : checks.memory()) {
            long estimated = bySlot.entrySet().stream().filter(e -> memory.serves(e.getKey())).mapToLong(Map.Entry::getValue).sum();
            if (estimated > memory.room()) {
                warnings.add("the target " + target.describe() + (memory.node().isEmpty() ? "" : " (its master " + memory.node() + ")")
                        + " may run short of memory: the plan estimates " + Sizes.bytes(estimated) + " for these queues' v2 keys and"
                        + " journals" + (memory.node().isEmpty() ? "" : " in its slots") + ", and it has " + Sizes.bytes(memory.room())
                        + " left below its maxmemory (" + Sizes.bytes(memory.used()) + " of " + Sizes.bytes(memory.max()) + " used); raise"
                        + " its maxmemory first, or migrate fewer queues a run (a migration that runs short stops with nothing lost:"
                        + " out-of-memory)");
            }
        }
        return warnings;
    }

    /** Whether {@code --wait-for-locks} was given, with or without migrate's DURATION (refused when it is no duration). */
    private static boolean waitsForLocks(Invocation in) {
        in.duration("wait-for-locks", Duration.ZERO);
        return in.has("wait-for-locks");
    }

    private static PlanOptions planOptions(Invocation in) {
        PayloadPolicy payload = PayloadPolicy.parse(in.value("payload", PayloadPolicy.ENVELOPE.wireName()))
                .orElseThrow(() -> CliException.usage("--payload must be envelope or data, not '" + in.value("payload", "") + "'"));
        int preview = in.number("preview", PlanOptions.DEFAULT_PREVIEW, 0, 100_000);
        boolean lanes = MigrateCommand.lane(in).isPresent() || MigrateCommand.laneFrom(in).isPresent();
        return new PlanOptions(payload, renames(in), in.has("keep-branded-ids"), lanes, waitsForLocks(in), in.has("accept-anomalies"),
                in.has("drop-cron-schedulers"), in.has("drop-legacy-repeatables"), in.has("drop-bounded-schedulers"), preview);
    }

    /**
     * Why a flow job in another queue (its full v1 key), a job's parent or a parent's finished child, will have no branded
     * id in a run of the {@code chosen} queues ({@link FlowLinks}), asked as {@code migrate} asks: none when the journal of
     * its queue's migration on the target ({@code recorded}, under whatever name) has its id already (a queue migrated
     * before: its v1 job may be retired); else no queue under the prefixes holds it; v1 holds no job there (a link left
     * dangling); its queue has no valid v2 name; it is completed and names no parent (so it gets no id); its queue is
     * neither chosen nor migrated on the target before. A few reads a key, each answer remembered.
     */
    private static Function<Bytes, Optional<String>> flowJobWithoutId(QueueBases bases, List<QueueRef> chosen, V2Names names,
                                                                    TargetNames.Recorded recorded, UnifiedJedis source, Wire target) {
        Set<QueueRef> inTheRun = new HashSet<>(chosen);
        Map<Bytes, Optional<String>> asked = new HashMap<>();
        return job -> asked.computeIfAbsent(job, key -> {
            Optional<QueueRef> owner = bases.owner(key);
            if (owner.isEmpty()) {
                return Optional.of(FlowLinks.outsideThePrefixes());
            }
            Optional<String> migratedAs = recorded.migratedAs(owner.get());
            if (migratedAs.isPresent() && new Journal(target, migratedAs.get()).ids()
                    .lookupV1(List.of(key.dropPrefix(owner.get().base()).raw())).get(0).isPresent()) {
                return Optional.empty();
            }
            if (!source.exists(key.raw())) {
                return Optional.of(FlowLinks.dangling(key));
            }
            if (migratedAs.isEmpty() && names.v2Name(owner.get()).isEmpty()) {
                return Optional.of(FlowLinks.withoutV2Name(owner.get()));
            }
            if (FlowLinks.completedWithoutParent(source, owner.get(), key)) {
                return Optional.of(FlowLinks.completedWithoutId());
            }
            return inTheRun.contains(owner.get()) || migratedAs.isPresent() ? Optional.empty()
                    : Optional.of(FlowLinks.queueLeftOut(owner.get()));
        });
    }

    /**
     * {@code --rename OLD=NEW}, repeatable; the new name is after the last {@code =} (a v2 name holds none), and must be
     * a valid v2 queue name; one OLD is renamed once.
     */
    static Map<String, String> renames(Invocation in) {
        Map<String, String> renames = new LinkedHashMap<>();
        for (String r : in.values("rename")) {
            int eq = r.lastIndexOf('=');
            if (eq < 0 || eq == r.length() - 1) { // OLD may be empty: v1 takes a queue named '' (bull::wait), v2 does not
                throw CliException.usage("--rename takes OLD=NEW, not '" + r + "'");
            }
            String old = r.substring(0, eq);
            String name = r.substring(eq + 1);
            Names.queueNameProblem(name).ifPresent(problem -> {
                throw CliException.usage("--rename " + Names.printable(r) + ": the new name is not a valid v2 name (" + problem + ")");
            });
            String before = renames.put(old, name);
            if (before != null) {
                throw CliException.usage("--rename names '" + Names.printable(old) + "' twice (=" + before + " and =" + name
                        + "): give each queue one v2 name");
            }
        }
        return renames;
    }

    /**
     * What a migration of the queue would do: {@code BLOCKED} (refused until an option or a fix lifts it),
     * {@code retired} (a migration retired it already: {@code migrate} has nothing to move), or {@code ready}.
     */
    static String verdict(QueuePlan plan) {
        return plan.blocked() ? "BLOCKED" : plan.snapshot().retired() ? "retired (meta.version is the tombstone "
                + QueueSnapshot.TOMBSTONE + "): a migration retired it already, nothing is left to migrate" : "ready";
    }

    /** What a job of {@code fate} becomes, said of the lanes' pending sets when the run serves through lanes. */
    private static String becomes(V2Fate fate, boolean inLanes) {
        return fate == V2Fate.PENDING && inLanes ? "row state=pending in its lane's pending zset (score 0, the lane on the"
                + " ring), minted in serve order" : fate.description();
    }

    /** The report of one queue: rows that hold nothing are left out, sizes and counts read as people write them. */
    private static void text(QueuePlan plan, PauseWindow.Estimate window, String servedBy, boolean inLanes, PrintStream out) {
        QueueSnapshot snap = plan.snapshot();
        out.println("== queue " + snap.queue().display() + " -> v2 "
                + plan.v2Name().map(n -> "emq:{" + n + "}").orElse("(refused name)")
                + (snap.paused() && !snap.retired() ? "  [paused]" : "") + "  " + verdict(plan));
        Table states = new Table("V1 STATE", "LISTED", "JOBS", "BECOMES");
        for (V1State s : V1State.LISTED) {
            if (snap.listedCount(s) > 0 || !snap.jobs(s).isEmpty()) {
                states.row(s.wireName(), Sizes.count(snap.listedCount(s)), Sizes.count(snap.jobs(s).size()),
                        becomes(plan.mapping().get(s), inLanes));
            }
        }
        if (!snap.jobs(V1State.UNKNOWN).isEmpty()) {
            states.row("unknown (orphans)", 0, Sizes.count(snap.jobs(V1State.UNKNOWN).size()),
                    plan.mapping().get(V1State.UNKNOWN).description());
        }
        if (states.isEmpty()) {
            out.println("no jobs in any v1 state");
        } else {
            states.print(out);
        }
        Map<String, Long> fates = new LinkedHashMap<>();
        for (V2Fate f : V2Fate.values()) {
            if (plan.fates().getOrDefault(f, 0L) > 0) {
                fates.put(f.wireName(), plan.fates().get(f));
            }
        }
        out.println("v2: " + Table.counts(fates));
        out.println("payload policy: " + plan.payload().wireName() + " (" + plan.payload().description() + ")");
        out.println("served by: " + servedBy);
        long parentsWait = snap.flowLinks().stream().filter(l -> l.onFailure() == ParentOnFailure.WAIT).count();
        if (parentsWait > 0) {
            out.println("flow children: " + Sizes.count(parentsWait) + " carry no failure option (failParentOnFailure and the"
                    + " like): in v1 a child of them that fails leaves its parent waiting for ever; in v2 (parent_policy fp)"
                    + " it fails the parent");
        }
        Map<String, Long> layouts = new LinkedHashMap<>(PlanDocument.layouts(plan));
        layouts.values().removeIf(n -> n == 0);
        out.println("job layouts: " + Table.counts(layouts) + (snap.legacyMarkers() > 0
                ? "; " + snap.legacyMarkers() + " BullMQ 4.x 0: marker(s) in the lists, not jobs" : ""));
        if (!plan.settings().isEmpty()) {
            Table t = new Table("V1 META", "VALUE", "IN V2");
            for (QueueSetting setting : plan.settings()) {
                t.row(setting.field(), setting.v1Value(), setting.inV2());
            }
            t.print(out);
        }
        if (!plan.anomalies().isEmpty()) {
            Table t = new Table("ANOMALY", "KEY", "REASON", "TREATMENT");
            for (Anomaly a : plan.anomalies()) {
                t.row(a.kind().wireName(), a.key().display(), a.reason(), plan.treatment(a.kind()));
            }
            snap.anomalyCounts().forEach((kind, n) -> {
                long listed = snap.anomalies(kind).size();
                if (n > listed) {
                    t.row(kind.wireName(), "(" + Sizes.count(n - listed) + " more)", "not listed: " + Sizes.count(n)
                            + " in all", plan.treatment(kind));
                }
            });
            t.print(out);
        }
        if (!snap.schedulers().isEmpty()) {
            Table t = new Table("V1 SCHEDULER", "KIND", "EVERY", "V2 NAME (repeat:<name>)");
            for (Scheduler s : snap.schedulers()) {
                boolean every = s.kind() == Scheduler.Kind.EVERY;
                t.row(s.id().display(), s.kind().wireName(), s.everyMs() >= 0 ? s.everyMs() + " ms" : "-",
                        every ? SchedulerNames.v2Name(s.id()) : "none: no v2 form (refused, or dropped when its option is given)");
            }
            t.print(out);
        }
        if (!plan.refusals().isEmpty()) {
            Table t = new Table("REFUSAL", "JOBS", "LIFTED BY", "REASON");
            for (PlannedRefusal r : plan.refusals()) {
                t.row(r.refusal().kind().wireName(), Sizes.count(r.refusal().jobs().size()),
                        r.refusal().kind().option() + (r.lifted() ? " (given)" : ""), r.refusal().reason());
            }
            t.print(out);
        }
        if (!plan.preview().isEmpty()) {
            out.println("rebrand preview: the first " + Sizes.count(plan.preview().size()) + " of "
                    + Sizes.count(snap.jobCount()) + " jobs in serve order");
            Table t = new Table("RANK", "V1 ID", "V2 ID", "V1 STATE", "BECOMES");
            for (RebrandEntry e : plan.preview()) {
                t.row(e.rank(), e.v1Id().display(), e.v2Id(), e.v1State().wireName(), e.fate().wireName());
            }
            t.print(out);
        }
        if (plan.keptIds() > 0) {
            out.println("kept ids: " + Sizes.count(plan.keptIds()) + " v1 ids are JOB branded ids and keep themselves"
                    + " (--keep-branded-ids): v2 serves them by their own mint time among the minted ids, not at their place in"
                    + " v1's serve order, and the migration does not check that order");
        }
        Table keys = new Table("V2 KEY", "TYPE", "COUNT", "EST. SIZE");
        for (V2KeyEstimate k : plan.v2Keys()) {
            if (k.count() > 0) {
                keys.row(k.key(), k.type(), Sizes.count(k.count()), Sizes.bytes(k.bytes()));
            }
        }
        if (!keys.isEmpty()) {
            keys.print(out);
        }
        out.println("estimated v2 memory: " + Sizes.bytes(plan.estimatedBytes()) + "; dropped with the source: "
                + Table.counts(plan.dropped()));
        out.println("estimated v1 pause window: " + window.ms() + " ms (v1 serves through the copy; it is paused from the last"
                + " re-sync pass until the v2 queue serves" + window.withoutFeed().map(why -> "; without the change feed (" + why
                + "), that pass reads every job again").orElse("") + window.readInFull().map(why -> "; " + why
                + ", which the change feed does not carry from one read to the next, so that pass reads every job again").orElse("") + ")");
        out.println();
    }
}
