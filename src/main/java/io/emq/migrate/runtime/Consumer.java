package io.emq.migrate.runtime;

import io.emq.migrate.wire.DaemonThreads;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptBatch;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * Drains one queue with N worker threads, from its flat pending set or, in lanes mode, through its
 * lanes as the reference's {@code EchoMQ.Consumer} does.
 *
 * <p>Each worker claims ({@code claim}, or {@code claim_batch} when the batch size is above 1; in
 * lanes mode {@code lane_claim}, one job per turn of the ring),
 * runs the handler on every job, and settles each one with its token: the jobs whose handler
 * returned in one {@code complete_batch} call, each job whose handler threw by {@code retry} with the
 * {@link Backoff} delay ({@code retry} dead-letters at max attempts). The settlements of one batch
 * travel in the same pipeline as the next claim (a {@link ScriptBatch}): one round trip a batch. A beat thread reaps lapsed leases, promotes due scheduled jobs, fires due repeatable
 * jobs ({@code repeat_fire}: each occurrence once, however many consumers beat) and delivers the
 * queue's {@code flow:outbox} (completions and deaths of children whose flow parent lives in
 * another queue) to those parents; the leases of jobs in flight are extended every lease/2 with
 * {@code extend_locks}. A paused queue
 * ({@code meta.paused}) answers empty claims, so the workers idle until it is resumed; so does a
 * queue at its {@code meta.concurrency}; a claim refused {@code EMQRATE} (the rate limit's window is
 * spent) waits the retry-after the server named (at most one beat) before claiming again.
 *
 * <p>{@link #stop()} is graceful: workers claim nothing new, finish and settle what they hold,
 * and leases keep being extended until they have. A worker whose settlement is refused
 * {@code EMQSTALE} (its lease lapsed, the job was reaped and re-claimed) counts it and leaves the
 * new owner's work untouched. A job whose handler threw {@link JobAbandoned} is not settled and its lease is no longer
 * extended: it goes back to pending when the lease lapses.
 */
public final class Consumer implements AutoCloseable {

    private static final long IDLE_MAX_MS = 50;
    /** Outbox entries delivered per pass (the v2 pump's batch). */
    private static final int OUTBOX_BATCH = 100;
    private static final byte[] NO_RESULT = new byte[0];
    /** Repeat occurrences fired per call on the beat. */
    private static final int REPEAT_BATCH = 10;

    private final Jobs jobs;
    private final ResultHandler handler;
    private final ConsumerListener listener;
    private final int workers;
    private final int batchSize;
    private final Duration lease;
    private final Duration beat;
    private final long maxAttempts;
    private final Backoff backoff;
    private final Optional<Lanes> lanes;
    private final boolean deliversOutbox;

    /** Whether workers claim; set from the start, so a {@link #stop()} before {@link #start()} is kept. */
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean started = new AtomicBoolean();
    private final Map<String, Long> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong claimSeq = new AtomicLong();
    private final LongAdder claimed = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder dead = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder gone = new LongAdder();
    private final LongAdder leaseLost = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final List<Thread> threads = new ArrayList<>();
    private ScheduledExecutorService sweeper;
    private CountDownLatch finished;
    private volatile Duration untilEmptyHorizon;
    private volatile long startNanos;
    private volatile long stopNanos;

    private Consumer(Builder b) {
        this.jobs = b.jobs;
        this.handler = b.handler;
        this.listener = b.listener;
        this.workers = b.workers;
        this.batchSize = b.batchSize;
        this.lease = b.lease;
        this.beat = b.beat;
        this.deliversOutbox = b.deliversOutbox;
        this.maxAttempts = b.maxAttempts;
        this.backoff = b.backoff;
        this.lanes = b.lanes;
    }

    /** Starts configuring a consumer of {@code jobs}' queue running {@code handler}. */
    public static Builder on(Jobs jobs, JobHandler handler) {
        return new Builder(jobs, job -> {
            handler.handle(job);
            return NO_RESULT;
        });
    }

    /** As {@link #on}, for work whose result a flow parent records ({@link ResultHandler}). */
    public static Builder withResults(Jobs jobs, ResultHandler handler) {
        return new Builder(jobs, handler);
    }

    /** Starts the workers, the beat and the lease extender; returns at once. */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("a consumer starts once");
        }
        startNanos = System.nanoTime();
        finished = new CountDownLatch(workers);
        sweeper = Executors.newScheduledThreadPool(1, DaemonThreads.named("emq-beat-" + jobs.queue()));
        sweeper.scheduleWithFixedDelay(this::sweep, 0, beat.toMillis(), TimeUnit.MILLISECONDS);
        long half = Math.max(1, lease.toMillis() / 2);
        sweeper.scheduleWithFixedDelay(this::extendLeases, half, half, TimeUnit.MILLISECONDS);
        for (int i = 0; i < workers; i++) {
            int index = i;
            Thread t = new Thread(() -> work(index), "emq-worker-" + jobs.queue() + "-" + i);
            threads.add(t);
            t.start();
        }
    }

    /**
     * Runs until the queue is drained: pending (in lanes mode: every lane not paused) and active
     * empty, no scheduled job due within
     * {@code scheduleHorizon} of the server clock, and the flow outbox delivered. Returns the
     * final counters.
     */
    public ConsumerStats runUntilEmpty(Duration scheduleHorizon) throws InterruptedException {
        untilEmptyHorizon = scheduleHorizon;
        start();
        finished.await();
        close();
        return stats();
    }

    /**
     * Runs until the queue is drained, waiting for scheduled jobs due within the backoff ceiling
     * plus two beats (so jobs this consumer retried are run again before it stops).
     */
    public ConsumerStats runUntilEmpty() throws InterruptedException {
        return runUntilEmpty(backoff.ceiling().plus(beat.multipliedBy(2)));
    }

    /**
     * Claims nothing new; in-flight work is finished and settled. Returns at once. Called before {@link #start()},
     * the workers claim nothing.
     */
    public void stop() {
        running.set(false);
    }

    /** Waits for the workers to finish after {@link #stop()}; true when they all did in time. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        boolean done = finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (done) {
            sweeper.shutdownNow();
        }
        return done;
    }

    /** Stops gracefully and waits for the workers. */
    @Override
    public void close() throws InterruptedException {
        stop();
        if (started.get()) {
            for (Thread t : threads) {
                t.join();
            }
            sweeper.shutdownNow();
            sweeper.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    public ConsumerStats stats() {
        long end = stopNanos != 0 ? stopNanos : System.nanoTime();
        Duration elapsed = startNanos == 0 ? Duration.ZERO : Duration.ofNanos(end - startNanos);
        return new ConsumerStats(claimed.sum(), completed.sum(), retried.sum(), dead.sum(), stale.sum(), gone.sum(),
                leaseLost.sum(), errors.sum(), elapsed);
    }

    // ---- the worker ------------------------------------------------------------------------

    private void work(int index) {
        List<Handled> handled = new ArrayList<>();
        long idleMs = 0;
        try {
            while (true) {
                boolean claimNext = running.get();
                if (!claimNext && handled.isEmpty()) {
                    return;
                }
                Round round = new Round(handled, claimNext ? Optional.of(claimCall()) : Optional.empty());
                try {
                    round.send();
                } catch (RuntimeException e) {
                    errors.increment();
                    listener.error(e);
                    idleMs = sleepIdle(Math.max(idleMs, IDLE_MAX_MS));
                    continue;
                }
                round.report();
                handled.clear();
                if (!claimNext) {
                    return;
                }
                ScriptReply<List<LaneClaim>> claimReply = round.claim.orElseThrow().reply();
                if (!claimReply.ok() && claimReply.error() instanceof EmqWireException.Rate rate) {
                    sleep(Math.min(rate.retryAfterMs().orElse(IDLE_MAX_MS), beat.toMillis()));
                    continue;
                }
                List<Delivery> batch = deliveries(claimReply, index);
                if (batch.isEmpty()) {
                    if (untilEmptyHorizon != null && drained()) {
                        running.set(false);
                    }
                    idleMs = idle(idleMs);
                    continue;
                }
                idleMs = 0;
                for (Delivery job : batch) {
                    run(job).ifPresent(handled::add);
                }
            }
        } finally {
            stopNanos = System.nanoTime();
            finished.countDown();
        }
    }

    /** Every claim call, its reply decoded as the jobs it leased and the lane of each ("" for the flat pending set). */
    private ScriptCall<List<LaneClaim>> claimCall() {
        if (lanes.isPresent()) {
            return lanes.get().claimCall(lease);
        }
        ScriptCall<List<Claim>> flat = batchSize == 1 ? jobs.claimCall(lease) : jobs.claimBatchCall(lease, batchSize);
        return flat.map(claims -> claims.stream().map(c -> new LaneClaim(c, "")).toList());
    }

    private List<Delivery> deliveries(ScriptReply<List<LaneClaim>> reply, int worker) {
        List<Delivery> out = new ArrayList<>();
        if (!reply.ok()) {
            errors.increment();
            listener.error(reply.error());
            return out;
        }
        for (LaneClaim lc : reply.value()) {
            Claim c = lc.claim();
            inFlight.put(c.id(), c.token());
            claimed.increment();
            out.add(new Delivery(jobs.queue(), c.id(), c.payload(), c.token(), worker, claimSeq.incrementAndGet(), lc.group()));
        }
        return out;
    }

    /** A job the handler ran: its result, or the failure it threw. */
    private record Handled(Delivery job, byte[] result, Throwable cause) {
    }

    /** Runs the handler on a job: what it returned or threw; nothing when it abandoned the job, which is not settled. */
    private Optional<Handled> run(Delivery job) {
        try {
            byte[] result = handler.handle(job);
            return Optional.of(new Handled(job, result == null ? NO_RESULT : result, null));
        } catch (JobAbandoned abandoned) {
            leaveToLease(job);
            return Optional.empty();
        } catch (Exception | Error e) {
            return Optional.of(new Handled(job, null, e));
        }
    }

    /** Stops extending an abandoned job's lease: when it lapses, a reap returns the job to pending. */
    private void leaveToLease(Delivery job) {
        inFlight.remove(job.id(), job.attempts());
    }

    /**
     * One round trip of a worker: the completions of the jobs it ran (one {@code complete_batch}),
     * a {@code retry} for each job whose handler threw, and the next claim, in one pipeline.
     */
    private final class Round {
        private final List<Handled> done = new ArrayList<>();
        private final List<Handled> failed = new ArrayList<>();
        private final ScriptBatch batch = jobs.batch();
        private final Optional<ScriptBatch.Pending<List<ScriptReply<Completion>>>> completions;
        private final List<ScriptBatch.Pending<RetryOutcome>> retries = new ArrayList<>();
        private final Optional<ScriptBatch.Pending<List<LaneClaim>>> claim;

        Round(List<Handled> handled, Optional<ScriptCall<List<LaneClaim>>> claimCall) {
            for (Handled h : handled) {
                (h.cause() == null ? done : failed).add(h);
            }
            completions = done.isEmpty() ? Optional.empty() : Optional.of(batch.add(jobs.completeBatchCall(
                    done.stream().map(h -> new Jobs.Settled(h.job().id(), h.job().attempts(), h.result())).toList())));
            for (Handled h : failed) {
                Throwable e = h.cause();
                String error = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
                retries.add(batch.add(jobs.retryCall(h.job().id(), h.job().attempts(), backoff.delay(h.job().attempts()),
                        maxAttempts, error)));
            }
            claim = claimCall.map(batch::add);
        }

        /**
         * Sends the round. The jobs it settles stop being extended first (a beat that meets one after
         * its settlement would count a lost lease); a round that could not be sent puts them back, as
         * it is sent again.
         */
        void send() {
            List<Delivery> settling = Stream.concat(done.stream(), failed.stream()).map(Handled::job).toList();
            settling.forEach(job -> inFlight.remove(job.id(), job.attempts()));
            try {
                batch.send();
            } catch (RuntimeException unsent) {
                settling.forEach(job -> inFlight.put(job.id(), job.attempts()));
                throw unsent;
            }
        }

        void report() {
            completions.ifPresent(pending -> {
                ScriptReply<List<ScriptReply<Completion>>> reply = pending.reply();
                for (int i = 0; i < done.size(); i++) {
                    Delivery job = done.get(i).job();
                    settled(job, reply.ok() ? reply.value().get(i) : new ScriptReply<>(null, reply.error()));
                }
            });
            for (int i = 0; i < failed.size(); i++) {
                Handled h = failed.get(i);
                ScriptReply<RetryOutcome> reply = retries.get(i).reply();
                if (!reply.ok()) {
                    refused(h.job(), reply.error());
                } else if (reply.value() == RetryOutcome.DEAD) {
                    dead.increment();
                    listener.dead(h.job(), h.cause());
                } else {
                    retried.increment();
                    listener.retried(h.job(), h.cause());
                }
            }
        }
    }

    private void settled(Delivery job, ScriptReply<Completion> outcome) {
        if (!outcome.ok()) {
            refused(job, outcome.error());
            return;
        }
        if (outcome.value() == Completion.COMPLETED) {
            completed.increment();
            listener.completed(job);
        } else {
            gone.increment();
            listener.gone(job);
        }
    }

    /** A settlement the server refused: superseded (re-claimed), gone, or an error. */
    private void refused(Delivery job, RuntimeException error) {
        if (error instanceof EmqWireException.Stale s && !s.jobGone()) {
            stale.increment();
            listener.staleRefused(job, s);
        } else if (error instanceof EmqWireException.Stale) {
            gone.increment();
            listener.gone(job);
        } else {
            errors.increment();
            listener.error(error);
        }
    }

    private boolean drained() {
        DrainStatus s = jobs.drainStatus(untilEmptyHorizon);
        long waiting = lanes.isPresent() ? s.inLanes() : s.pending();
        return waiting == 0 && s.active() == 0 && s.scheduledDue() == 0 && deliverOutbox();
    }

    /** Waits after an empty claim: in lanes mode parked on the queue's wake list, as the reference consumer does. */
    private long idle(long idleMs) {
        if (lanes.isEmpty()) {
            return sleepIdle(idleMs);
        }
        try {
            lanes.get().park(Duration.ofMillis(IDLE_MAX_MS));
        } catch (RuntimeException e) {
            errors.increment();
            listener.error(e);
            return sleepIdle(idleMs);
        }
        return IDLE_MAX_MS;
    }

    private long sleepIdle(long idleMs) {
        long next = Math.min(IDLE_MAX_MS, Math.max(1, idleMs * 2));
        sleep(next);
        return next;
    }

    private void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    // ---- the beat and the lease extender ---------------------------------------------------

    private void sweep() {
        try {
            jobs.reap();
            jobs.promote();
            while (jobs.fireDueRepeats(REPEAT_BATCH).size() == REPEAT_BATCH) {
                // more registrations were due than one call fires
            }
        } catch (RuntimeException e) {
            errors.increment();
            listener.error(e);
        }
        deliverOutbox();
    }

    /**
     * Delivers the flow outbox pass by pass until a pass comes up short; false when a delivery failed.
     * A consumer that holds its outbox delivers nothing (and counts it as done).
     */
    private boolean deliverOutbox() {
        if (!deliversOutbox) {
            return true;
        }
        try {
            OutboxSweep sweep;
            do {
                sweep = jobs.deliverOutbox(OUTBOX_BATCH);
                if (sweep.taken() > 0) {
                    listener.outboxDelivered(sweep);
                }
            } while (sweep.taken() == OUTBOX_BATCH);
            return true;
        } catch (RuntimeException e) {
            errors.increment();
            listener.error(e);
            return false;
        }
    }

    private void extendLeases() {
        if (inFlight.isEmpty()) {
            return;
        }
        try {
            Map<String, Long> held = Map.copyOf(inFlight);
            for (String id : jobs.extendLocks(held, lease)) {
                Long token = held.get(id);
                if (inFlight.remove(id, token)) {
                    leaseLost.increment();
                    listener.leaseLost(id, token);
                }
            }
        } catch (RuntimeException e) {
            errors.increment();
            listener.error(e);
        }
    }

    /** Configures a {@link Consumer}. */
    public static final class Builder {
        private final Jobs jobs;
        private final ResultHandler handler;
        private ConsumerListener listener = new ConsumerListener() { };
        private int workers = 1;
        private int batchSize = 1;
        private Duration lease = Duration.ofSeconds(30);
        private Duration beat = Duration.ofSeconds(1);
        private long maxAttempts = 3;
        private Backoff backoff = Backoff.fixed(Duration.ofSeconds(1));
        private Optional<Lanes> lanes = Optional.empty();
        private boolean deliversOutbox = true;

        private Builder(Jobs jobs, ResultHandler handler) {
            this.jobs = jobs;
            this.handler = handler;
        }

        /** Worker threads (default 1). */
        public Builder workers(int n) {
            this.workers = positive(n, "workers");
            return this;
        }

        /** Jobs claimed per claim (default 1: {@code claim}; above 1: {@code claim_batch}). */
        public Builder batchSize(int n) {
            this.batchSize = positive(n, "batch size");
            return this;
        }

        /** Lease per claim (default 30 s), extended every half lease while the job is in flight. */
        public Builder lease(Duration d) {
            this.lease = d;
            return this;
        }

        /** Interval of reap + promote + flow outbox delivery (default 1 s). */
        public Builder beat(Duration d) {
            this.beat = d;
            return this;
        }

        /** Attempts after which a failing job is dead-lettered (default 3). */
        public Builder maxAttempts(long n) {
            this.maxAttempts = positive((int) Math.min(n, Integer.MAX_VALUE), "max attempts");
            return this;
        }

        /** Delay before a failed job runs again (default fixed 1 s). */
        public Builder backoff(Backoff b) {
            this.backoff = b;
            return this;
        }

        /**
         * Lanes mode: claims through {@code lanes}' ring, one job per turn ({@code lane_claim}), as
         * the reference consumer does; the batch size must stay 1.
         */
        public Builder lanes(Lanes lanes) {
            this.lanes = Optional.of(lanes);
            return this;
        }

        /**
         * Leaves the queue's flow outbox undelivered (default: delivered on every beat): for a scratch
         * copy of a queue, whose cross-queue flow parents live in real queues that must not change.
         */
        public Builder holdOutbox() {
            this.deliversOutbox = false;
            return this;
        }

        public Builder listener(ConsumerListener l) {
            this.listener = l;
            return this;
        }

        public Consumer build() {
            if (lanes.isPresent() && batchSize != 1) {
                throw new IllegalArgumentException("lanes mode claims one job per turn of the ring; batch size must be 1, got "
                        + batchSize);
            }
            return new Consumer(this);
        }

        private static int positive(int n, String what) {
            if (n < 1) {
                throw new IllegalArgumentException(what + " must be at least 1, got " + n);
            }
            return n;
        }
    }
}
