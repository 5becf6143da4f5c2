package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A v1 producer and a v1 worker that touch a queue as BullMQ 5.65.1 does, each step one atomic
 * script: an add INCRs {@code bull:<q>:id}, writes the job hash, pushes the id onto {@code wait} (or
 * {@code paused} while {@code meta.paused} is set) and sets the marker; a worker moves the tail of
 * {@code wait} to {@code active} under a {@code :lock} (nothing while paused, unless it ignores the
 * pause, as a stray worker of another v1 client may, and serves {@code paused}), and finishes it into
 * {@code completed}. Plus the
 * exactly-once check every live-source test ends with.
 */
public final class LiveV1 {
    static final String TOKEN = "v1-worker-token";

    private static final String ADD = """
            local id = redis.call('INCR', KEYS[4])
            local job = ARGV[1] .. id
            redis.call('HSET', job, 'name', 'send', 'data', ARGV[2], 'opts', '{"attempts":3}', 'timestamp', ARGV[3],
              'delay', '0', 'priority', '0')
            if ARGV[5] == '1' then
              redis.call('HSET', job, 'deid', 'd' .. id)
              redis.call('SET', ARGV[1] .. 'de:d' .. id, id)
            end
            local push = ARGV[4] == 'lifo' and 'RPUSH' or 'LPUSH'
            if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then
              redis.call(push, KEYS[2], id)
            else
              redis.call(push, KEYS[1], id)
              redis.call('ZADD', KEYS[5], 0, '0')
            end
            return id
            """;
    private static final String TAKE = """
            local from = KEYS[1]
            if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then
              if ARGV[4] ~= '1' then
                return false
              end
              from = KEYS[4]
            end
            local id = redis.call('RPOPLPUSH', from, KEYS[2])
            if not id then
              return false
            end
            redis.call('SET', ARGV[1] .. id .. ':lock', ARGV[2], 'PX', ARGV[3])
            redis.call('HINCRBY', ARGV[1] .. id, 'ats', 1)
            return id
            """;
    private static final String COMPLETE = """
            local job = ARGV[1] .. ARGV[2]
            if redis.call('GET', job .. ':lock') ~= ARGV[3] then
              return -2
            end
            redis.call('DEL', job .. ':lock')
            redis.call('LREM', KEYS[1], -1, ARGV[2])
            local deid = redis.call('HGET', job, 'deid')
            if deid then -- as BullMQ 5 finalizes: a key with a TTL (throttle mode) is left to run out
              local de = ARGV[1] .. 'de:' .. deid
              local pttl = redis.call('PTTL', de)
              if pttl == 0 or (pttl == -1 and redis.call('GET', de) == ARGV[2]) then
                redis.call('DEL', de)
              end
            end
            if ARGV[5] == '1' then
              redis.call('DEL', job, job .. ':logs')
              return 1
            end
            redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
            redis.call('HSET', job, 'finishedOn', ARGV[4], 'returnvalue', 'null')
            redis.call('HINCRBY', job, 'atm', 1)
            return 1
            """;

    /** As BullMQ's moveToFinished fails a job for good, with worker metrics on ({@code collectMetrics}: the count). */
    private static final String FAIL = """
            local job = ARGV[1] .. ARGV[2]
            if redis.call('GET', job .. ':lock') ~= ARGV[3] then
              return -2
            end
            redis.call('DEL', job .. ':lock')
            redis.call('LREM', KEYS[1], -1, ARGV[2])
            redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
            redis.call('HSET', job, 'finishedOn', ARGV[4], 'failedReason', 'boom ' .. ARGV[2])
            redis.call('HINCRBY', job, 'atm', 1)
            redis.call('HINCRBY', KEYS[3], 'count', 1)
            return 1
            """;

    private LiveV1() {
    }

    private static String key(String prefix, String queue, String suffix) {
        return prefix + ":" + queue + ":" + suffix;
    }

    /** One producer add; its id, or empty when v1 refused it (a retired queue's counter holds the tombstone). */
    public static Optional<String> add(UnifiedJedis client, String queue) {
        return add(client, "bull", queue, "fifo", false);
    }

