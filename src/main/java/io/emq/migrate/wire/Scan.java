package io.emq.migrate.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The one way this code walks a keyspace ({@code SCAN}) or a hash ({@code HSCAN}): a page at a
 * time, so a large keyspace or journal is never held whole. A page may repeat a key or field seen
 * before (the server's promise), so callers do only what is safe to do twice.
 */
public final class Scan {
    /** The {@code COUNT} hint of every page. */
    public static final int PAGE = 1000;

    private Scan() {
    }

    /**
     * The keys matching {@code pattern}, page by page. On a cluster the pattern names one slot by its hashtag
     * ({@code {emq}:migration:*}), scanned on the master that serves it: not on every node, whose replicas would
     * repeat its keys, and one of which stalled or down would stall or fail the scan.
     */
    public static void keys(UnifiedJedis client, String pattern, Consumer<List<String>> pages) {
        ScanParams params = new ScanParams().match(pattern).count(PAGE);
        walk(cursor -> client.scan(new String(cursor, StandardCharsets.UTF_8), params), pages);
    }

    /** Every key matching {@code pattern}. */
    public static List<String> keys(UnifiedJedis client, String pattern) {
        List<String> out = new ArrayList<>();
        keys(client, pattern, out::addAll);
        return out;
    }

    /** The keys matching a binary {@code pattern} (v1 keys need not be UTF-8), page by page. */
    public static void keys(UnifiedJedis client, byte[] pattern, Consumer<List<byte[]>> pages) {
        ScanParams params = new ScanParams().match(pattern).count(PAGE);
        walk(cursor -> client.scan(cursor, params), pages);
    }

    /** The fields (with values) of one hash matching {@code pattern}, page by page ({@code HSCAN}). */
    public static void hash(UnifiedJedis client, byte[] key, byte[] pattern, Consumer<List<Map.Entry<byte[], byte[]>>> pages) {
        ScanParams params = new ScanParams().match(pattern).count(PAGE);
        walk(cursor -> client.hscan(key, cursor, params), pages);
    }

    /** A {@code MATCH} pattern for everything that starts with these bytes (glob characters escaped). */
    public static byte[] startingWith(byte[] prefix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + 8);
        for (byte b : prefix) {
            if (b == '\\' || b == '*' || b == '?' || b == '[' || b == ']') {
                out.write('\\');
            }
            out.write(b);
        }
        out.write('*');
        return out.toByteArray();
    }

    /** As {@link #startingWith(byte[])}, for a text prefix. */
    public static String startingWith(String prefix) {
        return new String(startingWith(prefix.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    private static <T> void walk(Function<byte[], ScanResult<T>> call, Consumer<List<T>> pages) {
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<T> page = call.apply(cursor);
            if (!page.getResult().isEmpty()) {
                pages.accept(page.getResult());
            }
            cursor = page.getCursorAsBytes();
        } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    }
}
