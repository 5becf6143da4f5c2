package io.emq.migrate.drain;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.migrate.DrainedJobs;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.runtime.Consumer;
import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.ConsumerStats;
import io.emq.migrate.runtime.DrainStatus;
import io.emq.migrate.runtime.Lanes;
import io.emq.migrate.runtime.JobHandler;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.wire.Wire;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Drains one migrated queue with the bundled consumer and judges the result against its journal
 * ({@link DrainVerdict}), or, as a dry run, checks what is queued against the journal without
 * claiming anything ({@link DryRun}).
 */
public final class Drain {
    private final Wire wire;
    private final String queue;
    private final String served;
    private final Jobs jobs;
    private final Journal journal;
    private volatile Consumer consumer;
    private volatile boolean stopped;

    public Drain(Wire wire, String queue) {
        this(wire, queue, queue);
    }

    private Drain(Wire wire, String queue, String served) {
        this.wire = wire;
        this.queue = queue;
        this.served = served;
        this.jobs = Jobs.on(wire, served);
        this.journal = new Journal(wire, queue);
    }

    /**
     * Drains the shadow copy of {@code queue} instead of the queue, judged against the queue's own
     * journal; the copy's consumer leaves its flow outbox undelivered, so parents in other (real)
     * queues never hear of it.
     */
    public static Drain ofShadow(Wire wire, String queue, ShadowQueue shadow) {
        return new Drain(wire, queue, shadow.name());
    }

    private boolean shadow() {
        return !served.equals(queue);
    }

    public String queue() {
        return queue;
    }

    public boolean journaled() {
        return journal.exists();
    }

    /** Where the queue's migration stopped short of serving v2, as its journal tells. */
    public enum MigrationStop {
        /** It did not: no migration, or one that ran to its end (or was abandoned). */
        NONE,
        /** Before verified: in flight, or stopped there; v1 still serves every job, and this copy may be partial. */
        BEFORE_VERIFIED,
        /** At verified ({@code migrate --no-retire}): the v1 source still holds every job. */
        AT_VERIFIED,
        /** Inside its last step (retire source): v1 was paused for it, and may be partly retired. */
        INSIDE_RETIREMENT
    }

    public MigrationStop migrationStop() {
        JournalHeader header = journal.header();
        return header.get(JournalHeader.STATE).map(state -> switch (state) {
            case PLANNED, RUNNING -> MigrationStop.BEFORE_VERIFIED;
            case VERIFIED -> header.get(JournalHeader.V1_PAUSED_AT).isPresent() ? MigrationStop.INSIDE_RETIREMENT : MigrationStop.AT_VERIFIED;
            case RETIRED, ABANDONED -> MigrationStop.NONE;
        }).orElse(MigrationStop.NONE);
    }

    /** Why the queue is paused, in an operator's words; empty when it is not paused. */
    public Optional<String> pausedBecause() {
        if (!jobs.isPaused()) {
            return Optional.empty();
        }
        return switch (migrationStop()) {
            case BEFORE_VERIFIED -> Optional.of("its migration is in flight, or stopped before it verified (journal state running),"
                    + " so the v1 source still serves every job and this copy may be partial: run migrate again to finish it, or"
                    + " `emq-migrate abandon` it");
            case INSIDE_RETIREMENT -> Optional.of("its migration stopped inside its last step (retire source): the v1 queue was"
                    + " paused for it and may be partly retired already, so neither side serves it; run migrate again (without"
                    + " --no-retire) to finish the migration, or `emq-migrate abandon` to give v1 back while it holds no tombstone");
            case AT_VERIFIED -> Optional.of("its migration stopped at verified (migrate --no-retire), so the v1 source is still"
                    + " the truth: finish the migration (run migrate again without --no-retire) before serving v2,"
                    + " or drain a copy");
            case NONE -> Optional.of(journal.header().get(JournalHeader.V1_WAS_PAUSED).orElse(false)
                    ? "the v1 queue was paused when it was migrated, and the migration kept the pause"
                    : "meta.paused is set (an operator paused it)");
        };
    }

    public void resume() {
        jobs.resume();
    }