    /**
     * As {@link #add(UnifiedJedis, String)} ({@link #addDeduplicated} when {@code deduplicated}), under the v1 prefix
     * {@code prefix} (on a cluster, a hash-tagged one such as {@code {bull}}).
     */
    public static Optional<String> add(UnifiedJedis client, String prefix, String queue, boolean deduplicated) {
        return add(client, prefix, queue, "fifo", deduplicated);
    }

    /** One producer add with {@code lifo: true}: v1 serves it next. */
    public static Optional<String> addAhead(UnifiedJedis client, String queue) {
        return addAhead(client, "bull", queue);
    }

    /** As {@link #addAhead(UnifiedJedis, String)}, under the v1 prefix {@code prefix}. */
    public static Optional<String> addAhead(UnifiedJedis client, String prefix, String queue) {
        return add(client, prefix, queue, "lifo", false);
    }

    /**
     * One producer add with {@code deduplication: {id: "d<job id>"}}: the dedup key {@code de:d<id>} holds the job's id
     * (and its hash {@code deid}) until a worker finishes it, as BullMQ 5's deduplication without a TTL does.
     */
    public static Optional<String> addDeduplicated(UnifiedJedis client, String queue) {
        return add(client, "bull", queue, "fifo", true);
    }

    private static Optional<String> add(UnifiedJedis client, String prefix, String queue, String order, boolean deduplicated) {
        try {
            Object id = client.eval(ADD, List.of(key(prefix, queue, "wait"), key(prefix, queue, "paused"), key(prefix, queue, "meta"),
                    key(prefix, queue, "id"), key(prefix, queue, "marker")), List.of(key(prefix, queue, ""), "{\"live\":true}", Long.toString(System.currentTimeMillis()), order,
                    deduplicated ? "1" : "0"));
            return Optional.of(id.toString());
        } catch (JedisDataException refused) {
            return Optional.empty();
        }
    }

    private static final String ADD_DELAYED = """
            local id = redis.call('INCR', KEYS[1])
            redis.call('HSET', ARGV[1] .. id, 'name', 'later', 'data', '{"live":true}', 'opts', '{"attempts":3}', 'timestamp',
              ARGV[2], 'delay', ARGV[3], 'priority', '0')
            redis.call('ZADD', KEYS[2], string.format('%.0f', (ARGV[2] + ARGV[3]) * 4096 + id % 4096), id)
            return id
            """;

    /**
     * One producer add with a delay of {@code delayMs}, as BullMQ's add puts it in {@code delayed} at its due time
     * ({@code (timestamp + delay) * 4096 + id % 4096}); its id and due time, or empty when v1 refused it (the add counter
     * frozen, or holding the tombstone).
     */
    public static Optional<Map.Entry<String, Long>> addDelayed(UnifiedJedis client, String prefix, String queue, long delayMs) {
        long now = System.currentTimeMillis();
        try {
            Object id = client.eval(ADD_DELAYED, List.of(key(prefix, queue, "id"), key(prefix, queue, "delayed")),
                    List.of(key(prefix, queue, ""), Long.toString(now), Long.toString(delayMs)));
            return Optional.of(Map.entry(id.toString(), now + delayMs));
        } catch (JedisDataException refused) {
            return Optional.empty();
        }
    }

    private static final String CHANGE_DELAY = """
            if redis.call('HGET', KEYS[1], 'version') == ARGV[4] or not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
              return 0
            end
            redis.call('ZADD', KEYS[2], string.format('%.0f', ARGV[2] * 4096 + ARGV[1] % 4096), ARGV[1])
            redis.call('HSET', KEYS[3], 'delay', ARGV[3])
            return 1
            """;

    /**
     * BullMQ's changeDelay of a delayed job: re-added to {@code delayed} at {@code due}, its hash's {@code delay} set to
     * {@code delayMs} (the one it had leaves the hash as it was); false, nothing written, when it is not delayed or once
     * the queue holds the migration's tombstone.
     */
    public static boolean changeDelay(UnifiedJedis client, String prefix, String queue, String id, long due, long delayMs) {
        Object done = client.eval(CHANGE_DELAY, List.of(key(prefix, queue, "meta"), key(prefix, queue, "delayed"), key(prefix, queue, id)),
                List.of(id, Long.toString(due), Long.toString(delayMs), io.emq.migrate.v1.QueueSnapshot.TOMBSTONE));
        return Long.valueOf(1).equals(done);
    }

