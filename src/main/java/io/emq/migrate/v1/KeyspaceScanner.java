package io.emq.migrate.v1;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.wire.DedicatedConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.PipelineSend;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.Pool;

/**
 * Walks keys with {@code SCAN} (never {@code KEYS}) and reads their {@code TYPE} in one pipeline
 * per batch, so memory is bounded by the batch size whatever the keyspace holds. SCAN may return
 * a key twice while the server rehashes; callers that count must tolerate that.
 */
public final class KeyspaceScanner {
    static final int BATCH = 10_000;
    private final UnifiedJedis jedis;
    private final boolean askingAhead;

    public KeyspaceScanner(UnifiedJedis jedis) {
        this(jedis, false);
    }

    private KeyspaceScanner(UnifiedJedis jedis, boolean askingAhead) {
        this.jedis = jedis;
        this.askingAhead = askingAhead;
    }

    /**
     * A scanner that asks for the next page before it hands a page over, so the server walks the keyspace
     * while the caller works on the page: it holds a second connection meanwhile, so it is for a caller that
     * reads alone (discovery's pass), not for readers that share a pool sized to one connection each.
     */
    KeyspaceScanner askingAhead() {
        return new KeyspaceScanner(jedis, true);
    }

    /** Every key that starts with {@code start} (all keys when empty), in batches with their types. */
    public void scan(Bytes start, Consumer<List<ScannedKey>> batches) {
        scanKeys(start, keys -> batches.accept(typed(keys)));
    }

    /**
     * Every key that starts with {@code start}, in batches, without types. On a cluster, keys under a {@code start} that
     * names one slot by its hash tag are walked on that slot's master; others (keys spread over slots, such as BullMQ's
     * {@code bull:{orders}:…} under {@code bull}) master by master: a cluster client scans one slot's master alone.
     */
    public void scanKeys(Bytes start, Consumer<List<Bytes>> batches) {
        scan(start.isEmpty() ? null : globPrefix(start), !Slots.pins(start.raw()), batches);
    }

    /** Every key matching the glob {@code pattern}, in batches, without types; on a cluster, master by master. */
    public void scanMatching(Bytes pattern, Consumer<List<Bytes>> batches) {
        scan(pattern, true, batches);
    }

    /** The keys matching {@code pattern} (all when null); on a cluster, master by master when {@code spread} over slots. */
    private void scan(Bytes pattern, boolean spread, Consumer<List<Bytes>> batches) {
        ScanParams params = new ScanParams().count(BATCH);
        if (pattern != null) {
            params.match(pattern.raw());
        }
        if (jedis instanceof RedisClusterClient cluster && spread) {
            CommandObjects commands = new CommandObjects(RedisProtocol.RESP2);
            for (Pool<Connection> master : DedicatedConnection.masters(cluster)) {
                try (Connection c = master.getResource()) {
                    walk(cursor -> c.executeCommand(commands.scan(cursor, params)), false, params, batches);
                }
            }
            return;
        }
        walk(cursor -> jedis.scan(cursor, params), askingAhead, params, batches);
    }

    /**
     * Walks one keyspace from the first page {@code scan} gives; {@code ahead}: asks for the next page through a pipeline
     * of the client before it hands a page over.
     */
    private void walk(Function<byte[], ScanResult<byte[]>> scan, boolean ahead, ScanParams params, Consumer<List<Bytes>> batches) {
        ScanResult<byte[]> page = scan.apply(ScanParams.SCAN_POINTER_START_BINARY);
        while (true) {
            boolean last = page.isCompleteIteration();
            AbstractPipeline pipeline = ahead && !last ? CheckedPipeline.of(jedis) : null;
            try (pipeline) {
                Response<ScanResult<byte[]>> next = null;
                if (pipeline != null) {
                    next = pipeline.scan(page.getCursorAsBytes(), params);
                    PipelineSend.now(pipeline);
                }
                List<Bytes> keys = new ArrayList<>(page.getResult().size());
                for (byte[] k : page.getResult()) {
                    keys.add(Bytes.adopt(k)); // the reply's own array: one copy less for each of a million keys
                }
                if (!keys.isEmpty()) {
                    batches.accept(keys);
                }
                if (last) {
                    return;
                }
                if (pipeline == null) {
                    page = scan.apply(page.getCursorAsBytes());
                } else {
                    pipeline.sync();
                    page = next.get();
                }
            }
        }
    }

    /** These keys with their types, read in one pipeline. */
    public List<ScannedKey> typed(List<Bytes> keys) {
        List<Response<String>> types = new ArrayList<>(keys.size());
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            for (Bytes k : keys) {
                types.add(p.type(k.raw()));
            }
            p.sync();
        }
        List<ScannedKey> out = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            out.add(new ScannedKey(keys.get(i), KeyType.parse(types.get(i).get())));
        }
        return out;
    }

    /** A MATCH pattern for "starts with these bytes": glob metacharacters escaped, then {@code *}. */
    static Bytes globPrefix(Bytes start) {
        return glob(start).concat("*");
    }

    /** A glob pattern that matches {@code literal} alone (its glob characters escaped). */
    static Bytes glob(Bytes literal) {
        byte[] raw = literal.raw();
        byte[] out = new byte[raw.length * 2];
        int n = 0;
        for (byte b : raw) {
            if (b == '*' || b == '?' || b == '[' || b == ']' || b == '\\') {
                out[n++] = '\\';
            }
            out[n++] = b;
        }
        return Bytes.of(Arrays.copyOf(out, n));
    }
}
