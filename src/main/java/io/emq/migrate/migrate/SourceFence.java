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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The v1 side's scripts: pause/resume the v1 queue, measure its sizes, read its jobs with their digests, retire its
 * jobs (its structures are retired under a {@link SourceGuard}).
 */
final class SourceFence {
    static final String TOMBSTONE = "echomq:2.0.0-migrated";
    /** What the add counter holds while the migration's last pass runs: a v1 add fails until retirement or a resume. */
    static final String FROZEN = "echomq:2.0.0-migrating";
    /** The structures that list the queue's jobs: with the add counter, what {@link SourceGuard} watches (order matters to the script). */
    static final List<String> STRUCTURES = List.of("wait", "paused", "active", "prioritized", "delayed",
            "waiting-children", "failed", "completed");

    private SourceFence() {
    }

    /**
     * Pauses the v1 queue and freezes its add counter (see {@code migrate_v1_fence.lua}): v1 workers fetch
     * nothing more and a v1 add fails loudly until retirement, so the last pass and the atomic retirement
     * see a source that holds still however busy its producers are.
     */
    static List<?> pause(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_FENCE, fenceKeys(q), List.of(Utf8.bytes("pause"),
                Utf8.bytes(FROZEN)), Replies::asList));
    }

    /** Gives a frozen add counter its value back; the queue stays paused (it was paused before the migration). */
    static void thaw(Wire source, QueueRef q) {
        source.eval(new ScriptCall<>(Script.MIGRATE_V1_FENCE, fenceKeys(q), List.of(Utf8.bytes("thaw"), Utf8.bytes(FROZEN)),
                Replies::asLong));
    }

    /** Thaws the add counter and resumes the v1 queue; jobs added while it was paused go back to wait in order. */
    static long resume(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_FENCE, fenceKeys(q), List.of(Utf8.bytes("resume"),
                Utf8.bytes(FROZEN)), Replies::asLong));
    }

    /**
     * The source's sizes, "<add counter>|<size of wait>|...|<size of completed>", O(1) (see
     * {@code migrate_v1_source.lua}): not a proof of anything (a {@link SourceGuard} is), what a refusal
     * compares ({@link #describe}) to say what moved.
     */
    static String sizes(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, List.of()), List.of(Utf8.bytes("sizes")), Replies::asText));
    }

    /** The digest of what each of these v1 jobs holds (see {@code migrate_v1_source.lua}), in order. */
    static List<String> digests(Wire source, QueueRef q, List<Bytes> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<?> reply = source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, jobKeys(q, ids)),
                List.of(Utf8.bytes("digest")), Replies::asList));
        return reply.stream().map(Replies::asText).toList();
    }

    /** One v1 job as read at one instant: the digest of what it holds and its hash (empty when it has none). */
    record Job(String digest, Map<Bytes, Bytes> hash) {
    }

    /** These v1 jobs, each read with its digest in one step (see {@code migrate_v1_source.lua}), in order. */
    static List<Job> read(Wire source, QueueRef q, List<Bytes> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<?> reply = source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, jobKeys(q, ids)),
                List.of(Utf8.bytes("read")), Replies::asList));
        List<Job> jobs = new ArrayList<>(ids.size());
        for (int i = 0; i < reply.size(); i += 2) {
            List<Object> flat = Replies.asList(reply.get(i + 1));
            Map<Bytes, Bytes> hash = new HashMap<>();
            for (int f = 0; f < flat.size(); f += 2) {
                hash.put(Bytes.of(Replies.asBytes(flat.get(f))), Bytes.of(Replies.asBytes(flat.get(f + 1))));
            }
            jobs.add(new Job(Replies.asText(reply.get(i)), hash));
        }
        return jobs;
    }

    /**
     * What moved between two {@link #sizes}, in an operator's words: "3 adds (id counter 7 -> 10), paused 0 -> 3";
     * "jobs moved or edited within the same sizes" when every size held.
     */
    static String describe(String before, String after) {
        String[] a = before.split("\\|", -1);
        String[] b = after.split("\\|", -1);
        if (a.length != STRUCTURES.size() + 1 || b.length != a.length) {
            return before + " -> " + after;
        }
        List<String> moved = new ArrayList<>();
        if (!a[0].equals(b[0])) {
            String adds = a[0].matches("\\d+") && b[0].matches("\\d+")
                    ? (Long.parseLong(b[0]) - Long.parseLong(a[0])) + " adds " : "";
            moved.add(adds + "(id counter " + (a[0].isEmpty() ? "none" : a[0]) + " -> " + b[0] + ")");
        }
        for (int i = 0; i < STRUCTURES.size(); i++) {
            if (!a[i + 1].equals(b[i + 1])) {
                moved.add(STRUCTURES.get(i) + " " + a[i + 1] + " -> " + b[i + 1]);
            }
        }
        return moved.isEmpty() ? "jobs moved or edited within the same sizes" : String.join(", ", moved);
    }

    /** What one {@code retire_jobs} call did: how many keys it deleted, and which jobs (by position) moved. */
    record RetiredJobs(long deleted, List<Integer> moved) {
    }

    /**
     * Deletes each of these jobs of a tombstoned queue whose digest is still the one given (the one v2
     * holds), in one step; a job whose digest moved is kept whole and named by its position.
     */
    static RetiredJobs retireJobs(Wire source, QueueRef q, List<Bytes> ids, List<String> digests) {
        List<byte[]> args = new ArrayList<>(digests.size() + 2);
        args.add(Utf8.bytes("retire_jobs"));
        args.add(Utf8.bytes(TOMBSTONE));
        digests.forEach(d -> args.add(Utf8.bytes(d)));
        List<?> reply = source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, jobKeys(q, ids)), args, Replies::asList));
        List<Integer> moved = reply.stream().skip(1).map(n -> (int) Replies.asLong(n) - 1).toList();
        return new RetiredJobs(Replies.asLong(reply.get(0)), moved);
    }

    private static List<byte[]> jobKeys(QueueRef q, List<Bytes> ids) {
        List<byte[]> keys = new ArrayList<>(ids.size() * 2);
        for (Bytes id : ids) {
            keys.add(q.jobKey(id).raw());
            keys.add(q.jobSubKey(id, JobSubKind.LOGS).raw());
        }
        return keys;
    }

    private static List<byte[]> fenceKeys(QueueRef q) {
        return List.of(q.key(QueueStructure.META).raw(), q.key("wait").raw(), q.key("paused").raw(), q.key("id").raw());
    }

    private static List<byte[]> sourceKeys(QueueRef q, List<byte[]> moreKeys) {
        List<byte[]> keys = new ArrayList<>();
        keys.add(q.key(QueueStructure.META).raw());
        keys.add(q.key("id").raw());
        for (String s : STRUCTURES) {
            keys.add(q.key(s).raw());
        }
        keys.addAll(moreKeys);
        return keys;
    }
}