    /** The due times of a retired queue's delayed jobs: v2 schedules each at the one v1 held at its tombstone ({@code held}). */
    public static List<String> dueProblems(UnifiedJedis client, String queue, Map<String, Long> held) {
        List<String> problems = new ArrayList<>();
        held.forEach((id, due) -> {
            long inV2 = v2Due(client, queue, id);
            if (inV2 != due) {
                problems.add("stale due time: job " + id + " is scheduled at " + inV2 + " in v2, v1 held " + due + " at its tombstone");
            }
        });
        return problems;
    }

    /** A worker takes the job at the tail of wait under a lock; empty when there is none (or the queue is paused). */
    public static Optional<String> take(UnifiedJedis client, String queue, boolean ignorePause, long lockMs) {
        return take(client, "bull", queue, ignorePause, lockMs);
    }

    /** As {@link #take(UnifiedJedis, String, boolean, long)}, under the v1 prefix {@code prefix}. */
    public static Optional<String> take(UnifiedJedis client, String prefix, String queue, boolean ignorePause, long lockMs) {
        Object id = client.eval(TAKE, List.of(key(prefix, queue, "wait"), key(prefix, queue, "active"), key(prefix, queue, "meta"),
                key(prefix, queue, "paused")), List.of(key(prefix, queue, ""), TOKEN, Long.toString(lockMs), ignorePause ? "1" : "0"));
        return Optional.ofNullable(id).map(Object::toString);
    }

    /** The worker finishes a job it holds into completed; false when it no longer holds the lock. */
    public static boolean complete(UnifiedJedis client, String queue, String id) {
        return finish(client, "bull", queue, id, false);
    }

    /** As {@link #complete(UnifiedJedis, String, String)}, under the v1 prefix {@code prefix}. */
    public static boolean complete(UnifiedJedis client, String prefix, String queue, String id) {
        return finish(client, prefix, queue, id, false);
    }

    /**
     * The worker finishes a job it holds as a job added with {@code removeOnComplete: true} is finished:
     * its hash and logs are deleted and it is in no set; false when it no longer holds the lock.
     */
    public static boolean completeAndRemove(UnifiedJedis client, String queue, String id) {
        return finish(client, "bull", queue, id, true);
    }

    /** As {@link #completeAndRemove(UnifiedJedis, String, String)}, under the v1 prefix {@code prefix}. */
    public static boolean completeAndRemove(UnifiedJedis client, String prefix, String queue, String id) {
        return finish(client, prefix, queue, id, true);
    }

    /**
     * The worker fails a job it holds for good (its last attempt): into {@code failed}, scored by its finishing
     * instant, with {@code failedReason}, and counted into v1's {@code metrics:failed}; false when it no longer
     * holds the lock.
     */
    public static boolean fail(UnifiedJedis client, String queue, String id) {
        Object done = client.eval(FAIL, List.of(key("bull", queue, "active"), key("bull", queue, "failed"),
                key("bull", queue, "metrics:failed")), List.of(key("bull", queue, ""), id, TOKEN, Long.toString(System.currentTimeMillis())));
        return Long.valueOf(1).equals(done);
    }

    private static boolean finish(UnifiedJedis client, String prefix, String queue, String id, boolean remove) {
        Object done = client.eval(COMPLETE, List.of(key(prefix, queue, "active"), key(prefix, queue, "completed")),
                List.of(key(prefix, queue, ""), id, TOKEN, Long.toString(System.currentTimeMillis()), remove ? "1" : "0"));
        return Long.valueOf(1).equals(done);
    }

    private static final String OPERATOR = """
            local from, to = KEYS[1], KEYS[2]
            if ARGV[1] == 'pause' then
              redis.call('HSET', KEYS[3], 'paused', '1')
            else
              from, to = KEYS[2], KEYS[1]
              redis.call('HDEL', KEYS[3], 'paused')
            end
            while redis.call('RPOPLPUSH', from, to) do
            end
            """;