    /**
     * Jobs the drain will claim if nothing else arrives: those waiting where it claims (pending, or
     * the lanes), active, and scheduled due within the horizon.
     */
    public long backlog(DrainOptions options) {
        DrainStatus s = jobs.drainStatus(options.horizon());
        return (options.lanes() ? s.inLanes() : s.pending()) + s.active() + s.scheduledDue();
    }

    /**
     * Runs the consumer until the queue is empty (scheduled jobs beyond the options' horizon are
     * left), running {@code work} on each job, then judges the drain; jobs stopped drains recorded as served
     * ({@link DrainedJobs}) count as served. {@code observer} hears every settlement, for progress.
     *
     * @throws DrainStopped when {@link #stop()} stopped it: the migrated jobs it served are recorded in the journal
     */
    public DrainReport run(DrainOptions options, JobHandler work, ConsumerListener observer) throws InterruptedException {
        MigratedJobs migrated = MigratedJobs.load(journal);
        Set<String> servedBefore = DrainedJobs.of(journal);
        Rows rows = new Rows(wire, served, journal.lanes());
        Map<String, Long> before = QueueCounts.read(migrated, rows);
        DrainLedger ledger = new DrainLedger(migrated, observer);
        Consumer.Builder consumer = Consumer.on(jobs, job -> {
            ledger.claimed(job);
            work.handle(job);
        }).workers(options.workers()).lease(options.lease()).beat(options.beat())
                .backoff(options.backoff()).maxAttempts(options.maxAttempts()).listener(ledger);
        if (options.lanes()) {
            consumer.lanes(Lanes.of(wire, jobs));
        } else {
            consumer.batchSize(DrainOptions.BATCH_SIZE);
        }
        if (shadow()) {
            consumer.holdOutbox();
        }
        this.consumer = consumer.build();
        if (stopped) {
            this.consumer.stop();
        }
        ConsumerStats stats = this.consumer.runUntilEmpty(options.horizon());
        if (stopped) {
            throw new DrainStopped(stats.completed(), backlog(options), recorded(ledger.servedAsExpected()));
        }
        Problems problems = new Problems();
        var checks = new DrainVerdict(migrated, ledger, servedBefore, rows, problems).judge(options.workers(), options.lanes());
        return new DrainReport(queue, false, options.workers(), before, QueueCounts.read(migrated, rows),
                Optional.of(stats), checks, problems.first(), problems.count());
    }

    /**
     * Stops a drain of the queue itself (Ctrl-C, SIGTERM; not a shadow drain, whose copy is deleted instead): it claims
     * nothing more, settles the jobs it holds, records the migrated jobs it served and ends {@link #run} with
     * {@link DrainStopped}. Returns at once; before {@link #run} starts the consumer, the run claims nothing.
     */
    public void stop() {
        stopped = true;
        Consumer running = consumer;
        if (running != null) {
            running.stop();
        }
    }

    /** Records the migrated jobs a stopped drain served; empty when they were recorded (or were none), else why not. */
    private Optional<String> recorded(List<String> servedNow) {
        if (servedNow.isEmpty()) {
            return Optional.empty();
        }
        try {
            DrainedJobs.record(journal, servedNow);
            return Optional.empty();
        } catch (RuntimeException refused) {
            return Optional.of(refused.getMessage());
        }
    }

    /** Checks pending (in serve order) and the schedule against the journal; claims and writes nothing. */
    public DrainReport dryRun() {
        MigratedJobs migrated = MigratedJobs.load(journal);
        Rows rows = new Rows(wire, served, journal.lanes());
        Map<String, Long> journaled = new LinkedHashMap<>();
        for (V2State state : V2State.values()) {
            journaled.put(state.wireName(), migrated.count(state));
        }
        Map<String, Long> now = QueueCounts.read(migrated, rows);
        Problems problems = new Problems();
        var checks = new DryRun(migrated, rows, DrainedJobs.of(journal), problems).judge();
        return new DrainReport(queue, true, 0, journaled, now, Optional.empty(), checks, problems.first(), problems.count());
    }
}
