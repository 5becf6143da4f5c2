package io.emq.migrate.wire;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ZRangeParams;

/**
 * Runs the v2 script bundle over one client (standalone or cluster), behind the version fence.
 *
 * <p>Every call is {@code EVALSHA} first; on {@code NOSCRIPT} the source is loaded with
 * {@code SCRIPT LOAD} on the node that owns the call's first key, the returned SHA-1 is checked
 * against the local one, and the call is sent once more. Error replies are mapped by
 * {@link WireErrors} the same way on both attempts. The fence runs when the wire is opened and
 * again before the first call after any connection failure (the pool reconnects underneath).
 */
public final class Wire implements AutoCloseable {

    private final UnifiedJedis client;
    private final String version;
    private volatile boolean fenced;

    private Wire(UnifiedJedis client, String version) {
        this.client = client;
        this.version = version;
    }

    /** Opens the wire speaking the configured version ({@link VersionFence#configured()}); the fence runs now. */
    public static Wire open(UnifiedJedis client) {
        return open(client, VersionFence.configured());
    }

    /**
     * A wire that never checks or claims the v2 version fence: to a v1 source server, for the
     * migration's own v1 scripts (claiming the fence would write {@code {emq}:version} into a v1
     * keyspace), and for reads that must leave a target exactly as it was.
     */
    public static Wire unfenced(UnifiedJedis client) {
        Wire wire = new Wire(client, "");
        wire.fenced = true;
        return wire;
    }

    /**
     * A wire whose fence runs before its first script call rather than now, so a run that refuses
     * before calling any script (an unknown queue) leaves an empty deployment unclaimed. For callers
     * whose first write is a script call (the migrator's first is the journal lease).
     */
    public static Wire fencedOnFirstCall(UnifiedJedis client, String version) {
        return new Wire(client, version);
    }

    /** Opens the wire speaking {@code version}; the fence runs now. */
    public static Wire open(UnifiedJedis client, String version) {
        Wire wire = new Wire(client, version);
        wire.ensureFenced();
        return wire;
    }

    /**
     * The client underneath. Only for what works on raw keys by design: the v1 readers (discovery,
     * key scans, the snapshot), which walk an open keyspace of any shape; the source's change feed,
     * which opens its own tracking and subscriber connections from it; the conformance checker,
     * which seeds and inspects keys the way a test does; and the drain's shadow copy, which copies a
     * queue's keys whatever their type. Everything else reads through the typed reads below and
     * writes through scripts.
     */
    public UnifiedJedis client() {
        return client;
    }

    /** The wire version this runtime speaks. */
    public String version() {
        return version;
    }

    /** Runs one script call; returns its decoded reply or throws the mapped refusal. */
    public <T> T eval(ScriptCall<T> call) {
        ensureFenced();
        try {
            return call.decode(evalOnce(call));
        } catch (JedisNoScriptException e) {
            load(call.script(), call.keys().get(0));
            return call.decode(evalOnce(call));
        }
    }

    /** A pipeline of script calls of any reply types; see {@link ScriptBatch}. */
    public ScriptBatch batch() {
        return new ScriptBatch(this);
    }

    /** Pipelines calls of one reply type; each call's outcome is reported in order. */
    public <T> List<ScriptReply<T>> evalAll(List<ScriptCall<T>> calls) {
        ScriptBatch batch = batch();
        List<ScriptBatch.Pending<T>> pending = new ArrayList<>(calls.size());
        for (ScriptCall<T> call : calls) {
            pending.add(batch.add(call));
        }
        batch.send();
        List<ScriptReply<T>> out = new ArrayList<>(calls.size());
        for (ScriptBatch.Pending<T> p : pending) {
            out.add(p.reply());
        }
        return out;
    }