    /** An operator pauses the queue (BullMQ's {@code queue.pause()}): workers fetch nothing, wait handed to paused in order. */
    public static void pause(UnifiedJedis client, String queue) {
        pause(client, "bull", queue);
    }

    /** As {@link #pause(UnifiedJedis, String)}, under the v1 prefix {@code prefix}. */
    public static void pause(UnifiedJedis client, String prefix, String queue) {
        operator(client, prefix, queue, "pause");
    }

    /** An operator resumes the queue (BullMQ's {@code queue.resume()}): paused handed back to wait in order. */
    public static void resume(UnifiedJedis client, String queue) {
        resume(client, "bull", queue);
    }

    /** As {@link #resume(UnifiedJedis, String)}, under the v1 prefix {@code prefix}. */
    public static void resume(UnifiedJedis client, String prefix, String queue) {
        operator(client, prefix, queue, "resume");
    }

    private static void operator(UnifiedJedis client, String prefix, String queue, String op) {
        client.eval(OPERATOR, List.of(key(prefix, queue, "wait"), key(prefix, queue, "paused"), key(prefix, queue, "meta")), List.of(op));
    }

    /** The branded id the journal gave the job whose v1 id is {@code v1Id}. */
    private static BrandedId v2Id(UnifiedJedis client, String queue, String v1Id) {
        return new Journal(Wire.open(client), queue).ids().lookupV1(List.of(v1Id.getBytes(StandardCharsets.UTF_8))).get(0)
                .orElseThrow();
    }

    /** The logs v2 holds for the job whose v1 id is {@code v1Id}. */
    public static List<String> v2Logs(UnifiedJedis client, String queue, String v1Id) {
        return client.lrange(Keys.queue(queue).job(v2Id(client, queue, v1Id), JobSub.LOGS), 0, -1);
    }

    /** The due time (Unix ms) v2's schedule holds for the job whose v1 id is {@code v1Id}; -1 when it is not there. */
    public static long v2Due(UnifiedJedis client, String queue, String v1Id) {
        Double score = client.zscore(Keys.queue(queue).schedule(), v2Id(client, queue, v1Id).toString());
        return score == null ? -1 : score.longValue();
    }

    /** The v1 data the v2 row of this v1 job carries. */
    public static String v2Data(UnifiedJedis client, String queue, String v1Id) {
        BrandedId id = v2Id(client, queue, v1Id);
        byte[] payload = client.hget(Keys.queue(queue).job(id).getBytes(StandardCharsets.UTF_8), "payload".getBytes(StandardCharsets.UTF_8));
        return new String(PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow(), StandardCharsets.UTF_8);
    }

    /** The counts the journal's history holds of this step of the queue's migration (the first row of that version). */
    public static Map<String, Long> stepCounts(UnifiedJedis client, String queue, int version) {
        return new Journal(Wire.open(client), queue).history().rows().stream()
                .filter(row -> row.version() == version).findFirst().orElseThrow().counts();
    }

    /** v2 rows (pending, schedule, dead, or in no set) of the queue, as v1 id -> how many rows name it. */
    public static Map<String, Integer> v2Rows(UnifiedJedis client, String queue) {
        Keys keys = Keys.queue(queue);
        Journal journal = new Journal(Wire.open(client), queue);
        Map<String, Integer> rows = new TreeMap<>();
        for (String set : List.of(keys.pending(), keys.schedule(), keys.dead())) {
            for (String member : client.zrange(set, 0, -1)) {
                String v1 = journal.ids().lookupV2(BrandedId.of(member)).map(b -> new String(b, StandardCharsets.UTF_8)).orElse("?" + member);
                rows.merge(v1, 1, Integer::sum);
            }
        }
        return rows;
    }

    /** The v1 ids listed in a structure the migration moves (everything but completed). */
    public static Set<String> v1Movable(UnifiedJedis client, String queue) {
        return v1Movable(client, "bull", queue);
    }

