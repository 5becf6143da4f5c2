package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Walks keys with {@code SCAN} (never {@code KEYS}) and reads their {@code TYPE} in one pipeline
 * per batch, so memory is bounded by the batch size whatever the keyspace holds. SCAN may return
 * a key twice while the server rehashes; callers that count must tolerate that.
 */
public final class KeyspaceScanner {
    static final int BATCH = 10_000;
    private final UnifiedJedis jedis;

    public KeyspaceScanner(UnifiedJedis jedis) {
        this.jedis = jedis;
    }

    /** Every key that starts with {@code start} (all keys when empty), in batches with their types. */
    public void scan(Bytes start, Consumer<List<ScannedKey>> batches) {
        scanKeys(start, keys -> batches.accept(typed(keys)));
    }

    /** Every key that starts with {@code start}, in batches, without types. */
    public void scanKeys(Bytes start, Consumer<List<Bytes>> batches) {
        ScanParams params = new ScanParams().count(BATCH);
        if (!start.isEmpty()) {
            params.match(globPrefix(start).raw());
        }
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        ScanResult<byte[]> page;
        do {
            page = jedis.scan(cursor, params);
            List<Bytes> keys = new ArrayList<>(page.getResult().size());
            for (byte[] k : page.getResult()) {
                keys.add(Bytes.adopt(k)); // the reply's own array: one copy less for each of a million keys
            }
            if (!keys.isEmpty()) {
                batches.accept(keys);
            }
            cursor = page.getCursorAsBytes();
        } while (!page.isCompleteIteration());
    }

    /** These keys with their types, read in one pipeline. */
    public List<ScannedKey> typed(List<Bytes> keys) {
        List<Response<String>> types = new ArrayList<>(keys.size());
        try (AbstractPipeline p = jedis.pipelined()) {
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
        byte[] raw = start.raw();
        byte[] out = new byte[raw.length * 2 + 1];
        int n = 0;
        for (byte b : raw) {
            if (b == '*' || b == '?' || b == '[' || b == ']' || b == '\\') {
                out[n++] = '\\';
            }
            out[n++] = b;
        }
        out[n++] = '*';
        return Bytes.of(Arrays.copyOf(out, n));
    }
}
