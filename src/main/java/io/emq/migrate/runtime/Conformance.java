package io.emq.migrate.runtime;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Names;
import io.emq.migrate.keyspace.SnowflakeMinter;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.VersionFence;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.UnifiedJedis;

/**
 * The wire-level conformance scenarios of the v2 protocol (§9) that this runtime covers. Each runs
 * on its own sub-queue {@code <prefix>.<name>}, drives the public verbs (and raw commands where a
 * scenario needs to look underneath), and deletes everything it wrote afterwards.
 */
public final class Conformance {

    /** One scenario's verdict. */
    public record Verdict(String name, boolean ok, String why) {
        public String line() {
            return ok ? "CONF " + name + " ok" : "CONF " + name + " FAIL " + why;
        }
    }

    private interface Body {
        void run(Ctx c) throws Exception;
    }

    private record Scenario(String name, Body body) {
    }

    private static final class Failed extends RuntimeException {
        Failed(String why) {
            super(why);
        }
    }

    private final Wire wire;
    private final String prefix;
    private final SnowflakeMinter minter = new SnowflakeMinter(1023);
    private final List<Scenario> scenarios = new ArrayList<>();

    /** Scenarios over {@code wire}, on sub-queues named {@code prefix.<scenario>}. */
    /** The longest prefix of the scenario queues: room is left for {@code .<scenario>} and a second queue's {@code .<suffix>}. */
    public static final int MOST_PREFIX = 64;

    /** Why {@code prefix} cannot begin the scenario queues' names (each {@code <prefix>.<scenario>} a v2 queue name); empty when it can. */
    public static Optional<String> prefixProblem(String prefix) {
        return Names.queueNameProblem(prefix).or(() -> prefix.length() > MOST_PREFIX ? Optional.of("a prefix of "
                + prefix.length() + " characters is too long: the scenarios add their names to it, and a v2 queue name has at"
                + " most 128 (give at most " + MOST_PREFIX + ")") : Optional.empty());
    }

    public Conformance(Wire wire, String prefix) {
        this.wire = wire;
        this.prefix = prefix;
        define();
    }

    /** The scenario names, in run order. */
    public List<String> names() {
        return scenarios.stream().map(Scenario::name).toList();
    }

    /** Runs every scenario, printing one {@code CONF} line each as it finishes, then the total line. */
    public List<Verdict> run(PrintStream out) {
        List<Verdict> verdicts = new ArrayList<>();
        for (Scenario s : scenarios) {
            Verdict v = runOne(s);
            out.println(v.line());
            out.flush();
            verdicts.add(v);
        }
        out.println("CONFORMANCE " + verdicts.stream().filter(Verdict::ok).count() + "/" + verdicts.size());
        return verdicts;
    }

    private Verdict runOne(Scenario s) {
        Ctx c = new Ctx(prefix + "." + s.name());
        try {
            c.purge();
            s.body().run(c);
            return new Verdict(s.name(), true, "");
        } catch (Failed f) {
            return new Verdict(s.name(), false, f.getMessage());
        } catch (Exception | AssertionError e) {
            return new Verdict(s.name(), false, e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            try {
                c.purge();
            } catch (RuntimeException ignored) {
                // a purge failure after a failed scenario must not hide the verdict
            }
        }
    }

    // ---- the scenario context --------------------------------------------------------------

    private final class Ctx {
        final Jobs jobs;
        final Keys keys;
        final UnifiedJedis redis;
        final Set<String> touched = new LinkedHashSet<>();
        final Set<String> extraKeys = new LinkedHashSet<>();
        final List<Ctx> others = new ArrayList<>();
        final AtomicInteger n = new AtomicInteger();

        final Lanes lanes;
        final Flows flows;

        Ctx(String queue) {
            this.jobs = Jobs.on(wire, queue, minter);
            this.keys = Keys.queue(queue);
            this.redis = wire.client();
            this.lanes = Lanes.of(wire, jobs);
            this.flows = Flows.on(wire, minter);
        }

        /** A lane's group id, {@code GRP} + n. */
        String group(int n) {
            return new BrandedId("GRP", n).toString();
        }

        /** Admits {@code n} jobs into lane {@code group}; their ids in admission order. */
        List<String> laneFill(String group, int n) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String id = fresh();
                check(lanes.enqueue(group, id, bytes(group + "-" + i)).admitted(), "lane enqueue of " + id);
                ids.add(id);
            }
            return ids;
        }

        LaneClaim laneClaim() {
            return lanes.claim(LEASE).orElseThrow(() -> new Failed("lane claim answered empty with lanes on the ring"));
        }

        /** Completes a lane claim, if there was one. */
        void laneSettle(Optional<LaneClaim> claim) {
            claim.ifPresent(lc -> jobs.complete(lc.claim().id(), lc.claim().token()));
        }

        /** Admits a flow tree whose nodes all live in this queue or its {@link #other} queues, tracked for the purge. */
        AdmittedFlow flow(FlowNode root) {
            AdmittedFlow f = flows.add(root);
            track(f);
            return f;
        }

        private void track(AdmittedFlow f) {
            touched.add(f.id());
            f.children().forEach(this::track);
        }

        String fresh() {
            String id = jobs.mintId();
            touched.add(id);
            return id;
        }

        String enqueue(String payload) {
            String id = fresh();
            check(jobs.enqueue(id, bytes(payload)).admitted(), "enqueue of " + id + " was not admitted");
            return id;
        }

        /** A second queue {@code <this queue>.<suffix>} (its own hashtag), purged with this one. */
        Ctx other(String suffix) {
            Ctx other = new Ctx(jobs.queue() + "." + suffix);
            others.add(other);
            return other;
        }

        /** A flow parent held in no set, awaiting {@code children}. */
        String hold(String payload, int children) {
            String id = fresh();
            redis.hset(row(id), Map.of("state", "awaiting_children", "attempts", "0", "payload", payload));
            redis.set(sub(id, JobSub.DEPENDENCIES), Integer.toString(children));
            return id;
        }

        /** A pending child of {@code parent}, which lives in {@code parentQueue}, failing it by {@code policy}. */
        String child(String payload, Ctx parentQueue, String parent, String policy) {
            String id = enqueue(payload);
            redis.hset(row(id), Map.of("parent", parent, "parent_queue", parentQueue.jobs.queue(), "parent_policy", policy));
            return id;
        }

        String sub(String id, JobSub sub) {
            return keys.job(BrandedId.of(id), sub);
        }

        /** Delivers this queue's flow outbox once; the outcome of each entry taken. */
        List<FlowDelivery> deliver() {
            return jobs.deliverOutbox(100).outcomes();
        }

        Claim claim(Duration lease) {
            return jobs.claim(lease).orElseThrow(() -> new Failed("claim answered empty with jobs pending"));
        }

        String row(String id) {
            return keys.job(BrandedId.of(id));
        }

