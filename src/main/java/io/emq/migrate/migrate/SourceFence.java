package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.List;

/** The v1 side's scripts: pause/resume the v1 queue, measure its fingerprint and its jobs' digests, retire it. */
final class SourceFence {
    static final String TOMBSTONE = "echomq:2.0.0-migrated";
    static final long CONTENT_MOD = 1L << 48;
    /** The structures whose cardinality, with the id counter, make the fingerprint (order matters to the script). */
    static final List<String> FINGERPRINTED = List.of("wait", "paused", "active", "prioritized", "delayed",
            "waiting-children", "failed", "completed");

    private SourceFence() {
    }

    static List<?> pause(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_FENCE, fenceKeys(q), List.of(Utf8.bytes("pause")), Replies::asList));
    }

    static long resume(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_FENCE, fenceKeys(q), List.of(Utf8.bytes("resume")), Replies::asLong));
    }

    /**
     * The source's fingerprint: its add counter, the size of each structure, and a digest of every
     * member in order (see {@code migrate_v1_source.lua}); equal fingerprints mean an unchanged source.
     */
    static String fingerprint(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, List.of()), List.of(Utf8.bytes("measure")), Replies::asText));
    }

    /** The digest of what each of these v1 jobs holds (see {@code migrate_v1_source.lua}), in order. */
    static List<String> digests(Wire source, QueueRef q, List<Bytes> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<byte[]> jobKeys = new ArrayList<>(ids.size() * 2);
        for (Bytes id : ids) {
            jobKeys.add(q.jobKey(id).raw());
            jobKeys.add(q.jobSubKey(id, JobSubKind.LOGS).raw());
        }
        List<?> reply = source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, jobKeys), List.of(Utf8.bytes("digest")), Replies::asList));
        return reply.stream().map(Replies::asText).toList();
    }

    /**
     * The content sum retirement checks: the sum, mod 2^48, of the first 12 hex digits of these jobs'
     * digests (each job once; see {@code migrate_v1_source.lua}).
     */
    static long contentSum(long sum, String digest) {
        return (sum + Long.parseLong(digest.substring(0, 12), 16)) % CONTENT_MOD;
    }

    /** What moved between two fingerprints, in an operator's words: "3 adds (id counter 7 -> 10), paused 0 -> 3". */
    static String describe(String before, String after) {
        String[] a = before.split("\\|", -1);
        String[] b = after.split("\\|", -1);
        if (a.length != FINGERPRINTED.size() + 2 || b.length != a.length) {
            return before + " -> " + after;
        }
        List<String> moved = new ArrayList<>();
        if (!a[0].equals(b[0])) {
            String adds = a[0].matches("\\d+") && b[0].matches("\\d+")
                    ? (Long.parseLong(b[0]) - Long.parseLong(a[0])) + " adds " : "";
            moved.add(adds + "(id counter " + (a[0].isEmpty() ? "none" : a[0]) + " -> " + b[0] + ")");
        }
        for (int i = 0; i < FINGERPRINTED.size(); i++) {
            if (!a[i + 1].equals(b[i + 1])) {
                moved.add(FINGERPRINTED.get(i) + " " + a[i + 1] + " -> " + b[i + 1]);
            }
        }
        if (moved.isEmpty() && !a[a.length - 1].equals(b[b.length - 1])) {
            moved.add("jobs moved or reordered within the same sizes");
        }
        return String.join(", ", moved);
    }

    /** Deletes the structures and stamps the tombstone, refused (EMQSTATE) if the fingerprint or the content sum moved. */
    static long retire(Wire source, QueueRef q, String fingerprint, long content, List<byte[]> moreKeys) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, moreKeys), List.of(Utf8.bytes("retire"),
                Utf8.bytes(fingerprint), Utf8.bytes(Long.toString(content)), Utf8.bytes(TOMBSTONE), q.base().raw()), Replies::asLong));
    }

    private static List<byte[]> fenceKeys(QueueRef q) {
        return List.of(q.key(QueueStructure.META).raw(), q.key("wait").raw(), q.key("paused").raw());
    }

    private static List<byte[]> sourceKeys(QueueRef q, List<byte[]> moreKeys) {
        List<byte[]> keys = new ArrayList<>();
        keys.add(q.key(QueueStructure.META).raw());
        keys.add(q.key("id").raw());
        for (String s : FINGERPRINTED) {
            keys.add(q.key(s).raw());
        }
        keys.addAll(moreKeys);
        return keys;
    }
}
