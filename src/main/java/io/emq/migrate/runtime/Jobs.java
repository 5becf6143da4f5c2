package io.emq.migrate.runtime;

import static io.emq.migrate.runtime.QueueKeys.bytes;
import static io.emq.migrate.runtime.QueueKeys.num;

import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Snowflake;
import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.ScriptBatch;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Every v2 verb on one flat queue. Refusals are thrown as
 * {@link io.emq.migrate.wire.EmqWireException} subtypes; sentinels that are not errors (a
 * duplicate, a job gone) are values.
 */
public final class Jobs {

    /** State names {@link #counts(List)} accepts: the four sets, then the two metrics. */
    public static final List<String> COUNTABLE = List.of("pending", "active", "schedule", "dead", "completed", "failed");

    private static final int SWEEP_LIMIT = 1000;
    private static final int OBLITERATE_BUDGET = 1000;

    private final Wire wire;
    private final QueueKeys keys;
    /** The process-wide minter used when none is given; its node id is the process id mod 1024. */
    private static final SnowflakeMinter DEFAULT_MINTER =
            new SnowflakeMinter(ProcessHandle.current().pid() % (Snowflake.MAX_NODE + 1));

    private final SnowflakeMinter minter;
    private final FlowOutbox outbox;

    private Jobs(Wire wire, String queue, SnowflakeMinter minter) {
        this.wire = wire;
        this.keys = new QueueKeys(queue);
        this.minter = minter;
        this.outbox = new FlowOutbox(wire, keys);
    }

    /** The verbs of {@code queue} over {@code wire}, minting ids with the process-wide minter. */
    public static Jobs on(Wire wire, String queue) {
        return new Jobs(wire, queue, DEFAULT_MINTER);
    }

    /** The verbs of {@code queue} over {@code wire}, minting ids with {@code minter}. */
    public static Jobs on(Wire wire, String queue, SnowflakeMinter minter) {
        return new Jobs(wire, queue, minter);
    }

    public String queue() {
        return keys.queue;
    }


    /** A fresh branded {@code JOB} id from this runtime's Snowflake minter. */
    public String mintId() {
        return minter.mintJob().toString();
    }

    // ---- admission -------------------------------------------------------------------------

    /** Admits a job under a freshly minted id. */
    public Admission enqueue(byte[] payload) {
        return enqueue(mintId(), payload);
    }

    /** Admits a job under the caller's id; {@code EMQKIND} unless it is a {@code JOB} id. */
    public Admission enqueue(String id, byte[] payload) {
        return new Admission(id, wire.eval(enqueueCall(id, payload)) == 1);
    }