        String field(String id, String field) {
            return redis.hget(row(id), field);
        }

        void purge() {
            jobs.pause();
            jobs.obliterate(true);
            for (String id : touched) {
                BrandedId b = BrandedId.of(id);
                List<String> k = new ArrayList<>();
                k.add(keys.job(b));
                for (JobSub sub : JobSub.values()) {
                    k.add(keys.job(b, sub));
                }
                for (String key : k) {
                    redis.del(key);
                }
            }
            for (String key : extraKeys) {
                redis.del(key);
            }
            for (Ctx other : others) {
                other.purge();
            }
        }
    }

    private static void check(boolean ok, String why) {
        if (!ok) {
            throw new Failed(why);
        }
    }

    private static void equal(Object expected, Object actual, String what) {
        if (!java.util.Objects.equals(expected, actual)) {
            throw new Failed(what + ": expected " + expected + ", got " + actual);
        }
    }

    private static <E extends EmqWireException> E refused(Class<E> type, Runnable action, String what) {
        try {
            action.run();
        } catch (EmqWireException e) {
            if (type.isInstance(e)) {
                return type.cast(e);
            }
            throw new Failed(what + ": expected " + type.getSimpleName() + ", got " + e.getMessage());
        }
        throw new Failed(what + ": expected " + type.getSimpleName() + " refusal, got success");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private static void sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    private static final Duration LEASE = Duration.ofSeconds(30);

    private void scenario(String name, Body body) {
        scenarios.add(new Scenario(name, body));
    }

    // ---- the scenarios ---------------------------------------------------------------------

    private void define() {
        scenario("fence", c -> equal(wire.version(), c.redis.get(VersionFence.KEY), "{emq}:version"));

        scenario("mint", c -> {
            String id = c.enqueue("p-mint");
            check(id.startsWith("JOB") && BrandedId.isValid(id), "minted id " + id + " is not a JOB branded id");
            Map<String, String> row = c.redis.hgetAll(c.row(id));
            equal(Map.of("state", "pending", "attempts", "0", "payload", "p-mint"), row, "row");
        });

        scenario("duplicate", c -> {
            String id = c.enqueue("first");
            check(c.jobs.enqueue(id, bytes("second")).duplicate(), "second enqueue was not a duplicate");
            equal("first", c.field(id, "payload"), "payload after duplicate");
        });

        scenario("kind", c -> {
            String ord = minter.mint("ORD").toString();
            c.touched.add(ord);
            refused(EmqWireException.Kind.class, () -> c.jobs.enqueue(ord, bytes("x")), "ORD enqueue");
            check(!c.redis.exists(c.row(ord)), "a row exists for the refused ORD id");
        });

        scenario("order", c -> {
            String a = c.enqueue("a");
            String b = c.enqueue("b");
            String d = c.enqueue("c");
            equal(List.of(d, b, a), c.jobs.browse(3), "browse newest-first");
        });

        scenario("claim", c -> {
            String id = c.enqueue("p-claim");
            Claim cl = c.claim(LEASE);
            equal(id, cl.id(), "claimed id");
            equal("p-claim", text(cl.payload()), "claimed payload");
            equal(1L, cl.token(), "token");
            equal("active", c.field(id, "state"), "row state");
        });

        scenario("stale", c -> {
            String id = c.enqueue("p");
            Claim cl = c.claim(LEASE);
            c.redis.scriptFlush(bytes(c.keys.pending()));
            refused(EmqWireException.Stale.class, () -> c.jobs.complete(id, 99), "complete with token 99 after SCRIPT FLUSH");
            equal(Completion.COMPLETED, c.jobs.complete(id, cl.token()), "complete with token 1");
        });

        scenario("complete", c -> {
            String id = c.enqueue("p");
            Claim cl = c.claim(LEASE);
            equal(Completion.COMPLETED, c.jobs.complete(id, cl.token()), "complete");
            check(!c.redis.exists(c.row(id)), "row survived completion");
            equal(0L, c.redis.zcard(c.keys.active()), "active size");
            equal(Completion.GONE, c.jobs.complete(id, cl.token()), "second complete");
        });

        scenario("retry", c -> {
            String id = c.enqueue("p");
            Claim cl = c.claim(LEASE);
            equal(RetryOutcome.SCHEDULED, c.jobs.retry(id, cl.token(), Duration.ofMillis(30), 3, "boom"), "retry");
            equal("scheduled", c.field(id, "state"), "state");
            equal("boom", c.field(id, "last_error"), "last_error");
            check(c.jobs.claim(LEASE).isEmpty(), "a retried job was claimable before its delay");
            sleep(60);
            equal(1L, c.jobs.promote(), "promoted");
            equal(2L, c.claim(LEASE).token(), "next claim's token");
        });

        scenario("dead", c -> {
            String id = c.enqueue("p");
            Claim cl = c.claim(LEASE);
            equal(RetryOutcome.DEAD, c.jobs.retry(id, cl.token(), Duration.ZERO, 1, "fatal"), "retry at max 1");
            equal("fatal", c.field(id, "last_error"), "last_error");
            equal("dead", c.field(id, "state"), "state");
            check(c.redis.zscore(c.keys.dead(), id) != null, "id not listed in dead");
        });

        scenario("reap", c -> {
            String id = c.enqueue("p");
            c.claim(Duration.ofMillis(30));
            sleep(60);
            equal(1L, c.jobs.reap(), "reaped");
            equal("pending", c.field(id, "state"), "state after reap");
            equal(2L, c.claim(LEASE).token(), "re-claim token");
        });

        scenario("schedule", c -> {
            String id = c.fresh();
            check(c.jobs.enqueueIn(id, bytes("later"), Duration.ofMillis(80)).admitted(), "schedule not admitted");
            equal("scheduled", c.field(id, "state"), "state");
            check(c.jobs.claim(LEASE).isEmpty(), "a scheduled job was claimable before due");
            equal(0L, c.jobs.promote(), "promoted before due");
            sleep(120);
            equal(1L, c.jobs.promote(), "promoted when due");
            equal(id, c.claim(LEASE).id(), "claimed after promotion");
        });

        scenario("backoff", c -> {
            String id = c.enqueue("poison");
            AtomicInteger calls = new AtomicInteger();
            Consumer consumer = Consumer.on(c.jobs, job -> {
                calls.incrementAndGet();
                throw new IllegalStateException("poison " + job.attempts());
            }).maxAttempts(3).beat(Duration.ofMillis(10))
                    .backoff(Backoff.fullJitter(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(20))))
                    .build();
            ConsumerStats stats = consumer.runUntilEmpty();
            equal(3, calls.get(), "handler calls");
            equal(1L, stats.dead(), "dead count");
            equal(2L, stats.retried(), "retried count");
            equal("dead", c.field(id, "state"), "state");
            equal("3", c.field(id, "attempts"), "attempts");
            equal("poison 3", c.field(id, "last_error"), "last_error");
        });

        scenario("counts", c -> {
            for (String p : List.of("a", "b", "c", "d")) {
                c.enqueue(p);
            }
            Claim first = c.claim(LEASE);
            c.jobs.retry(first.id(), first.token(), Duration.ZERO, 1, "x");
            c.claim(LEASE);
            c.jobs.enqueueIn(c.fresh(), bytes("s"), Duration.ofHours(1));
            Counts n = c.jobs.counts();
            equal(c.redis.zcard(c.keys.pending()), n.pending(), "pending");
            equal(c.redis.zcard(c.keys.active()), n.active(), "active");
            equal(c.redis.zcard(c.keys.schedule()), n.scheduled(), "schedule");
            equal(c.redis.zcard(c.keys.dead()), n.dead(), "dead");
            equal(List.of(2L, 1L, 1L, 1L), List.of(n.pending(), n.active(), n.scheduled(), n.dead()), "sizes");
            equal(Map.of("dead", 1L, "failed", 1L), c.jobs.counts(List.of("dead", "failed")), "named counts");
            try {
                c.jobs.counts(List.of("pending", "waiting"));
                throw new Failed("unknown state name 'waiting' was accepted");
            } catch (IllegalArgumentException expected) {
                check(expected.getMessage().contains("waiting"), "error does not name the state");
            }
        });

        scenario("state", c -> {
            String p = c.enqueue("p");
            String a = c.enqueue("a");
            equal(JobState.PENDING, c.jobs.state(p), "pending job");
            c.claim(LEASE);
            equal(JobState.ACTIVE, c.jobs.state(p), "claimed job");
            c.jobs.retry(p, 1, Duration.ofHours(1), 3, "later");
            equal(JobState.SCHEDULED, c.jobs.state(p), "retried job");
            c.claim(LEASE);
            c.jobs.retry(a, 1, Duration.ZERO, 1, "dead");
            equal(JobState.DEAD, c.jobs.state(a), "dead job");
            equal(JobState.ABSENT, c.jobs.state(c.fresh()), "missing job");
        });

        scenario("metrics", c -> {
            String id = c.enqueue("p");
            long before = c.jobs.counts().completed();
            Claim cl = c.claim(LEASE);
            c.jobs.complete(id, cl.token());
            equal(before + 1, c.jobs.counts().completed(), "metrics:completed count");
            equal(String.valueOf(before + 1), c.redis.hget(c.keys.metricsCompleted(), "count"), "raw count");
        });

        scenario("queue_pause", c -> {
            String head = c.enqueue("a");
            c.enqueue("b");
            c.jobs.pause();
            check(c.jobs.isPaused(), "meta.paused not set");
            check(c.jobs.claim(LEASE).isEmpty(), "claim served a paused queue");
            check(c.jobs.claimBatch(LEASE, 5).isEmpty(), "batch claim served a paused queue");
            equal(2L, c.redis.zcard(c.keys.pending()), "pending while paused");
            c.jobs.resume();
            equal(head, c.claim(LEASE).id(), "head after resume");
        });

        scenario("drain", c -> {
            c.enqueue("a");
            Claim held = c.claim(LEASE);
            String p1 = c.enqueue("p1");
            String p2 = c.enqueue("p2");
            c.jobs.addLog(p1, "line", 0);
            String s = c.fresh();
            c.jobs.enqueueIn(s, bytes("s"), Duration.ofHours(1));
            equal(2L, c.jobs.drain(false), "drained");
            equal(0L, c.redis.zcard(c.keys.pending()), "pending after drain");
            check(!c.redis.exists(c.row(p1)) && !c.redis.exists(c.row(p2)), "drained rows survived");
            check(!c.redis.exists(c.keys.job(BrandedId.of(p1), JobSub.LOGS)), "drained logs survived");
            equal(1L, c.redis.zcard(c.keys.active()), "active after drain");
            check(c.redis.exists(c.row(held.id())), "active row was deleted");
            equal(1L, c.redis.zcard(c.keys.schedule()), "schedule kept when not asked");
            equal(1L, c.jobs.drain(true), "drained with the schedule");
        });

        scenario("obliterate", c -> {
            c.enqueue("a");
            Claim held = c.claim(LEASE);
            String p = c.enqueue("p");
            c.jobs.addLog(p, "l", 0);
            String d = c.enqueue("d");
            Claim dying = c.claim(LEASE);
            c.jobs.retry(dying.id(), dying.token(), Duration.ZERO, 1, "x");
            refused(EmqWireException.State.class, () -> c.jobs.obliterate(false), "obliterate of an unpaused queue");
            c.jobs.pause();
            EmqWireException.State active = refused(EmqWireException.State.class, () -> c.jobs.obliterate(false),
                    "obliterate with active jobs");
            check(active.getMessage().contains("active"), "refusal does not say active: " + active.getMessage());
            c.jobs.obliterate(true);
            for (String key : List.of(c.keys.pending(), c.keys.active(), c.keys.schedule(), c.keys.dead(),
                    c.keys.meta(), c.keys.metricsCompleted(), c.row(p), c.row(held.id()), c.row(d),
                    c.keys.job(BrandedId.of(p), JobSub.LOGS))) {
                check(!c.redis.exists(key), key + " survived obliterate");
            }
        });

        scenario("update_data", c -> {
            String id = c.enqueue("old");
            check(c.jobs.updateData(id, bytes("new")), "update_data on a live job");
            equal("new", c.field(id, "payload"), "payload");
            check(!c.jobs.updateData(c.fresh(), bytes("x")), "update_data of a missing job did not answer gone");
        });

        scenario("update_progress", c -> {
            String id = c.enqueue("p");
            check(c.jobs.updateProgress(id, "42"), "update_progress on a live job");
            equal("42", c.field(id, "progress"), "progress field");
            check(!c.jobs.updateProgress(c.fresh(), "1"), "update_progress of a missing job did not answer gone");
        });

        scenario("job_logs", c -> {
            String id = c.enqueue("p");
            equal(1L, c.jobs.addLog(id, "one", 2).orElseThrow(), "kept after one");
            equal(2L, c.jobs.addLog(id, "two", 2).orElseThrow(), "kept after two");
            equal(2L, c.jobs.addLog(id, "three", 2).orElseThrow(), "kept after three");
            equal(List.of("two", "three"), c.jobs.logs(id), "logs");
            check(c.jobs.addLog(c.fresh(), "x", 0).isEmpty(), "add_log of a missing job did not answer gone");
        });

        scenario("remove_job", c -> {
            String free = c.enqueue("free");
            check(c.jobs.remove(free), "remove of an unlocked job");
            equal(JobState.ABSENT, c.jobs.state(free), "state after remove");
            String locked = c.enqueue("locked");
            String lockKey = c.keys.job(BrandedId.of(locked), JobSub.LOCK);
            c.redis.set(lockKey, "1");
            refused(EmqWireException.Lock.class, () -> c.jobs.remove(locked), "remove of a locked job");
            equal(JobState.PENDING, c.jobs.state(locked), "locked job after refusal");
            c.redis.del(lockKey);
            Claim held = c.claim(LEASE);
            refused(EmqWireException.Lock.class, () -> c.jobs.remove(held.id()), "remove of a job under lease");
            equal("active", c.field(held.id(), "state"), "leased job after refusal");
            check(!c.jobs.remove(c.fresh()), "remove of a missing job did not answer gone");
        });

        scenario("dedup_release", c -> {
            String id = c.enqueue("p");
            String other = c.fresh();
            String mine = c.keys.dedup("order-1");
            String orphan = c.keys.dedup("order-2");
            c.extraKeys.addAll(List.of(mine, orphan));
            c.redis.set(mine, id);
            c.redis.set(orphan, other);
            check(c.jobs.remove(id, "order-1"), "remove with dedup id");
            check(!c.redis.exists(mine), "de: key pointing at the job survived");
            String id2 = c.enqueue("q");
            check(c.jobs.remove(id2, "order-2"), "remove with a foreign dedup id");
            equal(other, c.redis.get(orphan), "de: key pointing elsewhere");
        });

        scenario("reprocess_job", c -> {
            String id = c.enqueue("p");
            Claim cl = c.claim(LEASE);
            c.jobs.retry(id, cl.token(), Duration.ZERO, 1, "fatal");
            check(c.jobs.reprocess(id), "reprocess of a dead job");
            equal("pending", c.field(id, "state"), "state");
            check(c.field(id, "last_error") == null, "last_error kept");
            check(c.redis.zscore(c.keys.dead(), id) == null, "still in dead");
            refused(EmqWireException.State.class, () -> c.jobs.reprocess(id), "reprocess of a pending job");
            equal(JobState.PENDING, c.jobs.state(id), "state after refusal");
            equal(2L, c.claim(LEASE).token(), "attempts continue after reprocess");
        });

        scenario("lock_extend", c -> {
            String id = c.enqueue("p");
            Claim cl = c.claim(Duration.ofMillis(100));
            sleep(40);
            check(c.jobs.extendLock(id, cl.token(), Duration.ofMillis(400)), "extend of a held lease");
            sleep(110);
            equal(0L, c.jobs.reap(), "reaped past the first deadline");
            equal(JobState.ACTIVE, c.jobs.state(id), "state after the first deadline");
            refused(EmqWireException.Stale.class, () -> c.jobs.extendLock(id, cl.token() + 1, LEASE),
                    "extend with a stale token");
            check(!c.jobs.extendLock(c.fresh(), 1, LEASE), "extend of a missing job did not answer gone");
        });

        scenario("stalled", c -> {
            String id = c.enqueue("p");
            c.claim(Duration.ofMillis(20));
            sleep(40);
            StalledSweep first = c.jobs.sweepStalled(2, 100);
            equal(List.of(id), first.recovered(), "recovered below the threshold");
            equal(JobState.PENDING, c.jobs.state(id), "state after recovery");
            c.claim(Duration.ofMillis(20));
            sleep(40);
            StalledSweep second = c.jobs.sweepStalled(2, 100);
            equal(List.of(id), second.dead(), "dead-lettered at the threshold");
            equal("stalled", c.field(id, "last_error"), "last_error");
            equal(JobState.DEAD, c.jobs.state(id), "state");
        });

        scenario("unknown_state", c -> {
            String id = c.fresh();
            c.redis.hset(c.row(id), Map.of("state", "pending", "attempts", "0", "payload", "p"));
            equal(JobState.UNKNOWN, c.jobs.state(id), "row in no set");
        });

        scenario("extend_locks_batch", c -> {
            String live = c.enqueue("live");
            String stale = c.enqueue("stale");
            Claim l = c.claim(LEASE);
            Claim s = c.claim(LEASE);
            String gone = c.fresh();
            Map<String, Long> held = new LinkedHashMap<>();
            held.put(live, l.token());
            held.put(stale, s.token() + 1);
            held.put(gone, 1L);
            equal(Set.of(stale, gone), c.jobs.extendLocks(held, LEASE), "ids not extended");
        });

        scenario("batch_claim", c -> {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ids.add(c.enqueue("b" + i));
            }
            List<Claim> batch = c.jobs.claimBatch(LEASE, 4);
            equal(ids.subList(0, 4), batch.stream().map(Claim::id).toList(), "batch ids in mint order");
            check(batch.stream().allMatch(b -> b.token() == 1), "attempts not all 1");
            equal("b2", text(batch.get(2).payload()), "payload of the third");
            Set<Double> leases = new LinkedHashSet<>();
            for (Claim b : batch) {
                leases.add(c.redis.zscore(c.keys.active(), b.id()));
            }
            equal(1, leases.size(), "distinct lease deadlines");
        });

        scenario("batch_claim_short", c -> {
            c.enqueue("a");
            c.enqueue("b");
            c.enqueue("c");
            equal(2, c.jobs.claimBatch(LEASE, 2).size(), "under-fill");
            equal(1, c.jobs.claimBatch(LEASE, 10).size(), "oversize returns the depth");
            equal(0, c.jobs.claimBatch(LEASE, 5).size(), "empty");
            c.enqueue("d");
            c.jobs.pause();
            equal(0, c.jobs.claimBatch(LEASE, 5).size(), "paused");
        });

        scenario("batch_partial_failure", c -> {
            c.enqueue("a");
            String mid = c.enqueue("b");
            c.enqueue("c");
            List<Claim> batch = c.jobs.claimBatch(LEASE, 3);
            for (Claim b : batch) {
                if (b.id().equals(mid)) {
                    c.jobs.retry(b.id(), b.token(), Duration.ZERO, 3, "one failed");
                } else {
                    c.jobs.complete(b.id(), b.token());
                }
            }
            c.jobs.promote();
            List<Claim> next = c.jobs.claimBatch(LEASE, 3);
            equal(List.of(mid), next.stream().map(Claim::id).toList(), "next batch");
            equal(2L, next.get(0).token(), "its attempts");
        });

        scenario("batch_delay", c -> {
            String id = c.enqueue("p");
            Claim cl = c.jobs.claimBatch(LEASE, 1).get(0);
            check(c.jobs.delayFor(id, cl.token(), Duration.ofMillis(30)), "delay of a held job");
            equal("scheduled", c.field(id, "state"), "state");
            equal("1", c.field(id, "attempts"), "attempts preserved");
            equal(0L, c.redis.zcard(c.keys.active()), "active after delay");
            sleep(60);
            equal(1L, c.jobs.promote(), "promoted");
            equal(2L, c.claim(LEASE).token(), "next token");
        });

        scenario("batch_delay_stale", c -> {
            String id = c.enqueue("p");
            Claim old = c.claim(Duration.ofMillis(10));
            sleep(30);
            c.jobs.reap();
            Claim now = c.claim(LEASE);
            refused(EmqWireException.Stale.class, () -> c.jobs.delayFor(id, old.token(), Duration.ofMillis(5)),
                    "delay with a superseded token");
            equal(JobState.ACTIVE, c.jobs.state(id), "new owner's job after the refusal");
            check(now.token() == 2, "re-claim token");
            check(!c.jobs.delayFor(c.fresh(), 1, Duration.ofMillis(5)), "delay of a missing job did not answer gone");
        });

        scenario("zombie", c -> {
            String id = c.enqueue("z");
            Claim zombie = c.claim(Duration.ofMillis(10));
            sleep(30);
            equal(1L, c.jobs.reap(), "reaped");
            Claim owner = c.claim(LEASE);
            refused(EmqWireException.Stale.class, () -> c.jobs.complete(id, zombie.token()), "zombie complete");
            refused(EmqWireException.Stale.class,
                    () -> c.jobs.retry(id, zombie.token(), Duration.ZERO, 1, "zombie"), "zombie retry");
            equal("active", c.field(id, "state"), "owner's state");
            equal("2", c.field(id, "attempts"), "owner's token");
            check(c.field(id, "last_error") == null, "zombie wrote last_error");
            equal(Completion.COMPLETED, c.jobs.complete(id, owner.token()), "owner completes");
        });

        scenario("flow_fanin", c -> {
            String parent = c.hold("parent", 2);
            List<String> kids = List.of(c.enqueue("k1"), c.enqueue("k2"));
            for (String k : kids) {
                c.redis.hset(c.row(k), "parent", parent);
            }
            Claim first = c.claim(LEASE);
            c.jobs.complete(first.id(), first.token());
            equal(JobState.AWAITING_CHILDREN, c.jobs.state(parent), "parent after one of two children");
            Claim second = c.claim(LEASE);
            equal(kids.get(1), second.id(), "second child claimed before the parent");
            c.jobs.complete(second.id(), second.token());
            equal(JobState.PENDING, c.jobs.state(parent), "parent after the last child");
            equal(Set.copyOf(kids), c.redis.hkeys(c.keys.job(BrandedId.of(parent), JobSub.PROCESSED)), "processed");
            equal(parent, c.claim(LEASE).id(), "parent claimable");
        });

        scenario("flow_cross_queue", c -> {
            Ctx p = c.other("parent");
            String parent = p.hold("parent", 2);
            String k1 = c.child("k1", p, parent, "fp");
            String k2 = c.child("k2", p, parent, "fp");
            Claim first = c.claim(LEASE);
            c.jobs.complete(first.id(), first.token(), bytes("r1"));
            equal(1L, c.redis.llen(c.keys.flowOutbox()), "child queue's outbox after the first child");
            equal(JobState.AWAITING_CHILDREN, p.jobs.state(parent), "parent before the sweep");
            String entry = c.redis.lindex(c.keys.flowOutbox(), 0);
            equal(List.of(FlowDelivery.RECORDED), c.deliver(), "first sweep");
            c.redis.rpush(c.keys.flowOutbox(), entry);
            equal(List.of(FlowDelivery.REPEATED), c.deliver(), "re-delivery (a deliverer died before its trim)");
            equal("1", c.redis.get(p.sub(parent, JobSub.DEPENDENCIES)), "dependencies after the re-delivery");
            Claim second = c.claim(LEASE);
            c.jobs.complete(second.id(), second.token(), bytes("r2"));
            equal(JobState.AWAITING_CHILDREN, p.jobs.state(parent), "parent held until the sweep");
            equal(List.of(FlowDelivery.RELEASED), c.deliver(), "second sweep");
            equal(Map.of(k1, "r1", k2, "r2"), c.redis.hgetAll(p.sub(parent, JobSub.PROCESSED)), "processed");
            equal(0L, c.redis.llen(c.keys.flowOutbox()), "outbox after delivery");
            equal(parent, p.claim(LEASE).id(), "parent claimable in its own queue");
        });

        scenario("flow_fail_parent", c -> {
            String same = c.hold("same", 1);
            c.child("s1", c, same, "fp");
            Claim s1 = c.claim(LEASE);
            equal(RetryOutcome.DEAD, c.jobs.retry(s1.id(), s1.token(), Duration.ZERO, 1, "s1 broke"), "same-queue child");
            equal(JobState.DEAD, c.jobs.state(same), "same-queue parent at its child's death");
            Ctx p = c.other("parent");
            String cross = p.hold("cross", 2);
            String x1 = c.child("x1", p, cross, "fp");
            String x2 = c.child("x2", p, cross, "fp");
            Claim first = c.claim(LEASE);
            c.jobs.retry(first.id(), first.token(), Duration.ZERO, 1, "x1 broke");
            equal(JobState.AWAITING_CHILDREN, p.jobs.state(cross), "cross-queue parent before the sweep");
            String entry = c.redis.lindex(c.keys.flowOutbox(), 0);
            equal(List.of(FlowDelivery.PARENT_DEAD), c.deliver(), "first sweep");
            c.redis.rpush(c.keys.flowOutbox(), entry);
            equal(List.of(FlowDelivery.REPEATED), c.deliver(), "re-delivery");
            Claim second = c.claim(LEASE);
            c.jobs.retry(second.id(), second.token(), Duration.ZERO, 1, "x2 broke");
            equal(List.of(FlowDelivery.RECORDED), c.deliver(), "a second child's death");
            equal(JobState.DEAD, p.jobs.state(cross), "cross-queue parent");
            equal(1L, p.jobs.counts().failed(), "parent queue's metrics:failed");
            equal(Map.of(x1, "x1 broke", x2, "x2 broke"), c.redis.hgetAll(p.sub(cross, JobSub.FAILED)), "failed");
        });

        scenario("flow_ignore_dep", c -> {
            Ctx p = c.other("parent");
            String parent = p.hold("parent", 2);
            String bad = c.child("bad", p, parent, "id");
            String good = c.child("good", p, parent, "fp");
            Claim first = c.claim(LEASE);
            c.jobs.retry(first.id(), first.token(), Duration.ZERO, 1, "ignored");
            equal(List.of(FlowDelivery.RECORDED), c.deliver(), "the ignored child's death");
            equal("1", c.redis.get(p.sub(parent, JobSub.DEPENDENCIES)), "dependencies after it");
            Claim second = c.claim(LEASE);
            c.jobs.complete(second.id(), second.token(), bytes("fine"));
            equal(List.of(FlowDelivery.RELEASED), c.deliver(), "the last child's completion");
            equal(Map.of(bad, "ignored"), c.redis.hgetAll(p.sub(parent, JobSub.UNSUCCESSFUL)), "unsuccessful");
            equal(Map.of(good, "fine"), c.redis.hgetAll(p.sub(parent, JobSub.PROCESSED)), "processed");
            equal(parent, p.claim(LEASE).id(), "parent proceeds");
        });

        // ---- lanes ---------------------------------------------------------------------------

        scenario("rotate", c -> {
            String a = c.group(1);
            String b = c.group(2);
            c.laneFill(a, 2);
            c.laneFill(b, 2);
            List<String> served = new ArrayList<>();
            for (Optional<LaneClaim> lc = c.lanes.claim(LEASE); lc.isPresent(); lc = c.lanes.claim(LEASE)) {
                served.add(lc.get().group());
            }
            equal(List.of(a, b, a, b), served, "lanes served");
        });

        scenario("pause", c -> {
            String a = c.group(1);
            String b = c.group(2);
            c.laneFill(a, 2);
            c.laneFill(b, 1);
            c.lanes.pause(a);
            equal(List.of(b), c.lanes.ring(), "ring with a paused");
            equal(2L, c.lanes.depth(a), "paused backlog");
            equal(b, c.laneClaim().group(), "the other lane still served");
            check(c.lanes.claim(LEASE).isEmpty(), "a paused lane was served");
            c.lanes.resume(a);
            equal(a, c.laneClaim().group(), "served after resume");
        });

        scenario("limit", c -> {
            String a = c.group(1);
            c.laneFill(a, 3);
            c.lanes.limit(a, 1);
            LaneClaim held = c.laneClaim();
            check(c.lanes.claim(LEASE).isEmpty(), "a lane at its limit was served");
            c.jobs.complete(held.claim().id(), held.claim().token());
            equal(a, c.laneClaim().group(), "served after the complete");
        });

        scenario("lane_depth", c -> {
            String a = c.group(1);
            String b = c.group(2);
            c.laneFill(a, 3);
            c.laneFill(b, 1);
            equal(Map.of(a, 3L, b, 1L, c.group(3), 0L), c.lanes.depths(List.of(a, b, c.group(3))), "depths");
            c.laneClaim();
            equal(2L, c.lanes.depth(a), "depth after a claim");
        });

        scenario("stalled_group", c -> {
            String a = c.group(1);
            String id = c.laneFill(a, 1).get(0);
            c.lanes.claim(Duration.ofMillis(10));
            sleep(30);
            StalledSweep s = c.jobs.sweepStalled(3, 100);
            equal(List.of(id), s.recovered(), "recovered");
            equal(1L, c.lanes.depth(a), "in its lane");
            equal(0L, c.redis.zcard(c.keys.pending()), "flat pending");
            check(c.redis.hget(c.keys.base() + "gactive", a) == null, "gactive given back");
        });

        scenario("obliterate_grouped", c -> {
            String a = c.group(1);
            String id = c.laneFill(a, 1).get(0);
            c.jobs.pause();
            c.jobs.obliterate(false);
            check(!c.redis.exists(c.row(id)), "a grouped row leaked");
            equal(0L, c.lanes.depth(a), "lane");
        });

        scenario("reassign", c -> {
            String a = c.group(1);
            String b = c.group(2);
            String id = c.laneFill(a, 1).get(0);
            c.lanes.limit(b, 1);
            equal(Reassignment.REASSIGNED, c.lanes.reassign(id, b), "reassign");
            equal(b, c.field(id, "group"), "row group");
            equal(0.0, c.redis.zscore(c.keys.base() + "g:" + b + ":pending", id), "score in the destination");
            LaneClaim lc = c.laneClaim();
            equal(b, lc.group(), "claimed from");
            equal("1", c.redis.hget(c.keys.base() + "gactive", b), "destination charged");
            check(c.redis.hget(c.keys.base() + "gactive", a) == null, "source charged");
            c.jobs.complete(id, lc.claim().token());
            check(c.redis.hget(c.keys.base() + "gactive", b) == null, "destination released");
            equal(Reassignment.NOT_FOUND, c.lanes.reassign(c.fresh(), b), "a missing job");
        });

        scenario("lane_drain", c -> {
            String a = c.group(1);
            String b = c.group(2);
            List<String> ids = c.laneFill(a, 3);
            c.laneFill(b, 1);
            c.jobs.addLog(ids.get(2), "log", 0);
            LaneClaim held = c.laneClaim();
            c.jobs.registerRepeat("r", Duration.ofHours(1), bytes("t"), Duration.ofHours(1));
            equal(2L, c.lanes.drain(a), "drained");
            check(!c.redis.exists(c.row(ids.get(2))) && !c.redis.exists(c.sub(ids.get(2), JobSub.LOGS)), "row or logs left");
            equal(List.of(b), c.lanes.ring(), "ring");
            equal(1L, c.lanes.depth(b), "sibling lane");
            equal("1", c.redis.hget(c.keys.base() + "gactive", held.group()), "gactive");
            equal(1L, c.redis.zcard(c.keys.base() + "repeat"), "repeat registry");
        });

        scenario("reap_group", c -> {
            String a = c.group(1);
            String b = c.group(2);
            c.laneFill(a, 1);
            c.laneFill(b, 1);
            c.lanes.claim(Duration.ofMillis(10));
            c.lanes.claim(Duration.ofMillis(10));
            sleep(30);
            equal(1L, c.lanes.reap(a), "recovered");
            equal(1L, c.lanes.depth(a), "in its lane");
            equal(1L, c.redis.zcard(c.keys.active()), "the sibling's lapsed lease left in active");
            equal("1", c.redis.hget(c.keys.base() + "gactive", b), "sibling gactive");
        });

        scenario("weighted_proportion", c -> {
            String heavy = c.group(1);
            String light = c.group(2);
            c.laneFill(heavy, 40);
            c.laneFill(light, 40);
            c.lanes.weight(heavy, 3);
            Map<String, Integer> served = new LinkedHashMap<>();
            for (int turn = 0; turn < 10; turn++) {
                for (LaneClaim lc : c.lanes.claimWeighted(LEASE)) {
                    served.merge(lc.group(), 1, Integer::sum);
                }
            }
            equal(Map.of(heavy, 15, light, 5), served, "served over ten turns");
        });

        scenario("starvation_drill", c -> {
            String heavy = c.group(1);
            c.laneFill(heavy, 60);
            List<String> light = List.of(c.group(2), c.group(3), c.group(4));
            for (int round = 0; round < 30; round++) {
                if (round % 10 == 0) {
                    for (String l : light) {
                        c.laneFill(l, 1);
                    }
                }
                c.laneSettle(c.lanes.claim(LEASE));
            }
            for (String l : light) {
                equal(0L, c.lanes.depth(l), "depth of light lane " + l);
            }
            check(c.lanes.depth(heavy) > 0, "the heavy lane was drained first");
        });

        scenario("grouped_batch_affinity", c -> {
            String a = c.group(1);
            String b = c.group(2);
            c.laneFill(a, 5);
            c.laneFill(b, 5);
            List<LaneClaim> batch = c.lanes.claimBatch(LEASE);
            equal(5, batch.size(), "batch");
            check(batch.stream().allMatch(x -> x.group().equals(a)), "a batch mixed lanes");
            check(c.lanes.claimBatch(LEASE).stream().allMatch(x -> x.group().equals(b)), "the next batch mixed lanes");
        });

        scenario("grouped_batch_ceiling", c -> {
            String a = c.group(1);
            c.laneFill(a, 8);
            c.lanes.limit(a, 3);
            equal(3, c.lanes.claimBatch(LEASE).size(), "batch at the ceiling");
            equal("3", c.redis.hget(c.keys.base() + "gactive", a), "gactive");
            equal(0, c.lanes.claimBatch(LEASE).size(), "a second batch");
            equal(5L, c.lanes.depth(a), "left in the lane");
        });

        scenario("grouped_batch_fairness", c -> {
            String heavy = c.group(1);
            c.laneFill(heavy, 50);
            List<String> light = List.of(c.group(2), c.group(3));
            for (String l : light) {
                c.laneFill(l, 2);
            }
            c.lanes.limit(heavy, 4);
            Set<String> seen = new LinkedHashSet<>();
            for (int turn = 0; turn < 3; turn++) {
                for (LaneClaim lc : c.lanes.claimBatch(LEASE)) {
                    seen.add(lc.group());
                    c.laneSettle(Optional.of(lc));
                }
            }
            check(seen.containsAll(light), "a light lane waited out the heavy one: served " + seen);
        });

        // ---- limits and reads ------------------------------------------------------------------

        scenario("dedup", c -> {
            String id = c.enqueue("p");
            String key = c.keys.dedup("order-1");
            c.extraKeys.add(key);
            c.redis.set(key, id);
            equal(Optional.of(id), c.jobs.dedupJobId("order-1"), "parked dedup key");
            equal(Optional.empty(), c.jobs.dedupJobId("order-2"), "absent dedup key");
        });

        scenario("rate", c -> {
            c.enqueue("a");
            c.enqueue("b");
            c.jobs.limitConcurrency(1);
            c.jobs.checkNotMaxed();
            c.claim(LEASE);
            EmqWireException.Rate r = refused(EmqWireException.Rate.class, c.jobs::checkNotMaxed, "at the ceiling");
            equal("at concurrency ceiling", r.detail(), "refusal");
        });

        scenario("rate_consult", c -> {
            c.enqueue("a");
            c.enqueue("b");
            c.jobs.limitConcurrency(1);
            c.claim(LEASE);
            refused(EmqWireException.Rate.class, c.jobs::checkNotMaxed, "consult at the ceiling");
            check(c.jobs.claim(LEASE).isEmpty(), "a claim past the ceiling");
            equal(1L, c.redis.zcard(c.keys.active()), "active stays at the ceiling");
        });

        scenario("rate_window", c -> {
            c.enqueue("a");
            c.enqueue("b");
            c.enqueue("c");
            c.jobs.limitRate(2, Duration.ofMillis(300));
            equal(2, c.jobs.claimBatch(LEASE, 3).size(), "a batch clamped to the window");
            EmqWireException.Rate r = refused(EmqWireException.Rate.class, () -> c.jobs.claim(LEASE), "past the window's max");
            long after = r.retryAfterMs().orElse(0);
            check(after > 0 && after <= 300, "retry-after " + after + " in " + r.getMessage());
            check(c.jobs.rateLimitTtl().toMillis() > 0, "rate_ttl while limited");
            equal(1L, c.redis.zcard(c.keys.pending()), "a refused claim took a job");
            sleep(after + 20);
            c.claim(LEASE);
        });

        // ---- batches ---------------------------------------------------------------------------

        scenario("batch_partition", c -> {
            String done = c.enqueue("done");
            String again = c.enqueue("again");
            String dead = c.enqueue("dead");
            Map<String, Object> outcome = new LinkedHashMap<>();
            for (Claim b : c.jobs.claimBatch(LEASE, 3)) {
                if (b.id().equals(done)) {
                    outcome.put(b.id(), c.jobs.complete(b.id(), b.token()));
                } else {
                    outcome.put(b.id(), c.jobs.retry(b.id(), b.token(), Duration.ofHours(1), b.id().equals(dead) ? 1 : 3, "x"));
                }
            }
            equal(Map.of(done, Completion.COMPLETED, again, RetryOutcome.SCHEDULED, dead, RetryOutcome.DEAD), outcome, "outcomes");
            equal(JobState.ABSENT, c.jobs.state(done), "completed member");
            equal(JobState.SCHEDULED, c.jobs.state(again), "retried member");
            equal(JobState.DEAD, c.jobs.state(dead), "dead member");
            equal(0L, c.redis.zcard(c.keys.active()), "active");
        });

        scenario("batch_shaping_floor", c -> {
            BatchShaper shaper = new BatchShaper(4, 200);
            for (int i = 0; i < 6; i++) {
                c.enqueue("f" + i);
            }
            int size = shaper.decide(c.jobs.drainStatus(Duration.ZERO).pending(), 0).orElseThrow();
            equal(6, size, "flush at the floor");
            equal(6, c.jobs.claimBatch(LEASE, size).size(), "one batch");
        });

        scenario("batch_shaping_timeout", c -> {
            BatchShaper shaper = new BatchShaper(4, 200);
            c.enqueue("t1");
            c.enqueue("t2");
            long depth = c.jobs.drainStatus(Duration.ZERO).pending();
            check(shaper.decide(depth, 199).isEmpty(), "flushed below the floor before the timeout");
            equal(2, shaper.decide(depth, 200).orElseThrow(), "the partial at the timeout");
            check(shaper.decide(0, 500).isEmpty(), "an empty window flushed");
            equal(2, c.jobs.claimBatch(LEASE, 2).size(), "the partial batch");
        });

        scenario("batch_shaping_partial_failure", c -> {
            BatchShaper shaper = new BatchShaper(3, 200);
            List<String> ids = List.of(c.enqueue("a"), c.enqueue("b"), c.enqueue("c"));
            int size = shaper.decide(c.jobs.drainStatus(Duration.ZERO).pending(), 0).orElseThrow();
            for (Claim b : c.jobs.claimBatch(LEASE, size)) {
                if (b.id().equals(ids.get(1))) {
                    c.jobs.retry(b.id(), b.token(), Duration.ZERO, 3, "member failed");
                } else {
                    c.jobs.complete(b.id(), b.token());
                }
            }
            equal("member failed", c.field(ids.get(1), "last_error"), "last_error");
            equal(2L, c.jobs.counts().completed(), "completed");
            c.jobs.promote();
            equal(ids.get(1), c.claim(LEASE).id(), "only the failed member again");
        });

        // ---- flows -----------------------------------------------------------------------------

        scenario("flow_add", c -> {
            AdmittedFlow f = c.flow(FlowNode.of(c.jobs.queue(), bytes("parent"),
                    FlowNode.leaf(c.jobs.queue(), bytes("k1")), FlowNode.leaf(c.jobs.queue(), bytes("k2"))));
            Set<String> ids = new LinkedHashSet<>(List.of(f.id(), f.children().get(0).id(), f.children().get(1).id()));
            equal(3, ids.size(), "distinct ids");
            equal(JobState.AWAITING_CHILDREN, c.jobs.state(f.id()), "parent");
            equal("2", c.redis.get(c.sub(f.id(), JobSub.DEPENDENCIES)), "dependencies");
            equal(2L, c.redis.zcard(c.keys.pending()), "children claimable, parent withheld");
        });

        scenario("flow_children_values", c -> {
            AdmittedFlow f = c.flow(FlowNode.of(c.jobs.queue(), bytes("parent"),
                    FlowNode.leaf(c.jobs.queue(), bytes("k1")), FlowNode.leaf(c.jobs.queue(), bytes("k2"))));
            for (int i = 0; i < 2; i++) {
                Claim k = c.claim(LEASE);
                c.jobs.complete(k.id(), k.token(), bytes("result-" + text(k.payload())));
            }
            equal(Map.of(f.children().get(0).id(), "result-k1", f.children().get(1).id(), "result-k2"),
                    c.flows.childrenValues(c.jobs.queue(), f.id()), "children values");
            equal("0", c.redis.get(c.sub(f.id(), JobSub.DEPENDENCIES)), "dependencies");
            equal(f.id(), c.claim(LEASE).id(), "parent released");
        });

        scenario("flow_add_bulk", c -> {
            Ctx other = c.other("x");
            List<AdmittedFlow> flows = c.flows.addAll(List.of(
                    FlowNode.of(c.jobs.queue(), bytes("p1"), FlowNode.leaf(c.jobs.queue(), bytes("a"))),
                    FlowNode.of(c.jobs.queue(), bytes("p2"), FlowNode.leaf(other.jobs.queue(), bytes("b")))));
            for (AdmittedFlow f : flows) {
                c.touched.add(f.id());
                f.children().forEach(k -> (k.queue().equals(c.jobs.queue()) ? c : other).touched.add(k.id()));
                equal(JobState.AWAITING_CHILDREN, c.jobs.state(f.id()), "parent " + f.id());
            }
            equal(1L, c.redis.zcard(c.keys.pending()), "same-queue child");
            equal(1L, c.redis.zcard(other.keys.pending()), "cross-queue child");
        });

        scenario("flow_grandchild", c -> {
            AdmittedFlow root = c.flow(FlowNode.of(c.jobs.queue(), bytes("root"),
                    FlowNode.of(c.jobs.queue(), bytes("node"), FlowNode.leaf(c.jobs.queue(), bytes("leaf")))));
            AdmittedFlow node = root.children().get(0);
            Claim leaf = c.claim(LEASE);
            equal(node.children().get(0).id(), leaf.id(), "the leaf first");
            c.jobs.complete(leaf.id(), leaf.token(), bytes("l"));
            Claim mid = c.claim(LEASE);
            equal(node.id(), mid.id(), "the node released");
            equal(JobState.AWAITING_CHILDREN, c.jobs.state(root.id()), "root while the node runs");
            c.jobs.complete(mid.id(), mid.token(), bytes("n"));
            equal(Map.of(node.id(), "n"), c.flows.childrenValues(c.jobs.queue(), root.id()), "root's children values");
            equal(root.id(), c.claim(LEASE).id(), "the root released");
        });

        scenario("flow_grandchild_fail", c -> {
            AdmittedFlow root = c.flow(FlowNode.of(c.jobs.queue(), bytes("root"),
                    FlowNode.of(c.jobs.queue(), bytes("node"), FlowNode.leaf(c.jobs.queue(), bytes("leaf")))));
            String node = root.children().get(0).id();
            Claim leaf = c.claim(LEASE);
            equal(RetryOutcome.DEAD, c.jobs.retry(leaf.id(), leaf.token(), Duration.ZERO, 1, "leaf broke"), "leaf");
            equal(JobState.DEAD, c.jobs.state(node), "node");
            equal(JobState.DEAD, c.jobs.state(root.id()), "root");
            equal(Set.of(node), c.redis.hkeys(c.sub(root.id(), JobSub.FAILED)), "root's failed children");
            equal(3L, c.jobs.counts().failed(), "metrics:failed");
        });

        scenario("flow_deep", c -> {
            List<Ctx> levels = new ArrayList<>(List.of(c));
            for (int level = 1; level <= 7; level++) {
                levels.add(c.other("l" + level));
            }
            FlowNode tree = FlowNode.leaf(levels.get(7).jobs.queue(), bytes("leaf"));
            for (int level = 6; level >= 1; level--) {
                tree = FlowNode.of(levels.get(level).jobs.queue(), bytes("level-" + level), tree);
            }
            AdmittedFlow root = c.flows.add(FlowNode.of(c.jobs.queue(), bytes("root"), tree));
            AdmittedFlow node = root;
            for (Ctx level : levels) {
                level.touched.add(node.id());
                node = node.children().isEmpty() ? node : node.children().get(0);
            }
            for (int i = levels.size() - 1; i >= 0; i--) {
                Ctx level = levels.get(i);
                Claim k = level.claim(LEASE);
                level.jobs.complete(k.id(), k.token(), bytes("done-" + i));
                if (i > 0) {
                    equal(List.of(FlowDelivery.RELEASED), level.deliver(), "delivery from level " + i);
                }
            }
            equal(8, levels.size(), "levels");
            equal(JobState.ABSENT, c.jobs.state(root.id()), "the root ran");
        });

        // ---- repeat ----------------------------------------------------------------------------

        scenario("repeat", c -> {
            check(c.jobs.registerRepeat("tick", Duration.ofMillis(40), bytes("t"), Duration.ZERO), "register");
            List<RepeatFired> first = c.jobs.fireDueRepeats(5);
            sleep(60);
            List<RepeatFired> second = c.jobs.fireDueRepeats(5);
            equal(1, first.size(), "first occurrence");
            equal(1, second.size(), "second occurrence");
            check(first.get(0).id().compareTo(second.get(0).id()) < 0, "occurrences out of mint order");
            equal(List.of(first.get(0).id(), second.get(0).id()),
                    List.of(c.claim(LEASE).id(), c.claim(LEASE).id()), "claimed in mint order");
            c.touched.add(first.get(0).id());
            c.touched.add(second.get(0).id());
        });
    }
}