    private static Set<String> v1Movable(UnifiedJedis client, String prefix, String queue) {
        Set<String> out = new java.util.TreeSet<>();
        for (String list : List.of("wait", "paused", "active")) {
            if ("list".equals(client.type(key(prefix, queue, list)))) {
                out.addAll(client.lrange(key(prefix, queue, list), 0, -1));
            }
        }
        for (String zset : List.of("prioritized", "delayed", "failed", "waiting-children")) {
            if ("zset".equals(client.type(key(prefix, queue, zset)))) {
                out.addAll(client.zrange(key(prefix, queue, zset), 0, -1));
            }
        }
        return out;
    }

    /** The v1 ids completed so far. */
    public static Set<String> v1Completed(UnifiedJedis client, String queue) {
        return v1Completed(client, "bull", queue);
    }

    private static Set<String> v1Completed(UnifiedJedis client, String prefix, String queue) {
        return "zset".equals(client.type(key(prefix, queue, "completed")))
                ? new java.util.TreeSet<>(client.zrange(key(prefix, queue, "completed"), 0, -1)) : Set.of();
    }

    /**
     * The verdict a live-source run must reach: every job added ({@code added}) is exactly once where it
     * belongs. Retired: each job v1 did not complete is exactly one v2 row, and none v1 completed is. Not
     * retired (refused): v1 is intact, every added job still in v1 (or finished there by the worker), and no job is twice in v2 (the v2 queue
     * is paused until the migration ends, and a re-run brings it in line with what v1 did meanwhile).
     * Returns the problems (empty when the run kept its promise).
     */
    public static List<String> problems(UnifiedJedis client, String queue, Set<String> added, Set<String> completedByWorker,
                                        boolean retired) {
        return problems(client, "bull", client, queue, added, completedByWorker, retired);
    }

    /** As {@link #problems(UnifiedJedis, String, Set, Set, boolean)}, v1 on {@code source} under {@code prefix}, v2 on {@code target}. */
    public static List<String> problems(UnifiedJedis source, String prefix, UnifiedJedis target, String queue, Set<String> added,
                                        Set<String> completedByWorker, boolean retired) {
        List<String> problems = new ArrayList<>();
        Map<String, Integer> rows = v2Rows(target, queue);
        rows.forEach((id, n) -> {
            if (n > 1) {
                problems.add("doubled in v2: " + id + " x" + n);
            }
            if (retired && completedByWorker.contains(id)) {
                problems.add("doubled: " + id + " finished by the v1 worker and also a v2 row");
            }
        });
        if (retired) {
            for (String id : added) {
                if (!completedByWorker.contains(id) && !rows.containsKey(id)) {
                    problems.add("lost: " + id + " is in no v2 structure");
                }
            }
        } else {
            Set<String> inV1 = v1Movable(source, prefix, queue);
            Set<String> done = v1Completed(source, prefix, queue);
            for (String id : added) {
                if (!inV1.contains(id) && !done.contains(id) && !completedByWorker.contains(id)) {
                    problems.add("lost: " + id + " left v1 though the queue was not retired");
                }
            }
        }
        return problems;
    }

    private static final String DELETE_DEDUP_KEY = """
            if redis.call('HGET', KEYS[1], 'version') == ARGV[1] then
              return 0
            end
            return redis.call('DEL', KEYS[2])
            """;

    /**
     * BullMQ's removeDeduplicationKey: the dedup key {@code de:<did>} deleted alone, its job kept; false when there was
     * none, or once the queue holds the migration's tombstone (nothing written then).
     */
    public static boolean deleteDedupKey(UnifiedJedis client, String queue, String did) {
        return deleteDedupKey(client, "bull", queue, did);
    }

    /** As {@link #deleteDedupKey(UnifiedJedis, String, String)}, under the v1 prefix {@code prefix}. */
    public static boolean deleteDedupKey(UnifiedJedis client, String prefix, String queue, String did) {
        Object done = client.eval(DELETE_DEDUP_KEY, List.of(key(prefix, queue, "meta"), key(prefix, queue, "de:" + did)),
                List.of(io.emq.migrate.v1.QueueSnapshot.TOMBSTONE));
        return Long.valueOf(1).equals(done);
    }