    /**
     * Sends a batch's calls in one pipeline (grouped per node in a cluster). A call that met
     * {@code NOSCRIPT} is re-sent alone through {@link #eval}.
     */
    void send(List<ScriptBatch.Pending<?>> calls) {
        if (calls.isEmpty()) {
            return;
        }
        ensureFenced();
        List<Response<Object>> responses = new ArrayList<>(calls.size());
        try {
            inOnePipeline(pipeline -> {
                for (ScriptBatch.Pending<?> p : calls) {
                    ScriptCall<?> call = p.call();
                    responses.add(pipeline.evalsha(call.script().shaBytes(), call.keys(), call.args()));
                }
            });
        } catch (JedisConnectionException e) {
            fenced = false;
            throw e;
        }
        for (int i = 0; i < calls.size(); i++) {
            settle(calls.get(i), responses.get(i));
        }
    }

    private <T> void settle(ScriptBatch.Pending<T> pending, Response<Object> response) {
        ScriptCall<T> call = pending.call();
        try {
            pending.settle(ScriptReply.of(call.decode(response.get())));
        } catch (JedisNoScriptException e) {
            try {
                pending.settle(ScriptReply.of(eval(call)));
            } catch (EmqWireException | JedisDataException refused) {
                pending.settle(ScriptReply.failed(refused));
            }
        } catch (JedisDataException e) {
            pending.settle(ScriptReply.failed(WireErrors.map(e)));
        }
    }

    /**
     * After a lost connection, on a cluster: reads again which master serves each slot ({@code CLUSTER SLOTS} from a node
     * that answers), so the next command, pipeline or dedicated connection ({@link DedicatedConnection#serverOf}) goes to
     * the master that serves the slot now (a replica promoted in place of one that died), not to the dead one again. The
     * client renews its map by itself on a {@code MOVED} reply, which a dead master never sends, and after lost
     * connections within one plain command, never for a pipeline or a dedicated connection. The map is kept when no node
     * answers; nothing to do on a single server.
     */
    public void renewSlotMap() {
        if (client instanceof RedisClusterClient cluster) {
            cluster.refreshClusterTopology();
        }
    }

    /** Whether the same server holds both keys (in a cluster, the master serving each one's slot). */
    public boolean sameServer(byte[] one, byte[] other) {
        return DedicatedConnection.serverOf(client, one) == DedicatedConnection.serverOf(client, other);
    }

    /**
     * Runs {@code call}, a write, then {@code WAIT} on the same connection, to the server that holds the call's key (in a
     * cluster, the master serving its slot): how many of its replicas acknowledged, within {@code timeout}, every write
     * it took up to the call (a replica acknowledges the replication stream in order, and the server waits for the
     * offset of the connection's own last write); -1 when the server refuses {@code WAIT} (a user without it). The call's
     * refusal is thrown as {@link #eval}'s is.
     */
    public long writeAndWait(ScriptCall<?> call, int replicas, Duration timeout) {
        return writeThen(call, p -> p.waitReplicas(replicas, timeout.toMillis())).orElse(-1L);
    }

    /**
     * Sends a fenced write, then {@code WAITAOF 1 0} on the same connection (the server that holds the call's first key):
     * whether that server wrote the write to its append-only file on disk within {@code timeout}; empty when it knows no
     * {@code WAITAOF} (Redis before 7.2) or refuses it.
     */
    public Optional<Boolean> writeAndWaitAof(ScriptCall<?> call, Duration timeout) {
        return writeThen(call, p -> p.waitAOF(1, 0, timeout.toMillis())).map(synced -> synced.getKey() >= 1);
    }

    /** A fenced write, then {@code then} on the same connection: its reply, empty when the server refused it. */
    private <T> Optional<T> writeThen(ScriptCall<?> call, Function<Pipeline, Response<T>> then) {
        ensureFenced();
        try (Connection c = DedicatedConnection.serverOf(client, call.keys().get(0)).getResource();
             Pipeline p = new Pipeline(c, false)) {
            Response<Object> written = p.evalsha(call.script().shaBytes(), call.keys(), call.args());
            Response<T> after = then.apply(p);
            p.sync();
            try {
                call.decode(written.get());
            } catch (JedisNoScriptException e) {
                load(call.script(), call.keys().get(0));
                return writeThen(call, then);
            } catch (JedisDataException e) {
                throw WireErrors.map(e);
            }
            try {
                return Optional.ofNullable(after.get());
            } catch (JedisDataException refused) {
                return Optional.empty();
            }
        } catch (JedisConnectionException e) {
            fenced = false;
            throw e;
        }
    }

