package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.runtime.Backoff;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.DiscoveryResult;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.SharedScan;
import io.emq.migrate.v1.WorkPermits;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.v1.plan.RenameArgument;
import io.emq.migrate.v1.plan.V2Names;
import io.emq.migrate.wire.DaemonThreads;
import io.emq.migrate.wire.DedicatedConnections;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import io.emq.migrate.wire.VersionFence;
import io.emq.migrate.wire.Wire;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Runs the pending steps of each selected queue, Flyway-style, in step-major order (every queue's
 * V10, then every queue's V20, …) so that flows across queues find their partners' ids; with
 * {@link #parallel(int) parallel} N, each step runs on N queues at once, and the next step starts
 * when every queue is done with this one; a queue waiting for a shared key scan ({@link SharedScan})
 * steps aside for another, so up to {@link #IN_FLIGHT} queues of a step can meet in one scan. Each
 * queue holds its journal's lease for the whole run; the leases are renewed together, a thousand in one call.
 * A refusal stops that queue before anything is destroyed and is not recorded as a failure; an
 * error is recorded as a failed step that {@code repair} clears; a dropped connection retries the
 * (idempotent) step after a wait that grows with each loss in a row ({@link #RECONNECT_WAITS}), and if the server
 * stays away for about a minute the run ends unrecorded, so a plain re-run resumes it.
 */
public final class Migrator {
    static final int CONNECTION_RETRIES = 10;
    /**
     * The wait before a step that lost its connection is tried again, by the losses in a row so far: 0.25 s, doubling up
     * to 16 s, so the {@link #CONNECTION_RETRIES} tries of a row ride out a server away (a restart, a failover) for about
     * a minute (64 s of waits).
     */
    static final Backoff RECONNECT_WAITS = Backoff.exponential(Duration.ofMillis(250), Duration.ofSeconds(16));
    /** The most queues of a step in flight at once: N at work, the others waiting for a shared key scan. */
    static final int IN_FLIGHT = 1024;
    /** The most queues one script call (lease renewals, history rows) or one pipeline (name lookups) is about. */
    static final int PER_PIPELINE = 1000;

    /** Told about each step as it runs, for progress on a terminal; with {@link #parallel(int)} above 1, from several threads. */
    public interface Listener {
        void stepStarted(String queue, StepDefinition step);

        /** {@code jobs}: those the step moved into v2 (a copy step's, or those a re-sync pass added). */
        void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis);

        Listener NONE = new Listener() {
            public void stepStarted(String queue, StepDefinition step) {
            }

            public void stepFinished(String queue, StepDefinition step, Map<String, Long> counts, long jobs, long millis) {
            }
        };
    }

    private final Wire source;
    private final Wire target;
    private final String sourceName;
    private final MigrationOptions options;
    private final Checkpoints checkpoints;
    private final StepCatalog catalog = StepCatalog.load();
    private final String owner = owner();
    /** The runs that took their journal's lease, for {@link #releaseLeases} (read from another thread). */
    private final List<Run> leasedRuns = new CopyOnWriteArrayList<>();
    /**
     * The work of every run ({@link #progressOfAll}) when a step last lost its connection {@link #CONNECTION_RETRIES} times
     * in a row, -1 while none did in this migration: a step of another run that loses its connection before any run
     * progressed since is not tried again, so a migration of many queues whose server stays away ends after one row of
     * tries (about a minute), not one row a queue.
     */
    private volatile long rowSpentAt = -1;
    private Listener listener = Listener.NONE;
    private int parallel = 1;
    private Backoff reconnectWaits = RECONNECT_WAITS;
    /** Whether the servers answer, while {@link #migrate} runs (read from the progress's thread). */
    private volatile List<ServerWatch> watches = List.of();
    /** The error replies the watched servers sent as {@link #migrate} began: which one refused a step ({@link #refuser}). */
    private ErrorReplies errorsAtStart;

    public Migrator(Wire source, Wire target, String sourceName, MigrationOptions options, Checkpoints checkpoints) {
        this.source = source;
        this.target = target;
        this.sourceName = sourceName;
        this.options = options;
        this.checkpoints = checkpoints;
    }

    /** The connections to each server a run of {@code parallel} queues at once uses: each queue's reads and writes, and the lease heartbeat. */
    public static int connections(int parallel) {
        return Math.max(8, 2 * parallel + 2);
    }

    public Migrator listener(Listener listener) {
        this.listener = listener;
        return this;
    }

    /** Runs each step on up to {@code queues} queues at once (1, the default: one queue after another). */
    public Migrator parallel(int queues) {
        if (queues < 1) {
            throw new IllegalArgumentException("parallel must be at least 1, not " + queues);
        }
        this.parallel = queues;
        return this;
    }

    /** The waits before each try again of a step that lost its connection ({@link #RECONNECT_WAITS} unless set; tests shorten them). */
    Migrator reconnectWaits(Backoff waits) {
        this.reconnectWaits = waits;
        return this;
    }

    /** Migrates the named v1 queues (all discovered ones when {@code names} is empty): {@link #select}, then {@link #migrate(Selection)}. */
    public List<MigrationResult> migrate(List<String> prefixes, List<String> names) {
        return migrate(select(prefixes, names, scanned -> { }));
    }

    /** The v1 queues a run is about, and every queue discovery found under the prefixes (flows and names are judged among them). */
    public record Selection(DiscoveryResult found, List<QueueRef> queues) {
    }

    /**
     * Finds the named v1 queues under the prefixes (every one found when {@code names} is empty), reading the source only,
     * and refuses the run as a whole before anything is written: no queue under the prefixes, a name found under none of
     * them or under several, a {@code --rename} whose OLD names no queue. So a caller can say what the run is about before
     * it writes (migrate's confirmation). {@code scanned} is told the keys of each page of the discovery's walk.
     */
    public Selection select(List<String> prefixes, List<String> names, LongConsumer scanned) {
        DiscoveryResult found = new Discovery(source.client()).discover(prefixes, scanned);
        if (names.isEmpty() && found.queues().isEmpty()) {
            throw noQueues(source.client(), prefixes);
        }
        List<QueueRef> selected = select(found.queues(), names, name -> noSuchQueue(source.client(), name, prefixes));
        refuseUnknownRenames(source.client(), found.queues(), options.renames(), prefixes);
        return new Selection(found, selected);
    }

    /** Migrates the queues selected ({@link #select}), its servers watched meanwhile ({@link #waitingFor}). */
    public List<MigrationResult> migrate(Selection selection) {
        rowSpentAt = -1;
        watches = source.client() == target.client() ? List.of(new ServerWatch("the source and target", source.client()))
                : List.of(new ServerWatch("the source", source.client()), new ServerWatch("the target", target.client()));
        errorsAtStart = ErrorReplies.counted(source.client() == target.client() ? List.of(source.client())
                : List.of(source.client(), target.client()));
        try {
            return run(selection.found(), selection.queues());
        } finally {
            watches.forEach(ServerWatch::close);
            watches = List.of();
        }
    }

    /**
     * The server this run waits on now, when one has not answered {@code PING} for a few seconds ({@link ServerWatch}):
     * {@code the target 127.0.0.1:6379, which has not answered for 15 s}.
     */
    public Optional<String> waitingFor() {
        return silence().map(ServerWatch.Silence::toString);
    }

    /**
     * The server that refused a step with {@code said} ({@link ServerRefusal}), when one server's count of such replies grew
     * during the run ({@link ErrorReplies}): the source as the operator named it ({@code the source redis://10.0.0.5:6379}),
     * the target by its address.
     */
    private Optional<ServerRefusal.Refuser> refuser(String said) {
        boolean apart = source.client() != target.client();
        return errorsAtStart.grew(said).map(i -> i > 0 ? new ServerRefusal.Refuser(watches.get(i).name(), false)
                : new ServerRefusal.Refuser((apart ? "the source " : "the source and target ") + sourceName, apart));
    }

    private Optional<ServerWatch.Silence> silence() {
        return watches.stream().map(ServerWatch::silence).flatMap(Optional::stream)
                .max(Comparator.comparing(ServerWatch.Silence::silentFor));
    }

    /** Each watched server's count of its connections, pooled or dedicated, that broke so far ({@link ServerWatch#breaks}). */
    private List<long[]> breaks() {
        return watches.stream().map(ServerWatch::breaks).toList();
    }

    /**
     * The server ({@code the target 127.0.0.1:6379}) whose connections broke since {@code before} ({@link #breaks}),
     * when only one server's did: the one that closed the connection a try lost, as the loss itself does not tell.
     */
    private Optional<String> brokeSince(List<long[]> before) {
        List<String> broke = IntStream.range(0, before.size()).boxed()
                .flatMap(i -> watches.get(i).brokeSince(before.get(i)).stream()).toList();
        return broke.size() == 1 ? Optional.of(broke.get(0)) : Optional.empty();
    }

    private List<MigrationResult> run(DiscoveryResult found, List<QueueRef> selected) {
        QueueBases bases = new QueueBases(found.queues());
        Map<String, Optional<V2Names.Holder>> holders = TargetNames.holders(target,
                selected.stream().map(this::targetName).flatMap(Optional::stream).toList());
        SourceServer sourceServer = SourceServer.of(source, sourceName);
        // every journal on the target, listed once (a key scan of the target): the id bases they hold, and whether a
        // migration under another name holds a queue of this run
        List<String> journaled = Journals.queues(target);
        TargetNames.Recorded recorded = TargetNames.recorded(target, sourceServer, journaled);
        V2Names v2Names = new V2Names(found.queues(), options.renames(),
                name -> holders.containsKey(name) ? holders.get(name) : TargetNames.holder(target, name), recorded);
        Map<QueueRef, MigrationResult> ended = new ConcurrentHashMap<>(); // the queues whose run ends before it begins
        Map<QueueRef, String> named = new LinkedHashMap<>(); // the others, with their v2 names
        for (QueueRef q : selected) {
            Optional<String> spread = spreadOverSlots(source.client(), q);
            if (spread.isPresent()) {
                ended.put(q, MigrationResult.notRun(q.display(), targetName(q).orElse(""), MigrationResult.Outcome.REFUSED,
                        Optional.of(MigrationRefused.Kind.CROSS_SLOT), spread.get() + "; nothing was written"));
                continue;
            }
            Optional<String> targetName = v2Names.v2Name(q);
            if (targetName.isEmpty()) {
                ended.put(q, MigrationResult.notRun(q.display(), "", MigrationResult.Outcome.REFUSED,
                        Optional.of(MigrationRefused.Kind.INVALID_QUEUE_NAME),
                        "queue name '" + q.name().display() + "' is not a valid v2 name ("
                                + Names.queueNameProblem(q.name().display()).orElse("invalid")
                                + "): pass " + RenameArgument.suggested(q.name().display(), "NEW")));
                continue;
            }
            Optional<String> taken = v2Names.conflict(q);
            Optional<String> elsewhere = v2Names.migratingElsewhere(q);
            if (taken.isPresent() || elsewhere.isPresent()) {
                ended.put(q, MigrationResult.notRun(q.display(), targetName.get(), MigrationResult.Outcome.REFUSED,
                        Optional.of(taken.isPresent() ? MigrationRefused.Kind.NAME_TAKEN : MigrationRefused.Kind.MIGRATING_ELSEWHERE),
                        taken.or(() -> elsewhere).get() + "; nothing was written"));
                continue;
            }
            named.put(q, targetName.get());
        }
        Map<QueueRef, Run> runs = new LinkedHashMap<>();
        IdBases idBases = new IdBases(target, journaled);
        WorkPermits working = new WorkPermits(parallel);
        SharedScan<QueueRef> sourceKeys = SharedScan.v1(source.client(), bases).stepAsideWith(working);
        SharedScan<String> targetKeys = SharedScan.v2(target.client(), target.client() instanceof RedisClusterClient)
                .stepAsideWith(working);
        SourceFeed feed = new SourceFeed(source);
        // as many idle as queues in flight: each may hold a guard at once (one while its read waits for a key scan)
        DedicatedConnections guardConnections = new DedicatedConnections(source.client(), IN_FLIGHT);
        Function<QueueRef, Optional<String>> linked = linked(selected, recorded); // built once, shared by every queue
        ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("emq-migrate-lease"));
        ThreadPoolExecutor workers = (ThreadPoolExecutor) Executors.newFixedThreadPool(Math.max(parallel, Math.min(named.size(), IN_FLIGHT)),
                DaemonThreads.named("emq-migrate-queue"));
        try {
            // the queues a migration retired already, read at once whatever --parallel is: their key scans are shared
            RetiredQueues retired = new RetiredQueues(recorded);
            QueueSnapshotReader reader = new QueueSnapshotReader(source.client(), sourceKeys).withoutPayloadHashes();
            allAtOnce(workers, working, retired.toRead(source, named),
                    q -> retired.ended(reader.read(q), named.get(q)).ifPresent(end -> ended.put(q, end)));
            named.forEach((q, v2Name) -> {
                if (!ended.containsKey(q)) {
                    runs.put(q, new Run(new QueueMigration(q, v2Name, source, target, options, bases, checkpoints,
                            linked, sourceServer, idBases, sourceKeys, targetKeys, feed, guardConnections)));
                }
            });
            eachAtOnce(workers, working, runs.values(), Run::begin);
            long period = options.lease().toMillis() / 3;
            heartbeat.scheduleAtFixedRate(() -> renew(runs.values()), period, period, TimeUnit.MILLISECONDS);
            for (StepDefinition step : catalog.steps()) {
                if (step.destroys() && !options.retire()) {
                    continue;
                }
                eachAtOnce(workers, working, runs.values(), run -> run.apply(step));
                recordHistory(runs.values(), step);
            }
            eachAtOnce(workers, working, runs.values(), Run::finish);
        } finally {
            heartbeat.shutdownNow();
            workers.shutdownNow();
            feed.close();
            guardConnections.close();
        }
        List<MigrationResult> results = new ArrayList<>();
        selected.stream().filter(ended::containsKey).map(ended::get).forEach(results::add);
        runs.values().forEach(run -> results.add(run.result));
        return results;
    }

    /**
     * Releases the lease of every run that took one and has not released it (when the operator stops the migration), so a
     * run of the same command goes on at once instead of after the lease lapses. As safe as a lapse: the steps of this
     * process still under way write with a token no longer current, and are refused. False when a lease could not be
     * released (the target unreachable): it lapses then.
     */
    public boolean releaseLeases() {
        boolean all = true;
        for (Run run : leasedRuns) {
            try {
                run.m.journal.lease().release();
            } catch (EmqWireException.Lock releasedOrTaken) {
                // released already (the run finished), or another migrator took it after it lapsed: none is this run's
            } catch (RuntimeException unreachable) {
                all = false;
            }
        }
        return all;
    }

    /**
     * Renews the leases of the active runs, {@link #PER_PIPELINE} in one call ({@link ManyJournals}); a
     * lease found lost is left to the run's next fenced journal write, which is refused and ends that run.
     */
    private void renew(Collection<Run> all) {
        List<Journal> journals = all.stream().filter(Run::active).map(run -> run.m.journal).toList();
        List<ScriptCall<List<ScriptReply<Long>>>> renewals = new ArrayList<>();
        Migratable.inBatches(journals, PER_PIPELINE, some -> renewals.add(ManyJournals.renewal(some, options.lease().toMillis())));
        try {
            target.evalAll(renewals);
        } catch (RuntimeException unreachable) {
            // as a lost lease: the runs' next fenced writes tell
        }
    }

    /**
     * Writes the history row of the step just run for every queue that applied it, {@link #PER_PIPELINE}
     * queues in one call ({@link ManyJournals}), each fenced by its queue's lease (a row whose lease another
     * migrator took is refused, and not tried again). Until then the step counts as not applied: a crash
     * before this runs it again (steps are idempotent), as a crash between a step's work and its row always
     * did. A lost connection (a target restarted, or silent past the read timeout) has the call made again
     * as a step's work is ({@link #riddenOut}: the same waits, the same limit), and a connection the target
     * closed (a drop as the step ended) at once too ({@link #againOnClosed}): a row written twice is the
     * same field set to the same row.
     */
    private void recordHistory(Collection<Run> all, StepDefinition step) {
        List<Run> done = all.stream().filter(run -> run.unrecorded != null).toList();
        Migratable.inBatches(done, PER_PIPELINE, some -> {
            Tries tries = new Tries();
            try {
                List<ScriptReply<Long>> replies = riddenOut(tries, () -> 0, () -> { }, () -> againOnClosed(() -> target.eval(
                        ManyJournals.historyRows(some.stream().map(run -> run.m.journal).toList(),
                                some.stream().map(run -> run.unrecorded).toList()))));
                for (int i = 0; i < some.size(); i++) {
                    some.get(i).recorded(step, replies.get(i).error(), tries);
                }
            } catch (RuntimeException unreachable) {
                some.forEach(run -> run.recorded(step, unreachable, tries));
            }
        });
    }

    /**
     * A row of tries of work that may lose its connection ({@link #riddenOut}): the servers' broken connections as its
     * latest try began ({@link #breaks}: which server closed the one it lost), and when its latest row of lost
     * connections began ({@link System#nanoTime}, its first loss).
     */
    private static final class Tries {
        List<long[]> breaksAtTry = List.of();
        long lossesSince;
        /** Whether its last loss ended it at once, another row of tries having run out with no run progressed since ({@link #rowSpentAt}). */
        boolean afterAnotherRow;
    }

    /**
     * {@code work}, done again (it is idempotent) after a lost connection, each time after a longer wait
     * ({@link #reconnectWaits}), until it ends or loses its connection {@link #CONNECTION_RETRIES} times in a row (that
     * loss is thrown): a loss after the work made {@code progress} since the one before starts the count, and the
     * waits, again. {@code afterLoss} runs after each loss tried again, before its wait. An interrupt ends a wait at once
     * ({@link Sleep#millis}). A loss when another row of tries ran out and no run progressed since ({@link #rowSpentAt})
     * ends it at once: the server was waited for already. Each try after a loss goes to the master that serves each slot
     * then ({@link Wire#renewSlotMap}). A step's work ({@link Run#withRetries}) and its history row ({@link #recordHistory})
     * ride out a server away alike.
     */
    private <T> T riddenOut(Tries tries, LongSupplier progress, Runnable afterLoss, Supplier<T> work) {
        long progressAtLoss = progress.getAsLong();
        tries.afterAnotherRow = false;
        for (int inARow = 0; ; ) {
            tries.breaksAtTry = breaks();
            try {
                return work.get();
            } catch (JedisConnectionException dropped) {
                inARow = progress.getAsLong() > progressAtLoss ? 1 : inARow + 1;
                progressAtLoss = progress.getAsLong();
                if (inARow == 1) {
                    tries.lossesSince = System.nanoTime();
                }
                if (inARow >= CONNECTION_RETRIES) {
                    rowSpentAt = progressOfAll();
                    throw dropped;
                }
                if (rowSpentAt == progressOfAll()) {
                    tries.afterAnotherRow = true;
                    throw dropped;
                }
                afterLoss.run();
                Sleep.millis(reconnectWaits.delay(inARow).toMillis());
                source.renewSlotMap(); // a cluster master that died and was replaced: the next try goes to the new one
                target.renewSlotMap();
            }
        }
    }

    /**
     * How a row of {@code tries} that ran out ({@link #riddenOut}) reads: {@code lost its connection 10 times in a row
     * over 66 s}; {@code between}, what it says of the tries ({@code , without progress between}), then {@code (it waited
     * 64 s in all between its tries, longer each time)}.
     */
    private String ranOut(Tries tries, String between) {
        if (tries.afterAnotherRow) {
            return "lost its connection and was not tried again (another queue's step lost its connection " + CONNECTION_RETRIES
                    + " times in a row before it, and no queue progressed since)";
        }
        Duration waits = IntStream.range(1, CONNECTION_RETRIES).mapToObj(reconnectWaits::delay).reduce(Duration.ZERO, Duration::plus);
        return "lost its connection " + CONNECTION_RETRIES + " times in a row over " + Duration.ofNanos(System.nanoTime()
                - tries.lossesSince).toSeconds() + " s" + between + " (it waited " + waits.toSeconds() + " s in all between its"
                + " tries, longer each time)";
    }

    /** The target's watch (the one server's, when the source is the target), for what goes to the target alone. */
    private ServerWatch targetWatch() {
        return watches.get(watches.size() - 1);
    }

    /**
     * {@code call}, made again while the target closed the connection it went on: a drop (CLIENT KILL, a restart of a
     * proxy) closes every idle connection of the pool, so at most as many times as the pool holds connections; its last
     * failure thrown (a target away or silent is not waited for).
     */
    private <T> T againOnClosed(Supplier<T> call) {
        for (int tries = 0; ; tries++) {
            try {
                return call.get();
            } catch (JedisConnectionException lost) {
                if (!ConnectionLoss.closed(lost) || tries == connections(parallel)) {
                    throw lost;
                }
            }
        }
    }

    /**
     * Does {@code work} for every run, each holding one of the {@link #parallel} permits while it works: one run after
     * another when that is 1, else {@link #allAtOnce}.
     */
    private void eachAtOnce(ThreadPoolExecutor workers, WorkPermits working, Collection<Run> all, Consumer<Run> work) {
        if (parallel == 1) {
            all.forEach(each -> permitted(working, working::enter, work, each));
            return;
        }
        allAtOnce(workers, working, all, work);
    }

    /**
     * Does {@code work} for each of {@code all} on a thread of {@code workers}, each holding a permit of {@code working}
     * while it works (one waiting for a shared key scan gives it back), and returns when all are done; the first
     * exception one threw (an injected crash, a bug) is rethrown once every one has stopped. Those a thread takes at once
     * (as many as the pool holds; the others wait for one to finish) are expected by the permits from the start, so a
     * shared key scan's round waits for each of them to ask, however late its thread starts.
     */
    private static <T> void allAtOnce(ThreadPoolExecutor workers, WorkPermits working, Collection<T> all, Consumer<T> work) {
        int atOnce = Math.min(all.size(), workers.getMaximumPoolSize());
        working.expect(atOnce);
        List<Future<?>> done = new ArrayList<>(all.size());
        for (T each : all) {
            Runnable enter = done.size() < atOnce ? working::enterExpected : working::enter;
            done.add(workers.submit(() -> permitted(working, enter, work, each)));
        }
        RuntimeException first = null;
        for (Future<?> f : done) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while queues were migrating", e);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Does {@code work} for {@code each} holding a permit of {@code working}, taken by {@code enter}. */
    private static <T> void permitted(WorkPermits working, Runnable enter, Consumer<T> work, T each) {
        enter.run();
        try {
            work.accept(each);
        } finally {
            working.leave();
        }
    }

    /** The work every run did so far ({@link QueueMigration#progress}): it grows whenever one progresses. */
    private long progressOfAll() {
        return leasedRuns.stream().mapToLong(run -> run.m.progress()).sum();
    }

    /** How a run's messages name a step: {@code step V30 (absorb pending)}. */
    private static String named(StepDefinition step) {
        return "step V" + step.version() + " (" + step.description() + ")";
    }

    private Optional<String> targetName(QueueRef q) {
        return V2Names.unchecked(options.renames()).v2Name(q);
    }

    /**
     * The v2 name of a queue a flow job links to, where its branded ids are: the name its migration on the target from
     * this source records (an earlier run's {@code --rename} too), else, for a queue of this run, its name in the run;
     * none for another (a journal under its name may be another source server's queue of that name).
     */
    private Function<QueueRef, Optional<String>> linked(List<QueueRef> selected, TargetNames.Recorded recorded) {
        Set<QueueRef> inTheRun = new HashSet<>(selected);
        return q -> recorded.migratedAs(q).or(() -> inTheRun.contains(q) ? targetName(q) : Optional.empty());
    }

    /** The jobs moved into v2 states in {@code moved} (its other counts are other records: child links, receipts...). */
    private static long jobs(Map<String, Long> moved) {
        return V2State.MIGRATED.stream().mapToLong(s -> moved.getOrDefault(s.wireName(), 0L)).sum();
    }

    /**
     * Why a queue of a cluster source cannot be migrated (nor served by BullMQ) when its keys spread over the slots:
     * neither its prefix nor its name holds a hash tag, so no script reads or fences it at once; empty on a single
     * server, or when its keys share a slot. {@code plan} says it as {@code migrate} refuses it ({@code cross-slot}).
     */
    public static Optional<String> spreadOverSlots(UnifiedJedis source, QueueRef q) {
        if (!(source instanceof RedisClusterClient) || Slots.pins(q.base().raw())) {
            return Optional.empty();
        }
        return Optional.of("the v1 keys of " + q.display() + " spread over the cluster's slots (neither its prefix nor its name"
                + " holds a hash tag), where no script can read or pause the queue at once, and BullMQ cannot serve it: BullMQ on"
                + " a cluster needs a prefix with a hash tag, such as {" + q.prefix().display() + "} (keys {" + q.prefix().display()
                + "}:" + q.name().display() + ":…); give the prefix your v1 app uses (--prefix '{" + q.prefix().display() + "}'),"
                + " or migrate these keys from a standalone server");
    }

    /** The refusal of a queue {@code name} (a name, or PREFIX:QUEUE) found under none of the {@code prefixes} ({@link #elsewhere}). */
    public static MigrationRefused noSuchQueue(UnifiedJedis source, String name, List<String> prefixes) {
        return new MigrationRefused(MigrationRefused.Kind.NO_SUCH_QUEUE, "no v1 queue named '" + name + "' "
                + underPrefixes(prefixes) + elsewhere(source, name, prefixes));
    }

    /**
     * Refuses the first {@code --rename OLD=NEW} whose OLD names none of the v1 {@code queues} found under the
     * {@code prefixes} ({@link #elsewhere}), as migrate and plan refuse it.
     */
    public static void refuseUnknownRenames(UnifiedJedis source, List<QueueRef> queues, Map<String, String> renames, List<String> prefixes) {
        V2Names.unknownRenames(queues, renames).stream().findFirst().ifPresent(old -> {
            throw new MigrationRefused(MigrationRefused.Kind.UNKNOWN_RENAME, "--rename " + old + "=" + renames.get(old)
                    + " names no v1 queue '" + old + "' " + underPrefixes(prefixes) + elsewhere(source, old, prefixes));
        });
    }

    /**
     * What to pass for a queue {@code name} found under none of the {@code prefixes}: the prefixes a queue of that name lies
     * under ({@link Discovery#prefixesOf}: a walk of the source, made only for the refusal), else to list the queues.
     */
    private static String elsewhere(UnifiedJedis source, String name, List<String> prefixes) {
        List<String> elsewhere = new Discovery(source).prefixesOf(name, prefixes);
        return elsewhere.isEmpty() ? " (`discover` lists them; check --prefix)" : "; one lies under the prefix"
                + (elsewhere.size() == 1 ? " " : "es ") + String.join(", ", elsewhere) + ": pass --prefix " + elsewhere.get(0)
                + (elsewhere.size() == 1 ? "" : " (or another of them)");
    }

    private static String underPrefixes(List<String> prefixes) {
        return "under the prefix" + (prefixes.size() == 1 ? " " : "es ") + String.join(", ", prefixes);
    }

    /**
     * The refusal of a run of every queue ({@code --all}) on a source that holds none under the prefixes: a wrong prefix
     * or database, or a v2 server given as the source (it holds {@code {emq}:version}, where the source user may read it).
     */
    public static MigrationRefused noQueues(UnifiedJedis source, List<String> prefixes) {
        boolean v2 = VersionFence.heldBy(source);
        return new MigrationRefused(MigrationRefused.Kind.NO_SUCH_QUEUE, "no v1 queue " + underPrefixes(prefixes)
                + " on the source" + (v2 ? ", which holds " + VersionFence.KEY + " as a v2 server does (are --source and --target"
                + " swapped?)" : "") + "; check --source (its database, /N) and --prefix (`discover` lists the queues);"
                + " nothing was written");
    }

    private static List<QueueRef> select(List<QueueRef> queues, List<String> names, Function<String, MigrationRefused> none) {
        if (names.isEmpty()) {
            return queues;
        }
        List<QueueRef> out = new ArrayList<>();
        for (String name : names) {
            List<QueueRef> matching = queues.stream()
                    .filter(q -> q.name().display().equals(name) || q.display().equals(name)).toList();
            if (matching.isEmpty()) {
                throw none.apply(name);
            }
            if (matching.stream().map(QueueRef::display).distinct().count() < matching.size()) {
                throw new MigrationRefused(MigrationRefused.Kind.AMBIGUOUS_QUEUE, "'" + name + "' names " + matching.size() + " v1 queues"
                        + " whose names display alike (a name that is not UTF-8 shows its bytes as \\xNN, as a text name may spell"
                        + " them): RENAME one queue's keys in v1 to a name of its own, then migrate each by its name");
            }
            if (matching.size() > 1) {
                throw new MigrationRefused(MigrationRefused.Kind.AMBIGUOUS_QUEUE, "'" + name + "' names a queue under several prefixes;"
                        + " name it as PREFIX:QUEUE");
            }
            out.add(matching.get(0));
        }
        return out;
    }

    /** One queue's run: its lease, its applied steps, and how it ended. */
    private final class Run {
        final QueueMigration m;
        final Map<String, Long> moved = new LinkedHashMap<>();
        final long started = System.nanoTime();
        Map<Integer, HistoryRow> applied = new LinkedHashMap<>();
        MigrationResult.Outcome outcome;
        Optional<MigrationRefused.Kind> refusalKind = Optional.empty();
        String message = "";
        /** Whether this run took the journal's lease (a run refused because another holds it did not: it releases none). */
        boolean leased;
        /** Whether the v2 fence holds this run's token (claimed before the first step this run applies). */
        boolean claimed;
        /** The history row of the step this run just applied, until {@link #recordHistory} writes it. */
        HistoryRow unrecorded;
        /** Whether this run applied the step that retires the source (and so paused v1 for the window it reports). */
        boolean retiredHere;
        /** How this run ended, once {@link #finish} ran. */
        MigrationResult result;
        /** The step's tries: which server closed the connection the latest lost, and when its row of losses without progress between began. */
        final Tries tries = new Tries();

        Run(QueueMigration m) {
            this.m = m;
        }

        boolean active() {
            return outcome == null;
        }

        void begin() {
            long token;
            try {
                token = m.journal.lease().acquire(owner, options.lease().toMillis());
            } catch (EmqWireException.Lock held) {
                stop(MigrationResult.Outcome.REFUSED, MigrationRefused.Kind.LOCKED, held.getMessage() + "; wait for it to finish (or for its lease to lapse)");
                return;
            }
            leased = true;
            leasedRuns.add(this);
            // the first lease ever taken on the journal: nothing was written to it before (nothing writes it without a lease)
            boolean fresh = token == 1;
            for (HistoryRow row : fresh ? List.<HistoryRow>of() : m.journal.history().rows()) {
                applied.put(row.version(), row);
            }
            JournalHeader header = fresh ? JournalHeader.NONE : m.journal.header();
            boolean fenced = applied.containsKey(catalog.steps().get(0).version());
            if (!fenced) {
                m.begunWith(header); // for the fence step, next
            }
            boolean abandoned = header.get(JournalHeader.STATE).map(s -> s == MigrationState.ABANDONED).orElse(false);
            if (abandoned) {
                applied.clear();
            }
            for (HistoryRow row : applied.values()) {
                if (!row.success()) {
                    stop(MigrationResult.Outcome.FAILED, MigrationRefused.Kind.FAILED_STEP, "step V" + row.version() + " (" + row.description() + ") failed earlier: "
                            + row.error() + "; fix the cause, run `emq-migrate repair`, then migrate again");
                    return;
                }
                Optional<StepDefinition> def = catalog.byVersion(row.version());
                if (def.isPresent() && def.get().checksum() != row.checksum()) {
                    stop(MigrationResult.Outcome.REFUSED, MigrationRefused.Kind.CHECKSUM, "step V" + row.version() + " changed since it was applied to " + m.target
                            + " (recorded checksum " + row.checksum() + ", now " + def.get().checksum()
                            + "): run `emq-migrate validate`, then `repair` if the change is intended");
                    return;
                }
            }
            // the choices (payload policy, lanes) shape the rows alone: until a step wrote rows, a run may make others,
            // recorded in their place (a run refused early, e.g. flow-in-lane, is re-run without --lane)
            boolean rowsWritten = applied.keySet().stream().anyMatch(v -> catalog.byVersion(v).map(StepDefinition::moves).orElse(true));
            Optional<MigrationRefused> changedChoice = fenced ? m.changedChoice(header) : Optional.empty();
            if (changedChoice.isPresent() && !rowsWritten) {
                m.journal.record(m.choices(new JournalHeader.Write()));
                changedChoice = Optional.empty();
            }
            Optional<MigrationRefused> changed = changedChoice.or(() -> fenced && !abandoned ? m.sourceRefusal(header) : Optional.empty());
            if (changed.isPresent()) {
                stop(MigrationResult.Outcome.REFUSED, changed.get().kind(), changed.get().getMessage() + v2LeftPaused());
            }
        }

        void apply(StepDefinition step) {
            if (!active() || applied.containsKey(step.version())) {
                return;
            }
            listener.stepStarted(m.target, step);
            checkpoints.enterStep(step.version());
            long t0 = System.nanoTime();
            String named = named(step);
            try {
                if (!claimed) {
                    TargetFence.claim(m.targetWire, m.keys, m.journal);
                    claimed = true;
                }
                Map<String, Long> counts = withRetries(step);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                HistoryRow row = new HistoryRow(applied.size() + 1, step.version(), step.description(), step.checksum(),
                        owner, Instant.now().toString(), ms, true, counts, null);
                unrecorded = row;
                applied.put(step.version(), row);
                retiredHere |= step.destroys();
                listener.stepFinished(m.target, step, counts, tally(step.moves() ? counts : Map.of()), ms);
            } catch (Checkpoints.InjectedCrash crash) {
                throw crash;
            } catch (EmqWireException.Lock lost) {
                if (!stoppedAsJournalLost(named, step)) {
                    stop(MigrationResult.Outcome.REFUSED, MigrationRefused.Kind.LEASE_LOST, named + " of " + m.target
                            + " was refused: this migrator's lease lapsed and another migrator took over the queue ("
                            + lost.getMessage() + "); this run stopped there, writing nothing more. Nothing to repair: see"
                            + " `emq-migrate info` for the other migrator's outcome, and re-run migrate if it did not finish");
                }
            } catch (JedisConnectionException dropped) {
                stop(MigrationResult.Outcome.FAILED, MigrationRefused.Kind.CONNECTION, named + " " + ranOut(tries, ", without progress between")
                        + ": " + ConnectionLoss.of(dropped, silence(), brokeSince(tries.breaksAtTry))
                        + "; " + sourceLeft(step) + "; re-run migrate once the server is reachable (steps resume where they were)");
            } catch (MigrationRefused refused) {
                if (refused.kind() == MigrationRefused.Kind.VERIFICATION) {
                    if (stoppedAsJournalLost(named, step)) {
                        return;
                    }
                    record(step, t0, refused.getMessage());
                }
                stop(refused.kind() == MigrationRefused.Kind.VERIFICATION ? MigrationResult.Outcome.FAILED : MigrationResult.Outcome.REFUSED, refused.kind(),
                        refused.getMessage() + v2LeftPaused());
            } catch (RuntimeException e) {
                Optional<ServerRefusal.Found> refusal = ServerRefusal.in(e);
                if (refusal.isPresent()) {
                    ServerRefusal why = refusal.get().why();
                    Optional<ServerRefusal.Refuser> server = refuser(refusal.get().said());
                    stop(MigrationResult.Outcome.FAILED, why.kind, named + " of " + m.target
                            + " stopped: " + why.what(server) + " (" + refusal.get().said() + "); " + sourceLeft(step)
                            + "; " + why.remedy(server) + ", then run migrate again: the step resumes, nothing to repair");
                    return;
                }
                String error = StepErrors.of(e);
                record(step, t0, error);
                stop(MigrationResult.Outcome.FAILED, MigrationRefused.Kind.ERROR, named + " failed: " + error
                        + "; " + sourceLeft(step) + "; fix the cause, run `emq-migrate repair`, then migrate again");
            } finally {
                tally(Map.of()); // the jobs passes of a step that stopped added: v2 holds them
            }
        }

        /**
         * Adds to the run's tally what a step moved into v2: {@code copied} (a copy step's counts) and the jobs its
         * re-sync passes added ({@link QueueMigration#takeAdded}). The number of jobs among them.
         */
        private long tally(Map<String, Long> copied) {
            Map<String, Long> now = new LinkedHashMap<>(copied);
            m.takeAdded().forEach((state, n) -> now.merge(state.wireName(), n, Long::sum));
            now.forEach((k, v) -> moved.merge(k, v, Long::sum));
            return jobs(now);
        }

        /**
         * What a refusal past the fence says of the v2 queue the fence paused, when it was not paused before (it may serve
         * v2 jobs of its own) and is paused still (the retirement resumes it): empty when the fence never held (it gives
         * the queue back when it refuses), or when either server cannot be read. {@code abandon} is named only before the
         * tombstone (after it, the migration can only be finished).
         */
        private String v2LeftPaused() {
            try {
                if (!applied.containsKey(catalog.steps().get(0).version())
                        || header().flatMap(h -> h.get(JournalHeader.V2_WAS_PAUSED)).orElse(true)
                        || m.targetWire.hget(Utf8.bytes(m.keys.meta()), Utf8.bytes("paused")) == null) {
                    return "";
                }
                return "; the v2 queue emq:{" + m.target + "} stays paused (its consumers claim nothing) until a re-run finishes"
                        + " the migration" + (SourceFence.tombstoned(m.sourceWire, m.source) ? ""
                        : " or `emq-migrate abandon` gives it back as it was");
            } catch (RuntimeException unreadable) {
                return "";
            }
        }

        /**
         * What a step that stopped left of the v1 source: nothing deleted, but by the step that retires it, which
         * gives v1 back when it stops before the tombstone (but for a lost connection), else leaves it paused, and
         * may have stamped the tombstone (v1 refuses adds from then on) and deleted part of the source or all of it.
         */
        private String sourceLeft(StepDefinition step) {
            if (!step.destroys()) {
                return "nothing was deleted";
            }
            return v1Live() ? "nothing was deleted, and the v1 queue serves as it did before the migration"
                    : "the v1 queue is left paused (its workers fetch nothing) and may be partly or wholly retired already (once"
                    + " the tombstone is stamped, v1 refuses adds); a re-run finishes the migration (before the tombstone,"
                    + " `emq-migrate abandon` gives v1 back instead)";
        }

        /**
         * Stops the run as {@code journal-lost} when the journal this run wrote (its lease with it) is gone from the target,
         * and says so: {@code what} of the queue was refused, or found no journal, because the target restarted without
         * persistence, was flushed, or failed over to a server without it; no rival holds the queue. False when the journal
         * is there (a rival's lease then: {@code lease-lost}) or the target cannot be read.
         */
        private boolean stoppedAsJournalLost(String what, StepDefinition step) {
            try {
                if (m.journal.exists()) {
                    return false;
                }
            } catch (RuntimeException unreadable) {
                return false;
            }
            boolean v1Whole = !step.destroys() || v1Live();
            stop(MigrationResult.Outcome.REFUSED, MigrationRefused.Kind.JOURNAL_LOST, what + " of " + m.target + " stopped: the journal "
                    + m.journal.key() + " this run wrote, and its lease, are gone from the target (it restarted without"
                    + " persistence, was flushed, or failed over to a server without them), and with them the record of the v2"
                    + " copy; no other migrator holds the queue. " + (v1Whole
                    ? "Nothing of v1 was deleted, and the v1 queue serves as before: check the target's persistence (appendonly"
                    + " or save), then re-run migrate, which copies the queue again"
                    : "The v1 queue is left paused and may be partly retired already: what it still holds is the only copy of"
                    + " those jobs; keep it, and check the target's persistence before anything else (MIGRATION.md, journal-lost)"));
            return true;
        }

        private boolean v1Live() {
            try {
                return m.v1Live();
            } catch (RuntimeException unreadable) {
                return false;
            }
        }

        /**
         * The outcome of writing this run's history row: {@code error} null when written; a lost connection only once
         * its {@code tries} ran out ({@link #riddenOut}: it went to the target alone, which is named); a refusal when
         * interrupted while it waited to try again.
         */
        void recorded(StepDefinition step, RuntimeException error, Tries tries) {
            unrecorded = null;
            String row = "the history row of " + named(step);
            if (error instanceof EmqWireException.Lock lost) {
                if (!stoppedAsJournalLost(row, step)) {
                    stop(MigrationResult.Outcome.REFUSED, MigrationRefused.Kind.LEASE_LOST, row + " of " + m.target + " was refused: this migrator's lease lapsed and another migrator took over"
                            + " the queue (" + lost.getMessage() + "); see `emq-migrate info`, and re-run migrate if it did not finish");
                }
            } else if (error instanceof MigrationRefused refused) { // interrupted while it waited to try again
                stop(MigrationResult.Outcome.REFUSED, refused.kind(), row + " was not written: " + refused.getMessage()
                        + "; " + sourceLeft(step) + "; re-run migrate (the step runs again)" + v2LeftPaused());
            } else if (error != null) {
                stop(MigrationResult.Outcome.FAILED, MigrationRefused.Kind.CONNECTION, row + " could not be written: "
                        + (error instanceof JedisConnectionException lost ? "it " + ranOut(tries, "") + ": " + ConnectionLoss.of(lost, targetWatch())
                        : StepErrors.of(error)) + "; " + sourceLeft(step) + "; re-run migrate (the step runs again)");
            }
        }

        /**
         * Applies the step, trying it again (it is idempotent) after a lost connection, each time after a longer wait
         * ({@link #riddenOut}), until it ends or loses its connection {@link #CONNECTION_RETRIES} times in a row: a
         * loss after the step made progress since the one before ({@link QueueMigration#progressed}: rows new to the
         * journal, v1 keys deleted) starts the count, and the waits, again. A loss when another run's step spent its row of
         * tries and no run progressed since ({@link #rowSpentAt}) ends the step at once: the server was waited for already.
         * Each try after a loss goes to the master that serves the queue's slot then ({@link Wire#renewSlotMap}). An
         * interrupt ends a wait at once.
         */
        private Map<String, Long> withRetries(StepDefinition step) {
            // after a loss: the try may have stopped between rows and their expectations
            return riddenOut(tries, m::progress, () -> m.unjournaledRows = true, () -> step.create().apply(m));
        }

        private void record(StepDefinition step, long t0, String error) {
            try {
                m.journal.history().record(new HistoryRow(applied.size() + 1, step.version(), step.description(), step.checksum(),
                        owner, Instant.now().toString(), (System.nanoTime() - t0) / 1_000_000, false, Map.of(), error));
            } catch (RuntimeException unreachable) {
                // the failure is still reported; the step simply runs again next time
            }
        }

        private void stop(MigrationResult.Outcome outcome, MigrationRefused.Kind kind, String message) {
            this.outcome = outcome;
            this.refusalKind = Optional.of(kind);
            this.message = message;
        }

        /** The journal's header, for the window journaled when this queue retired (empty when the target cannot be read). */
        private Optional<JournalHeader> header() {
            try {
                return Optional.of(m.journal.header());
            } catch (RuntimeException unreachable) {
                return Optional.empty();
            }
        }

        /**
         * Releases this run's lease, so a re-run goes on at once; a lapsed or taken lease needs none. Tried again on a
         * new connection when the target closed the one it went on ({@link #againOnClosed}); a target away or silent is
         * not waited for (the lease lapses).
         */
        private void releaseLease() {
            try {
                againOnClosed(() -> {
                    m.journal.lease().release();
                    return null;
                });
            } catch (RuntimeException lapsedTakenOrUnreachable) {
                // the lease lapses
            }
        }

        /** Ends this run once every step ran: its outcome, as the journal tells it when no step stopped it, its lease released, its {@link #result}. */
        void finish() {
            Optional<JournalHeader> header = Optional.empty();
            if (outcome == null && !options.retire() && retirementBegun(m)) {
                stop(MigrationResult.Outcome.REFUSED, MigrationRefused.Kind.RETIRED, "the retirement of " + m.source.display()
                        + " began in an earlier run (its meta holds the tombstone: v1's lists are gone, v1 refuses adds, and"
                        + " the v2 queue stays paused until retirement ends), so --no-retire cannot stop short of it: run"
                        + " migrate again without --no-retire to finish it");
            }
            if (outcome == null) {
                JournalHeader read = m.journal.header();
                header = Optional.of(read);
                outcome = read.get(JournalHeader.STATE).map(MigrationResult.Outcome::of).orElse(MigrationResult.Outcome.VERIFIED);
                releaseLease();
            } else if (leased && refusalKind.filter(k -> k == MigrationRefused.Kind.LEASE_LOST || k == MigrationRefused.Kind.JOURNAL_LOST).isEmpty()) {
                // also when refused as locked by another migration's window on v1: this run's own lease, not another's
                releaseLease();
            }
            if (header.isEmpty()) {
                header = header();
            }
            result = new MigrationResult(m.source.display(), m.target, outcome, moved, refusalKind, message,
                    (System.nanoTime() - started) / 1_000_000, jobs(moved),
                    header.filter(h -> retiredHere).flatMap(h -> h.get(JournalHeader.WINDOW_MS)),
                    header.flatMap(h -> h.get(JournalHeader.ORDER_DRIFT)).filter(drift -> !drift.isEmpty()), m.withoutFeed,
                    header.flatMap(h -> h.get(JournalHeader.EXPECTED_ROWS)));
        }
    }

    /**
     * Whether the v1 queue holds the tombstone while the journal is not retired: a run stopped inside retirement.
     * Unknown (false) when the source cannot be read now; the run's report then stands as it is.
     */
    private boolean retirementBegun(QueueMigration m) {
        try {
            return m.journal.header().get(JournalHeader.STATE).filter(s -> s == MigrationState.RETIRED).isEmpty()
                    && SourceFence.tombstoned(m.sourceWire, m.source);
        } catch (JedisConnectionException unreachable) {
            return false;
        }
    }

    static String owner() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "localhost";
        }
        return System.getProperty("user.name", "emq") + "@" + host + ":" + ManagementFactory.getRuntimeMXBean().getPid()
                + ":" + Long.toHexString(Double.doubleToLongBits(Math.random()) & 0xffffL);
    }

}