    /**
     * The dedup keys of a retired queue: each job added deduplicated ({@link #addDeduplicated}) that v1 did not
     * finish has its v2 dedup key pointing at its row, and no v2 dedup key points at a job v2 does not hold.
     */
    public static List<String> dedupProblems(UnifiedJedis client, String queue, Set<String> deduplicated, Set<String> completedByWorker) {
        Keys keys = Keys.queue(queue);
        Journal journal = new Journal(Wire.open(client), queue);
        List<String> problems = new ArrayList<>();
        for (String id : deduplicated) {
            Optional<BrandedId> branded = journal.ids().lookupV1(List.of(id.getBytes(StandardCharsets.UTF_8))).get(0);
            String held = client.get(keys.dedup("d" + id));
            if (!completedByWorker.contains(id) && (branded.isEmpty() || !branded.get().toString().equals(held))) {
                problems.add("dedup key lost: de:d" + id + " holds " + held + ", its job's row is " + branded.orElse(null));
            }
        }
        for (String key : client.keys(keys.base() + "de:*")) {
            String id = client.get(key);
            if (!BrandedId.isValid(id) || !client.exists(keys.job(BrandedId.of(id)))) {
                problems.add("stale dedup key: " + key + " points at " + id + ", which v2 does not hold");
            }
        }
        return problems;
    }

    private static final String SCHEDULE = """
            if redis.call('HGET', KEYS[1], 'version') == ARGV[3] then
              return 0
            end
            if ARGV[2] ~= '0' then
              redis.call('HSET', KEYS[2], 'every', '60000', 'name', ARGV[1], 'data', '{"v":' .. ARGV[2] .. '}')
              redis.call('ZADD', KEYS[3], 1, ARGV[1])
            else
              redis.call('DEL', KEYS[2])
              redis.call('ZREM', KEYS[3], ARGV[1])
            end
            return 1
            """;

    /**
     * An {@code every} scheduler {@code sid} upserted with data {@code {"v":version}} (its next run kept), or removed
     * ({@code version} 0), as BullMQ's upsertJobScheduler and removeJobScheduler write its record and the {@code repeat}
     * zset, its iteration job aside; false, nothing written, once the queue holds the migration's tombstone (a v1
     * client writes there no more).
     */
    public static boolean schedule(UnifiedJedis client, String queue, String sid, int version) {
        return schedule(client, "bull", queue, sid, version);
    }

    /** As {@link #schedule(UnifiedJedis, String, String, int)}, under the v1 prefix {@code prefix}. */
    public static boolean schedule(UnifiedJedis client, String prefix, String queue, String sid, int version) {
        Object done = client.eval(SCHEDULE, List.of(key(prefix, queue, "meta"), key(prefix, queue, "repeat:" + sid), key(prefix, queue, "repeat")),
                List.of(sid, Integer.toString(version), io.emq.migrate.v1.QueueSnapshot.TOMBSTONE));
        return Long.valueOf(1).equals(done);
    }

    private static final String SET_CONCURRENCY = """
            if redis.call('HGET', KEYS[1], 'version') == ARGV[2] then
              return 0
            end
            if ARGV[1] == '0' then
              redis.call('HDEL', KEYS[1], 'concurrency')
            else
              redis.call('HSET', KEYS[1], 'concurrency', ARGV[1])
            end
            return 1
            """;

    /**
     * BullMQ's setGlobalConcurrency ({@code concurrency} in {@code meta}), or removeGlobalConcurrency ({@code limit} 0);
     * false, nothing written, once the queue holds the migration's tombstone.
     */
    public static boolean setConcurrency(UnifiedJedis client, String queue, int limit) {
        return setConcurrency(client, "bull", queue, limit);
    }

    /** As {@link #setConcurrency(UnifiedJedis, String, int)}, under the v1 prefix {@code prefix}. */
    public static boolean setConcurrency(UnifiedJedis client, String prefix, String queue, int limit) {
        Object done = client.eval(SET_CONCURRENCY, List.of(key(prefix, queue, "meta")),
                List.of(Integer.toString(limit), io.emq.migrate.v1.QueueSnapshot.TOMBSTONE));
        return Long.valueOf(1).equals(done);
    }