    private Object evalOnce(ScriptCall<?> call) {
        try {
            return client.evalsha(call.script().shaBytes(), call.keys(), call.args());
        } catch (JedisNoScriptException e) {
            throw e;
        } catch (JedisConnectionException e) {
            fenced = false;
            throw e;
        } catch (JedisDataException e) {
            throw WireErrors.map(e);
        }
    }

    private void load(Script script, byte[] sampleKey) {
        String got = new String(client.scriptLoad(script.sourceBytes(), sampleKey), StandardCharsets.US_ASCII);
        if (!got.equals(script.sha())) {
            throw new EmqWireException.ScriptMismatch(script, got);
        }
    }

    private void ensureFenced() {
        if (fenced) {
            return;
        }
        synchronized (this) {
            if (!fenced && !version.isEmpty()) {
                VersionFence.check(client, version);
                fenced = true;
            }
        }
    }

    /** Whether a key exists ({@code EXISTS}; a plain read, never fenced). */
    public boolean exists(byte[] key) {
        return client.exists(key);
    }

    /** How many of each group of keys exist, in order ({@code EXISTS} a group, one pipeline; on a cluster, a group is of one slot). */
    public List<Long> existing(List<List<byte[]>> groups) {
        return pipelined(groups, (p, keys) -> p.exists(keys.toArray(byte[][]::new)));
    }

    /** These fields of one hash, in order, null where absent ({@code HMGET}; none asked, none read). */
    public List<byte[]> hmget(byte[] key, List<byte[]> fields) {
        return fields.isEmpty() ? List.of() : client.hmget(key, fields.toArray(byte[][]::new));
    }

    /**
     * The hashes at these keys as {@code HGETALL} replies them, in order: each its fields and values
     * alternating, as sent (RESP2; empty where a key has none). Nothing is hashed or copied.
     */
    public List<List<byte[]>> hgetAllFlat(List<byte[]> keys) {
        List<Object> replies = pipelined(keys, (p, key) -> p.sendCommand(new CommandArguments(Protocol.Command.HGETALL).key(key)));
        List<List<byte[]>> out = new ArrayList<>(replies.size());
        for (Object reply : replies) {
            @SuppressWarnings("unchecked") // RESP2: an array of bulk strings
            List<byte[]> flat = (List<byte[]>) reply;
            out.add(flat);
        }
        return out;
    }

    /** The type of a key ({@code TYPE}: "none" when absent). */
    public String type(byte[] key) {
        return client.type(key);
    }

    /** Deletes these keys, reclaiming their memory in the background ({@code UNLINK}, pipelined); returns how many existed. */
    public long unlink(List<byte[]> keys) {
        return pipelined(keys, AbstractPipeline::unlink).stream().mapToLong(Long::longValue).sum();
    }

    /** The same fields of each of these hashes, in order ({@code HMGET}, pipelined): per hash, the values, null where absent. */
    public List<List<byte[]>> hmget(List<byte[]> keys, List<byte[]> fields) {
        byte[][] asked = fields.toArray(byte[][]::new);
        return pipelined(keys, (p, key) -> p.hmget(key, asked));
    }

    /** The values of these string keys, null where absent ({@code MGET}: on a cluster, keys of one slot). */
    public List<String> mget(List<String> keys) {
        return keys.isEmpty() ? List.of() : client.mget(keys.toArray(String[]::new));
    }

    /** One field of a hash, null when absent ({@code HGET}). */
    public byte[] hget(byte[] key, byte[] field) {
        return client.hget(key, field);
    }

    /** A string key's value, null when absent ({@code GET}). */
    public byte[] get(byte[] key) {
        return client.get(key);
    }

    /** The type of each key, in order ({@code TYPE}, one pipeline; {@code none} where absent). */
    public List<String> types(List<byte[]> keys) {
        return pipelined(keys, AbstractPipeline::type);
    }

    /** Each key's whole list, in order ({@code LRANGE 0 -1}, one pipeline; empty where absent). */
    public List<List<byte[]>> lists(List<byte[]> keys) {
        return pipelined(keys, (p, key) -> p.lrange(key, 0, -1));
    }

