package io.emq.migrate.runtime;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
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

        Ctx(String queue) {
            this.jobs = Jobs.on(wire, queue, minter);
            this.keys = Keys.queue(queue);
            this.redis = wire.client();
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
    }
}