    /** The global concurrency of a retired queue: v2's {@code meta} holds the one v1 held when it was retired ({@code held}: 0 for none). */
    public static List<String> concurrencyProblems(UnifiedJedis client, String queue, int held) {
        String inV2 = client.hget(Keys.queue(queue).meta(), "concurrency");
        String expected = held == 0 ? null : Integer.toString(held);
        return java.util.Objects.equals(inV2, expected) ? List.of()
                : List.of("stale concurrency: v2's meta holds " + inV2 + ", v1 held " + expected + " at its tombstone");
    }

    /**
     * The schedulers of a retired queue: v2 registers exactly those v1 held when it was retired ({@code held}: each
     * scheduler's data version, see {@link #schedule}), each with its record and the template of that version.
     */
    public static List<String> schedulerProblems(UnifiedJedis client, String queue, Map<String, Integer> held) {
        Keys keys = Keys.queue(queue);
        Set<String> registered = new java.util.TreeSet<>(client.zrange(keys.base() + "repeat", 0, -1));
        List<String> problems = new ArrayList<>();
        if (!registered.equals(held.keySet())) {
            problems.add((registered.containsAll(held.keySet()) ? "stale" : "lost") + " schedulers: v2 registers " + registered
                    + ", v1 held " + new java.util.TreeSet<>(held.keySet()));
        }
        for (String name : registered) {
            String template = client.hget(keys.repeat(name), "template");
            if (template == null) {
                problems.add("lost scheduler record: " + keys.repeat(name));
            } else if (held.containsKey(name) && !template.contains("{\"v\":" + held.get(name) + "}")) {
                problems.add("stale scheduler template: " + keys.repeat(name) + " holds " + template + ", v1 held version " + held.get(name));
            }
        }
        return problems;
    }

    /**
     * Exactly once at scale, for a retired queue nothing completed: the v1 ids 1..{@code ids} each have one
     * branded id in the journal, each of those is in the pending set, and the pending set holds nothing
     * else. Read in batches (a million jobs check in seconds); returns the problems.
     */
    public static List<String> exactlyOnce(UnifiedJedis client, String queue, long ids) {
        return exactlyOnce(client, queue, Long::toString, ids);
    }

    /** As {@link #exactlyOnce(UnifiedJedis, String, long)}, the v1 id of the {@code n}th job {@code v1Id.apply(n)}. */
    public static List<String> exactlyOnce(UnifiedJedis client, String queue, java.util.function.LongFunction<String> v1Id, long ids) {
        Journal journal = new Journal(Wire.open(client), queue);
        String pending = Keys.queue(queue).pending();
        List<String> problems = new ArrayList<>();
        for (long from = 1; from <= ids && problems.size() < 10; from += 1000) {
            List<byte[]> batch = new ArrayList<>();
            for (long n = from; n < from + 1000 && n <= ids; n++) {
                batch.add(v1Id.apply(n).getBytes(StandardCharsets.UTF_8));
            }
            List<java.util.Optional<BrandedId>> branded = journal.ids().lookupV1(batch);
            List<String> members = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                if (branded.get(i).isEmpty()) {
                    problems.add("lost: v1 job " + new String(batch.get(i), StandardCharsets.UTF_8) + " has no v2 id");
                } else {
                    members.add(branded.get(i).get().toString());
                }
            }
            List<Double> scores = client.zmscore(pending, members.toArray(String[]::new));
            for (int i = 0; i < scores.size(); i++) {
                if (scores.get(i) == null) {
                    problems.add("lost: " + members.get(i) + " is not pending");
                }
            }
        }
        long card = client.zcard(pending);
        if (card != ids) {
            problems.add("pending holds " + card + " jobs, v1 had " + ids);
        }
        return problems;
    }

    /**
     * Runs {@code body} on its own connection to {@code server} in a thread, {@code pauseMs} between
     * rounds, until {@code stop} is set: a v1 producer or worker beside a migration.
     */
    static Thread beside(Endpoint server, AtomicBoolean stop, long pauseMs, Consumer<UnifiedJedis> body) {
        Thread t = new Thread(() -> {
            try (UnifiedJedis c = server.open()) {
                while (!stop.get()) {
                    body.accept(c);
                    try {
                        Thread.sleep(pauseMs);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        t.start();
        return t;
    }
}