    /** Admits many jobs under fresh ids in one pipeline, in the order given (ids minted in that order). */
    public List<Admission> enqueueAll(List<byte[]> payloads) {
        List<ScriptCall<Long>> calls = new ArrayList<>(payloads.size());
        List<String> ids = new ArrayList<>(payloads.size());
        for (byte[] payload : payloads) {
            String id = mintId();
            ids.add(id);
            calls.add(enqueueCall(id, payload));
        }
        List<ScriptReply<Long>> replies = wire.evalAll(calls);
        List<Admission> out = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            out.add(new Admission(ids.get(i), replies.get(i).get() == 1));
        }
        return out;
    }

    private ScriptCall<Long> enqueueCall(String id, byte[] payload) {
        return new ScriptCall<>(Script.ENQUEUE, List.of(keys.row(id), keys.pending), List.of(bytes(id), payload), Replies::asLong);
    }

    /** Admits a job due at an absolute time. */
    public Admission enqueueAt(String id, byte[] payload, Instant at) {
        return schedule(id, payload, "at", at.toEpochMilli());
    }

    /** Admits a job due after a delay counted from the server's clock. */
    public Admission enqueueIn(String id, byte[] payload, Duration delay) {
        return schedule(id, payload, "in", delay.toMillis());
    }

    private Admission schedule(String id, byte[] payload, String mode, long ms) {
        long added = wire.eval(new ScriptCall<>(Script.SCHEDULE, List.of(keys.row(id), keys.schedule),
                List.of(bytes(id), payload, bytes(mode), num(ms)), Replies::asLong));
        return new Admission(id, added == 1);
    }

    // ---- claim and settle ------------------------------------------------------------------

    /** Claims the oldest pending job; empty when the queue is empty or paused. */
    public Optional<Claim> claim(Duration lease) {
        return wire.eval(claimCall(lease)).stream().findFirst();
    }

    /** Claims up to {@code size} oldest pending jobs on one shared lease, in mint order. */
    public List<Claim> claimBatch(Duration lease, int size) {
        return wire.eval(claimBatchCall(lease, size));
    }

    /** A {@code claim}: its reply decoded as no job or one. */
    ScriptCall<List<Claim>> claimCall(Duration lease) {
        return new ScriptCall<>(Script.CLAIM, List.of(keys.pending, keys.active, keys.meta, keys.dead),
                List.of(keys.jobBase, num(lease.toMillis()), keys.base), Jobs::claimOf);
    }

    ScriptCall<List<Claim>> claimBatchCall(Duration lease, int size) {
        return new ScriptCall<>(Script.CLAIM_BATCH, List.of(keys.pending, keys.active, keys.meta, keys.dead),
                List.of(keys.jobBase, num(lease.toMillis()), num(size), keys.base), Jobs::claimsOf);
    }

    /** A {@code claim} reply: empty, or one job. */
    private static List<Claim> claimOf(Object reply) {
        List<Object> triple = Replies.asList(reply);
        return triple.isEmpty() ? List.of() : List.of(claimFrom(triple));
    }

    /** A {@code claim_batch} reply: the jobs in pop order. */
    private static List<Claim> claimsOf(Object reply) {
        List<Claim> out = new ArrayList<>();
        for (Object member : Replies.asList(reply)) {
            out.add(claimFrom(Replies.asList(member)));
        }
        return out;
    }

    private static Claim claimFrom(List<Object> triple) {
        return new Claim(Replies.asText(triple.get(0)), Replies.asBytes(triple.get(1)), Replies.asLong(triple.get(2)));
    }

    /** Settles a claimed job as done; {@code EMQSTALE} when the token is superseded. */
    public Completion complete(String id, long token) {
        return complete(id, token, new byte[0]);
    }

    /** As {@link #complete(String, long)}, recording {@code result} in a flow parent's {@code :processed}. */
    public Completion complete(String id, long token, byte[] result) {
        return wire.eval(new ScriptCall<>(Script.COMPLETE, List.of(keys.active, keys.row(id), keys.pending),
                List.of(bytes(id), num(token), keys.base, result), Jobs::completionOf));
    }

    /**
     * Settles many claimed jobs as done in one call ({@code complete_batch}), each exactly as
     * {@link #complete} would; the reply has one outcome per job, in order: a completion, or the
     * refusal {@code complete} would have thrown ({@code EMQSTALE} when re-claimed).
     */
    ScriptCall<List<ScriptReply<Completion>>> completeBatchCall(List<Settled> done) {
        List<byte[]> args = new ArrayList<>(1 + 3 * done.size());
        args.add(keys.base);
        for (Settled s : done) {
            args.add(bytes(s.id()));
            args.add(num(s.token()));
            args.add(s.result());
        }
        return new ScriptCall<>(Script.COMPLETE_BATCH, List.of(keys.active, keys.pending), args,
                Replies.outcomes(Jobs::completionOf));
    }

    /** A job to complete: its id, claim token and the result a flow parent records. */
    record Settled(String id, long token, byte[] result) {
    }

    private static Completion completionOf(Object reply) {
        return Replies.asLong(reply) == 1 ? Completion.COMPLETED : Completion.GONE;
    }

    /**
     * Settles a claimed job as failed: rescheduled after {@code delay}, or dead-lettered when its
     * attempts reached {@code maxAttempts}. {@code EMQSTALE} when superseded or gone.
     */
    public RetryOutcome retry(String id, long token, Duration delay, long maxAttempts, String error) {
        return wire.eval(retryCall(id, token, delay, maxAttempts, error));
    }

    ScriptCall<RetryOutcome> retryCall(String id, long token, Duration delay, long maxAttempts, String error) {
        return new ScriptCall<>(Script.RETRY,
                List.of(keys.active, keys.schedule, keys.dead, keys.row(id), keys.pending),
                List.of(bytes(id), num(token), num(delay.toMillis()), num(maxAttempts), bytes(error), keys.base),
                Jobs::retryOutcomeOf);
    }

    private static RetryOutcome retryOutcomeOf(Object reply) {
        return "dead".equals(Replies.asText(reply)) ? RetryOutcome.DEAD : RetryOutcome.SCHEDULED;
    }

    /**
     * Delivers up to {@code batch} entries of this queue's {@code flow:outbox} (cross-queue child
     * completions and deaths) to their parents in other queues; see {@link FlowOutbox}.
     */
    public OutboxSweep deliverOutbox(int batch) {
        return outbox.deliver(batch);
    }

    /** A pipeline of this queue's script calls (a consumer's settlements and its next claim). */
    ScriptBatch batch() {
        return wire.batch();
    }

    /** Moves a claimed job to the schedule, due at {@code at}, keeping its attempts; false when gone. */
    public boolean delayUntil(String id, long token, Instant at) {
        return delay(id, token, "at", at.toEpochMilli());
    }

    /** Moves a claimed job to the schedule, due after {@code delay}, keeping its attempts; false when gone. */
    public boolean delayFor(String id, long token, Duration delay) {
        return delay(id, token, "in", delay.toMillis());
    }

    private boolean delay(String id, long token, String mode, long ms) {
        try {
            wire.eval(new ScriptCall<>(Script.DELAY, List.of(keys.row(id), keys.active, keys.schedule),
                    List.of(bytes(id), num(token), bytes(mode), num(ms), keys.base), Replies::ignored));
            return true;
        } catch (EmqWireException.Stale e) {
            if (e.jobGone()) {
                return false;
            }
            throw e;
        }
    }

    // ---- leases and sweeps -----------------------------------------------------------------

    /** Extends one lease; false when the job is gone or its lease already lapsed. {@code EMQSTALE} when re-claimed. */
    public boolean extendLock(String id, long token, Duration lease) {
        return wire.eval(new ScriptCall<>(Script.EXTEND_LOCK, List.of(keys.active, keys.row(id)),
                List.of(bytes(id), num(token), num(lease.toMillis())), Replies::asLong)) == 1;
    }

    /** Extends many leases (id → token) at once; returns the ids NOT extended (re-claimed, gone or lapsed). */
    public Set<String> extendLocks(Map<String, Long> held, Duration lease) {
        Set<String> failed = new LinkedHashSet<>();
        List<Map.Entry<String, Long>> entries = new ArrayList<>(held.entrySet());
        for (int from = 0; from < entries.size(); from += 500) {
            List<byte[]> args = new ArrayList<>();
            args.add(keys.base);
            args.add(num(lease.toMillis()));
            for (Map.Entry<String, Long> e : entries.subList(from, Math.min(entries.size(), from + 500))) {
                args.add(bytes(e.getKey()));
                args.add(num(e.getValue()));
            }
            failed.addAll(wire.eval(new ScriptCall<>(Script.EXTEND_LOCKS, List.of(keys.active), args, Replies::asTextList)));
        }
        return failed;
    }

    /** Moves due scheduled jobs to pending; returns how many moved (at most {@code limit}). */
    public long promote(int limit) {
        return wire.eval(new ScriptCall<>(Script.PROMOTE, List.of(keys.schedule, keys.pending), List.of(keys.base, num(limit)), Replies::asLong));
    }

    public long promote() {
        return promote(SWEEP_LIMIT);
    }

    /** Returns jobs with lapsed leases to pending; returns how many (at most {@code limit}). */
    public long reap(int limit) {
        return wire.eval(new ScriptCall<>(Script.REAP, List.of(keys.active, keys.pending), List.of(keys.base, num(limit)), Replies::asLong));
    }

    public long reap() {
        return reap(SWEEP_LIMIT);
    }

    /** Recovers lapsed leases counting stalls; a job that stalled {@code maxStalled} times is dead-lettered. */
    public StalledSweep sweepStalled(int maxStalled, int limit) {
        List<Object> reply = wire.eval(new ScriptCall<>(Script.SWEEP_STALLED, List.of(keys.active, keys.pending, keys.dead),
                List.of(keys.base, num(maxStalled), num(limit)), Replies::asList));
        return new StalledSweep(Replies.asTextList(reply.get(0)), Replies.asTextList(reply.get(1)));
    }

    // ---- queue-wide control ----------------------------------------------------------------

    public void pause() {
        wire.eval(new ScriptCall<>(Script.QUEUE_PAUSE, List.of(keys.meta), List.of(), Replies::ignored));
    }

    public void resume() {
        wire.eval(new ScriptCall<>(Script.QUEUE_RESUME, List.of(keys.meta), List.of(), Replies::ignored));
    }

    public boolean isPaused() {
        return wire.hget(keys.meta, bytes("paused")) != null;
    }

    /** At most {@code n} jobs active at once (claims answer empty at the ceiling); 0 lifts the limit. */
    public void limitConcurrency(int n) {
        setLimit("concurrency", n);
    }

    /** At most {@code max} claims per {@code window} (claims are refused {@code EMQRATE} beyond); max 0 lifts it. */
    public void limitRate(int max, Duration window) {
        if (window.toMillis() < 1 || max < 0) {
            throw new IllegalArgumentException("a rate limit is at least 0 claims per at least 1 ms, got " + max + " per " + window);
        }
        setLimit("duration", window.toMillis());
        setLimit("max", max);
    }

    private void setLimit(String field, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("a queue limit is at least 0, got " + field + " " + value);
        }
        wire.eval(new ScriptCall<>(Script.QUEUE_LIMIT, List.of(keys.meta), List.of(bytes(field), num(value)), Replies::ignored));
    }

    /** The concurrency gate: {@code EMQRATE} when {@code meta.concurrency} jobs are active, else returns. */
    public void checkNotMaxed() {
        wire.eval(new ScriptCall<>(Script.IS_MAXED, List.of(keys.meta, keys.active), List.of(), Replies::ignored));
    }

    /** How long the rate limit still holds claims off (zero when it does not). */
    public Duration rateLimitTtl() {
        return Duration.ofMillis(wire.eval(new ScriptCall<>(Script.RATE_TTL, List.of(keys.limiter, keys.meta), List.of(num(0)), Replies::asLong)));
    }

    /** The job a dedup id points at ({@code emq:{q}:de:<did>}), if any. */
    public Optional<String> dedupJobId(String dedupId) {
        return Optional.ofNullable(wire.get(keys.dedup(dedupId))).map(Replies::asText);
    }

    /** Deletes every pending job (and every scheduled one when asked); active jobs stay. Returns how many. */
    public long drain(boolean scheduledToo) {
        List<byte[]> sets = scheduledToo ? List.of(keys.pending, keys.schedule) : List.of(keys.pending);
        return wire.eval(new ScriptCall<>(Script.DRAIN, sets, List.of(keys.base), Replies::asLong));
    }

    /**
     * Deletes the paused queue entirely (budgeted calls until done). {@code EMQSTATE} when not
     * paused, or when jobs are active and {@code force} is false.
     */
    public void obliterate(boolean force) {
        List<byte[]> k = List.of(keys.meta, keys.pending, keys.active, keys.schedule, keys.dead);
        List<byte[]> a = List.of(keys.base, bytes(force ? "force" : ""), num(OBLITERATE_BUDGET));
        while (wire.eval(new ScriptCall<>(Script.OBLITERATE, k, a, Replies::asLong)) == 1) {
            // budget spent; the next call continues where this one stopped
        }
    }

    // ---- repeatable jobs ---------------------------------------------------------------------

    /**
     * Registers {@code name} to enqueue {@code template} every {@code every}, the first occurrence
     * {@code firstIn} from the server's clock; false when a registration of that name exists.
     */
    public boolean registerRepeat(String name, Duration every, byte[] template, Duration firstIn) {
        if (every.toMillis() < 1 || firstIn.isNegative()) {
            throw new IllegalArgumentException("a repeat runs every 1 ms or more, first in 0 ms or more: " + every + ", " + firstIn);
        }
        return wire.eval(new ScriptCall<>(Script.REPEAT_REGISTER, List.of(keys.repeat, bytes(keys.keys.repeat(name))),
                List.of(bytes(name), num(every.toMillis()), template, num(firstIn.toMillis())), Replies::asLong)) == 1;
    }

    /** Cancels a registration; false when there was none. */
    public boolean cancelRepeat(String name) {
        return wire.eval(new ScriptCall<>(Script.REPEAT_CANCEL, List.of(keys.repeat, bytes(keys.keys.repeat(name))),
                List.of(bytes(name)), Replies::asLong)) == 1;
    }

    /** Fires up to {@code limit} due occurrences (each exactly once, however many pumps run) and advances them. */
    public List<RepeatFired> fireDueRepeats(int limit) {
        List<byte[]> args = new ArrayList<>(limit + 1);
        args.add(keys.base);
        for (int i = 0; i < limit; i++) {
            args.add(bytes(mintId()));
        }
        List<RepeatFired> out = new ArrayList<>();
        for (Object member : wire.eval(new ScriptCall<>(Script.REPEAT_FIRE, List.of(keys.repeat, keys.pending), args, Replies::asList))) {
            List<Object> f = Replies.asList(member);
            out.add(new RepeatFired(Replies.asText(f.get(0)), Replies.asText(f.get(1)), Long.parseLong(Replies.asText(f.get(2)))));
        }
        return out;
    }

    // ---- one job ---------------------------------------------------------------------------

    public JobState state(String id) {
        return wire.eval(new ScriptCall<>(Script.STATE_LOOKUP,
                List.of(keys.pending, keys.active, keys.schedule, keys.dead, keys.row(id)), List.of(bytes(id), keys.base),
                reply -> JobState.fromWire(Replies.asText(reply))));
    }

    /** Removes a job no worker holds; false when gone; {@code EMQLOCK} while held. */
    public boolean remove(String id) {
        return remove(id, null);
    }

    /** As {@link #remove(String)}, also releasing {@code de:<did>} if it points at this job. */
    public boolean remove(String id, String dedupId) {
        List<byte[]> k = new ArrayList<>(List.of(keys.row(id), keys.rowSub(id, JobSub.LOGS), keys.rowSub(id, JobSub.LOCK),
                keys.pending, keys.active, keys.schedule, keys.dead));
        if (dedupId != null) {
            k.add(keys.dedup(dedupId));
        }
        return wire.eval(new ScriptCall<>(Script.REMOVE_JOB, k, List.of(bytes(id), keys.base), Replies::asLong)) == 1;
    }

    /** Sends a dead job back to the flat pending set (one of a lane too, as the reference does); false when gone; {@code EMQSTATE} when not dead. */
    public boolean reprocess(String id) {
        return wire.eval(new ScriptCall<>(Script.REPROCESS, List.of(keys.row(id), keys.dead, keys.pending),
                List.of(bytes(id)), Replies::asLong)) == 1;
    }

    /** Replaces the payload; false when gone. */
    public boolean updateData(String id, byte[] payload) {
        return wire.eval(new ScriptCall<>(Script.UPDATE_DATA, List.of(keys.row(id)), List.of(payload), Replies::asLong)) == 1;
    }

    /** Records progress and publishes a {@code progress} event on {@code emq:{q}:events}; false when gone. */
    public boolean updateProgress(String id, String progress) {
        return wire.eval(new ScriptCall<>(Script.UPDATE_PROGRESS, List.of(keys.row(id)),
                List.of(bytes(progress), bytes(id), keys.base), Replies::asLong)) == 1;
    }

    /** Appends a log line, keeping the newest {@code keep} (0: all); the kept count, empty when gone. */
    public OptionalLong addLog(String id, String line, int keep) {
        long n = wire.eval(new ScriptCall<>(Script.ADD_LOG, List.of(keys.row(id), keys.rowSub(id, JobSub.LOGS)),
                List.of(bytes(line), bytes(keep > 0 ? Integer.toString(keep) : "")), Replies::asLong));
        return n < 0 ? OptionalLong.empty() : OptionalLong.of(n);
    }

    public List<String> logs(String id) {
        List<String> out = new ArrayList<>();
        for (byte[] line : wire.lrange(keys.rowSub(id, JobSub.LOGS), 0, -1)) {
            out.add(new String(line, StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The job row as stored (field → bytes); empty when absent. */
    public Map<String, byte[]> row(String id) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        wire.hgetAll(keys.row(id)).forEach((f, v) -> out.put(new String(f, StandardCharsets.UTF_8), v));
        return out;
    }

    // ---- reads -----------------------------------------------------------------------------

    /** Every set size and both metrics. */
    public Counts counts() {
        List<Long> n = countsOf(COUNTABLE);
        return new Counts(n.get(0), n.get(1), n.get(2), n.get(3), n.get(4), n.get(5));
    }

    /** The named counts, in the order asked; an unknown name is refused before any wire traffic. */
    public Map<String, Long> counts(List<String> names) {
        List<Long> n = countsOf(names);
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            out.put(names.get(i), n.get(i));
        }
        return out;
    }

    private List<Long> countsOf(Collection<String> names) {
        List<byte[]> sets = new ArrayList<>();
        List<byte[]> metrics = new ArrayList<>();
        metrics.add(keys.base);
        List<String> setNames = new ArrayList<>();
        List<String> metricNames = new ArrayList<>();
        for (String name : names) {
            switch (name) {
                case "pending" -> { sets.add(keys.pending); setNames.add(name); }
                case "active" -> { sets.add(keys.active); setNames.add(name); }
                case "schedule" -> { sets.add(keys.schedule); setNames.add(name); }
                case "dead" -> { sets.add(keys.dead); setNames.add(name); }
                case "completed", "failed" -> { metrics.add(bytes(name)); metricNames.add(name); }
                default -> throw new IllegalArgumentException("unknown state '" + name + "'; known: " + COUNTABLE);
            }
        }
        if (sets.isEmpty()) {
            sets.add(keys.pending);
        }
        List<Object> reply = wire.eval(new ScriptCall<>(Script.COUNTS, sets, metrics, Replies::asList));
        Map<String, Long> byName = new LinkedHashMap<>();
        for (int i = 0; i < setNames.size(); i++) {
            byName.put(setNames.get(i), Replies.asLong(reply.get(i)));
        }
        int offset = sets.size();
        for (int i = 0; i < metricNames.size(); i++) {
            byName.put(metricNames.get(i), Replies.asLong(reply.get(offset + i)));
        }
        List<Long> out = new ArrayList<>();
        for (String name : names) {
            out.add(byName.get(name));
        }
        return out;
    }

    /** What is left to drain; {@code horizon} bounds which scheduled jobs count as due soon. */
    public DrainStatus drainStatus(Duration horizon) {
        List<Object> n = wire.eval(new ScriptCall<>(Script.DRAIN_STATUS, List.of(keys.pending, keys.active, keys.schedule),
                List.of(num(horizon.toMillis()), keys.base), Replies::asList));
        return new DrainStatus(Replies.asLong(n.get(0)), Replies.asLong(n.get(1)), Replies.asLong(n.get(2)),
                Replies.asLong(n.get(3)), Replies.asLong(n.get(4)));
    }

    /** The newest {@code n} pending ids, newest first. */
    public List<String> browse(int n) {
        List<String> out = new ArrayList<>();
        for (byte[] id : wire.lastByLex(keys.pending, n)) {
            out.add(new String(id, StandardCharsets.US_ASCII));
        }
        return out;
    }

    /** Pending ids in serve order (oldest first), at most {@code n}. */
    public List<String> pendingInServeOrder(int n) {
        List<String> out = new ArrayList<>();
        for (byte[] id : wire.zrange(keys.pending, 0, n - 1L)) {
            out.add(new String(id, StandardCharsets.US_ASCII));
        }
        return out;
    }
}
