package io.emq.migrate.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

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

    /** The client underneath, for plain reads and writes that need no script. */
    public UnifiedJedis client() {
        return client;
    }

    /** The wire version this runtime speaks. */
    public String version() {
        return version;
    }

    /** Runs one script; returns its decoded RESP2 reply or throws the mapped refusal. */
    public Object eval(Script script, List<byte[]> keys, List<byte[]> args) {
        ensureFenced();
        try {
            return evalOnce(script, keys, args);
        } catch (JedisNoScriptException e) {
            load(script, keys.get(0));
            return evalOnce(script, keys, args);
        }
    }

    /** Runs one script call. */
    public Object eval(ScriptCall call) {
        return eval(call.script(), call.keys(), call.args());
    }

    /**
     * Pipelines many calls (grouped per node in a cluster). Each call's outcome is reported in
     * order; a call that met {@code NOSCRIPT} is re-sent alone through {@link #eval}.
     */
    public List<ScriptReply> evalAll(List<ScriptCall> calls) {
        ensureFenced();
        List<ScriptReply> out = new ArrayList<>(calls.size());
        List<Response<Object>> responses = new ArrayList<>(calls.size());
        try (AbstractPipeline pipeline = client.pipelined()) {
            for (ScriptCall call : calls) {
                responses.add(pipeline.evalsha(call.script().shaBytes(), call.keys(), call.args()));
            }
            pipeline.sync();
        } catch (JedisConnectionException e) {
            fenced = false;
            throw e;
        }
        for (int i = 0; i < calls.size(); i++) {
            out.add(settle(calls.get(i), responses.get(i)));
        }
        return out;
    }

    private ScriptReply settle(ScriptCall call, Response<Object> response) {
        try {
            return ScriptReply.of(response.get());
        } catch (JedisNoScriptException e) {
            try {
                return ScriptReply.of(eval(call));
            } catch (EmqWireException | JedisDataException refused) {
                return ScriptReply.failed(refused);
            }
        } catch (JedisDataException e) {
            return ScriptReply.failed(WireErrors.map(e));
        }
    }

    private Object evalOnce(Script script, List<byte[]> keys, List<byte[]> args) {
        try {
            return client.evalsha(script.shaBytes(), keys, args);
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

    /** These fields of one hash, in order, null where absent ({@code HMGET}; none asked, none read). */
    public List<byte[]> hmget(byte[] key, List<byte[]> fields) {
        return fields.isEmpty() ? List.of() : client.hmget(key, fields.toArray(byte[][]::new));
    }

    /** The values of these string keys, null where absent ({@code MGET}: on a cluster, keys of one slot). */
    public List<String> mget(List<String> keys) {
        return keys.isEmpty() ? List.of() : client.mget(keys.toArray(String[]::new));
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