    /** Every field of a hash with its value ({@code HGETALL}; empty where absent). */
    public Map<byte[], byte[]> hgetAll(byte[] key) {
        return client.hgetAll(key);
    }

    /** A range of a list, both ends inclusive, negative indexes from the tail ({@code LRANGE}). */
    public List<byte[]> lrange(byte[] key, long from, long to) {
        return client.lrange(key, from, to);
    }

    /** The number of members of a set ({@code SCARD}; 0 where absent). */
    public long scard(byte[] key) {
        return client.scard(key);
    }

    /** The size of a sorted set ({@code ZCARD}; 0 where absent). */
    public long zcard(byte[] key) {
        return client.zcard(key);
    }

    /** The size of each sorted set, in order ({@code ZCARD}, one pipeline; 0 where absent; on a cluster, keys of one slot). */
    public List<Long> zcards(List<byte[]> keys) {
        return pipelined(keys, AbstractPipeline::zcard);
    }

    /** Members of a sorted set by rank, both ends inclusive, in its order ({@code ZRANGE}). */
    public List<byte[]> zrange(byte[] key, long from, long to) {
        return client.zrange(key, from, to);
    }

    /** Members of a sorted set by rank with their scores, both ends inclusive ({@code ZRANGE ... WITHSCORES}). */
    public List<Map.Entry<byte[], Double>> zrangeWithScores(byte[] key, long from, long to) {
        return client.zrangeWithScores(key, from, to).stream()
                .map(t -> Map.entry(t.getBinaryElement(), t.getScore())).toList();
    }

    /** The last {@code n} members of a sorted set in byte order, last first ({@code ZRANGE + - BYLEX REV LIMIT}). */
    public List<byte[]> lastByLex(byte[] key, int n) {
        return client.zrange(key, ZRangeParams.zrangeByLexParams("+".getBytes(StandardCharsets.US_ASCII),
                "-".getBytes(StandardCharsets.US_ASCII)).rev().limit(0, n));
    }

    /** Each member's score, null where it is not a member ({@code ZMSCORE}; none asked, none read). */
    public List<Double> zmscore(byte[] key, List<byte[]> members) {
        return members.isEmpty() ? List.of() : client.zmscore(key, members.toArray(byte[][]::new));
    }

    /**
     * Takes the head of a list, waiting up to {@code timeout} for one to arrive ({@code BLPOP}); true
     * when one was taken. A take, not a read: the one plain command here that changes a key.
     */
    public boolean takeWithin(byte[] key, Duration timeout) {
        return client.blpop(timeout.toMillis() / 1000.0, key) != null;
    }

    /** One command for each of {@code items} (a key, or a group of keys), in one pipeline; the replies in order. */
    private <K, T> List<T> pipelined(List<K> items, BiFunction<AbstractPipeline, K, Response<T>> read) {
        if (items.isEmpty()) {
            return List.of();
        }
        List<Response<T>> responses = new ArrayList<>(items.size());
        inOnePipeline(p -> items.forEach(item -> responses.add(read.apply(p, item))));
        return responses.stream().map(Response::get).toList();
    }

    /** Sends {@code commands} in one pipeline (grouped per node in a cluster); a dropped connection is thrown ({@link CheckedPipeline}). */
    private void inOnePipeline(Consumer<AbstractPipeline> commands) {
        try (AbstractPipeline pipeline = CheckedPipeline.of(client)) {
            commands.accept(pipeline);
            pipeline.sync();
        }
    }

    /** The keys matching {@code pattern}, a page at a time ({@link Scan#keys}). */
    public void scan(String pattern, Consumer<List<String>> pages) {
        Scan.keys(client, pattern, pages);
    }

    /** The fields of one hash matching {@code pattern}, with their values, a page at a time ({@link Scan#hash}). */
    public void hscan(byte[] key, byte[] pattern, Consumer<List<Map.Entry<byte[], byte[]>>> pages) {
        Scan.hash(client, key, pattern, pages);
    }

    /** Closes the client underneath. */
    @Override
    public void close() {
        client.close();
    }
}
