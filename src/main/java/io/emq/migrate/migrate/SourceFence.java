package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The v1 side's scripts: pause/resume the v1 queue, measure its sizes, read its jobs with their digests (with plain
 * reads and a digest computed here when a job has no logs or flow keys), retire its jobs (its structures are
 * retired under a {@link SourceGuard}).
 */
final class SourceFence {
    static final String TOMBSTONE = QueueSnapshot.TOMBSTONE;
    /** What the add counter holds while the migration's last pass runs: a v1 add fails until retirement or a resume. */
    static final String FROZEN = "echomq:2.0.0-migrating";
    /** The structures that list the queue's jobs: with the add counter, what {@link SourceGuard} watches (order matters to the script). */
    static final List<String> STRUCTURES = List.of("wait", "paused", "active", "prioritized", "delayed",
            "waiting-children", "failed", "completed");

    private SourceFence() {
    }

    /** Whether the v1 queue's meta holds the tombstone: a migration retired it, or began to. */
    static boolean tombstoned(Wire source, QueueRef q) {
        return holder(source, q).tombstoned();
    }

    /**
     * Who holds the v1 queue, as its meta tells: whether it holds the tombstone, the token of the migration (or abandon)
     * that took it last ({@link SourceToken}; kept after the tombstone, naming the migration that retired it), and
     * whether a migration's pause window is open (meta.migrating-id: its add counter frozen).
     */
    record Holder(boolean tombstoned, Optional<SourceToken> token, boolean pauseWindowOpen) {
        /** Whether another journal than the one of {@code token} ({@link Journal#sourceToken}) took the queue last. */
        boolean takenByAnother(String token) {
            return this.token.isPresent() && SourceToken.parse(token).map(mine -> this.token.get().ofAnotherJournal(mine)).orElse(false);
        }

        /** Whether another journal's migration retired the queue: the tombstone, with a token not of {@code token}'s journal. */
        boolean retiredByAnother(String token) {
            return tombstoned && takenByAnother(token);
        }

        String describe() {
            return token.map(t -> "the migration with token " + t.journal() + ":" + t.fence()).orElse("a migration");
        }
    }

    static Holder holder(Wire source, QueueRef q) {
        List<byte[]> fields = source.hmget(q.key(QueueStructure.META).raw(),
                List.of(Utf8.bytes("version"), Utf8.bytes("migrating-token"), Utf8.bytes("migrating-id")));
        return new Holder(TOMBSTONE.equals(Replies.asText(fields.get(0))), SourceToken.parse(Replies.asText(fields.get(1))),
                fields.get(2) != null);
    }

    /** What a claim found ({@link #claim}). */
    enum Claim {
        /** The queue shows no pause of this journal's migrations (or has no meta, or another migration holds its pause window): left as it was, but for the token. */
        NOT_PAUSED_HERE,
        /** The queue shows a pause of this journal's migrations: the one a give-back may undo. */
        PAUSED_HERE,
        /** Another journal's migration retired the queue (the tombstone with its token): nothing written. */
        RETIRED_BY_ANOTHER
    }

    /**
     * Takes the v1 queue for the migration (or abandon) whose lease holds {@code token} ({@link SourceToken}, see
     * {@code migrate_v1_fence.lua}): the token goes on meta, so a migrator of that journal whose lease lapsed can
     * no longer pause, resume or retire the queue; a queue without meta is left as it is (a claim creates no key), and
     * so is one inside another journal's pause window, or retired by another journal's migration.
     * Refused, nothing written, when a token that supersedes {@code token} took it ({@link EmqWireException.Lock})
     * or meta holds the tombstone of this journal's migration ({@link EmqWireException.State}); every op below is refused as a claim is, by a
     * token that supersedes the caller's. Returns what it found ({@link Claim}): a pause of this journal's migrations
     * (a token of the journal's was on meta, or, with no token, the add counter is frozen) is the one a give-back may undo.
     */
    static Claim claim(Wire source, QueueRef q, String token) {
        long found = fence(source, q, "claim", token, Replies::asLong);
        return found == 3 ? Claim.RETIRED_BY_ANOTHER : found == 2 ? Claim.PAUSED_HERE : Claim.NOT_PAUSED_HERE;
    }

    /**
     * Takes the v1 queue (as {@link #claim} does, but for the tombstone), pauses it and freezes its add counter:
     * v1 workers fetch nothing more and a v1 add fails loudly until retirement, so the last pass and the atomic
     * retirement see a source that holds still however busy its producers are.
     */
    static List<?> pause(Wire source, QueueRef q, String token) {
        return fence(source, q, "pause", token, Replies::asList);
    }

    /** Gives a frozen add counter its value back; the queue stays paused (it was paused before the migration). */
    static void thaw(Wire source, QueueRef q, String token) {
        fence(source, q, "thaw", token, Replies::asLong);
    }

    /**
     * Thaws the add counter and resumes the v1 queue (jobs added while it was paused go back to wait in order), unless
     * it was paused when the migration's pause window opened (an operator's pause): then a thaw only. The number of
     * jobs handed back to wait, or -1 when the queue stays paused.
     */
    static long resume(Wire source, QueueRef q, String token) {
        return fence(source, q, "resume", token, Replies::asLong);
    }

    /**
     * Gives the v1 queue back after the migration's pause: a thaw only when it was paused before the migration
     * ({@code pausedBefore}), else a {@link #resume} (itself a thaw only when the queue was paused as the window
     * opened). Whether the queue serves again.
     */
    static boolean giveBack(Wire source, QueueRef q, String token, boolean pausedBefore) {
        if (pausedBefore) {
            thaw(source, q, token);
            return false;
        }
        return resume(source, q, token) >= 0;
    }

    private static <T> T fence(Wire source, QueueRef q, String op, String token, Function<Object, T> reply) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_FENCE, fenceKeys(q), List.of(Utf8.bytes(op), Utf8.bytes(FROZEN),
                Utf8.bytes(token), Utf8.bytes(TOMBSTONE)), reply));
    }

    /**
     * The source's sizes, "<add counter>|<size of wait>|...|<size of completed>", O(1) (see
     * {@code migrate_v1_source.lua}): not a proof of anything (a {@link SourceGuard} is), what a refusal
     * compares ({@link #describe}) to say what moved.
     */
    static String sizes(Wire source, QueueRef q) {
        return source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, List.of()), List.of(Utf8.bytes("sizes")), Replies::asText));
    }

    /** The digest of what each of these v1 jobs holds ({@link #read}), in order. */
    static List<String> digests(Wire source, QueueRef q, List<Bytes> ids) {
        return read(source, q, ids).stream().map(Job::digest).toList();
    }

    /** One v1 job as read: the digest of what it holds and its hash (empty when it has none). */
    record Job(String digest, FlatHash hash) {
    }

    /**
     * These v1 jobs, each with its digest (see {@code migrate_v1_source.lua}), in order. A job with no
     * logs list and no flow key is read with a plain pipelined {@code HGETALL} and its digest computed
     * here ({@link #digest}); one {@code EXISTS} over those keys of the batch says whether any job has
     * them, and only then one a job says which. Those jobs, and the jobs whose key is not a hash, are
     * read by the script's {@code read}, each hash with its digest at one instant.
     * A job read here may be edited, or gain a log, between the two reads; its digest is still that of
     * the bytes read and of no logs or flow keys, so a later digest equal to it still means the job
     * holds exactly the bytes read and has no logs or flow keys (one that differs: the job moved).
     */
    static List<Job> read(Wire source, QueueRef q, List<Bytes> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<List<byte[]>> extras = ids.stream().map(id -> EXTRAS.stream().map(kind -> q.jobSubKey(id, kind).raw()).toList()).toList();
        List<Long> withExtras = source.existing(List.of(extras.stream().flatMap(List::stream).toList())).get(0) > 0
                ? source.existing(extras) : Collections.nCopies(ids.size(), 0L);
        List<Bytes> plain = new ArrayList<>(ids.size());
        List<Bytes> scripted = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            (withExtras.get(i) > 0 ? scripted : plain).add(ids.get(i));
        }
        return read(source, q, ids, plain, scripted);
    }

    /**
     * These v1 jobs as {@link #read} reads them, except that none is checked for logs or flow keys: each
     * whose key is a hash is read plainly and digested as a job with none (the others by the script).
     * For a caller that knows no job had any when the queue's keys were scanned ({@link #noExtrasScanned})
     * and that any created since is told by the change feed: such a job's digest here (of no logs or flow
     * keys) differs from the one it now has, so the re-sync passes read it again with them and copy it again. Or, without
     * the feed, for a re-sync pass whose own whole read scanned the keys: the next pass's scan meets one created since,
     * and after the pass under the pause the retirement finds the job's digest changed and copies it again.
     */
    static List<Job> readWithoutExtras(Wire source, QueueRef q, List<Bytes> ids) {
        return ids.isEmpty() ? List.of() : read(source, q, ids, ids, List.of());
    }

    /**
     * How the jobs of this snapshot, read with a key scan, are best read ({@link JobWriter}): as {@link #readWithoutExtras}
     * when the scan met no logs list or flow key; when it met logs lists only, the jobs it met one of by the script and
     * the others plainly, digested as jobs with none (a list created since the scan moves the job's digest, as for
     * {@link #readWithoutExtras}, and a pass copies it again); else as {@link #read}, each batch asked.
     */
    static JobRead asScanned(QueueSnapshot scanned) {
        if (noExtrasScanned(scanned)) {
            return SourceFence::readWithoutExtras;
        }
        if (!noFlowKeysScanned(scanned)) {
            return SourceFence::read;
        }
        return (source, q, ids) -> read(source, q, ids, ids.stream().filter(id -> !scanned.hasLogs(id)).toList(),
                ids.stream().filter(scanned::hasLogs).toList());
    }

    /**
     * Whether the key scan that read this snapshot met no job's logs list or flow key (a snapshot
     * refreshed without a scan, {@code QueueSnapshotReader#refresh}, cannot tell: only a scanned one may be asked).
     */
    static boolean noExtrasScanned(QueueSnapshot scanned) {
        return noFlowKeysScanned(scanned) && !scanned.subkeys().containsKey(JobSubKind.LOGS);
    }

    /** As {@link #noExtrasScanned}, logs lists aside: whether the key scan met no flow key. */
    static boolean noFlowKeysScanned(QueueSnapshot scanned) {
        return EXTRAS.stream().noneMatch(kind -> kind != JobSubKind.LOGS && scanned.subkeys().containsKey(kind));
    }

    /**
     * Reads {@code plain} with pipelined {@code HGETALL}s (digested here) and {@code scripted} with the
     * script; a job of {@code plain} whose key is not a hash goes to the script too (its digest names
     * the key's type). Returns the jobs of {@code ids} (the two lists' union), in order.
     */
    private static List<Job> read(Wire source, QueueRef q, List<Bytes> ids, List<Bytes> plain, List<Bytes> scripted) {
        Map<Bytes, Job> read = new HashMap<>();
        List<Bytes> hashed = plain;
        List<Bytes> byScript = scripted;
        List<FlatHash> hashes;
        try {
            hashes = hashes(source, hashKeys(q, plain));
        } catch (JedisDataException notAHash) {
            List<String> types = source.types(hashKeys(q, plain));
            hashed = new ArrayList<>();
            byScript = new ArrayList<>(scripted);
            for (int i = 0; i < plain.size(); i++) {
                ("hash".equals(types.get(i)) || "none".equals(types.get(i)) ? hashed : byScript).add(plain.get(i));
            }
            try {
                hashes = hashes(source, hashKeys(q, hashed));
            } catch (JedisDataException changedType) {
                throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "v1 job keys of " + q.display()
                        + " changed type while they were read: v1 producers or workers are writing them; stop them, then re-run");
            }
        }
        for (int i = 0; i < hashed.size(); i++) {
            read.put(hashed.get(i), new Job(digest(hashes.get(i)), hashes.get(i)));
        }
        List<Job> scriptRead = readByScript(source, q, byScript);
        for (int i = 0; i < byScript.size(); i++) {
            read.put(byScript.get(i), scriptRead.get(i));
        }
        return ids.stream().map(read::get).toList();
    }

    private static List<byte[]> hashKeys(QueueRef q, List<Bytes> ids) {
        return ids.stream().map(id -> q.jobKey(id).raw()).toList();
    }

    /** The hashes at these keys, in order (plain pipelined {@code HGETALL}; empty where a key has none). */
    static List<FlatHash> hashes(Wire source, List<byte[]> keys) {
        return source.hgetAllFlat(keys).stream().map(FlatHash::of).toList();
    }

    /** The keys a job's digest covers besides its hash, when it has them. */
    static final List<JobSubKind> EXTRAS = List.of(JobSubKind.LOGS, JobSubKind.DEPENDENCIES, JobSubKind.PROCESSED,
            JobSubKind.FAILED, JobSubKind.UNSUCCESSFUL);

    /** These v1 jobs read by the script's {@code read}: each hash with its digest, logs and flow keys included, at one instant. */
    static List<Job> readByScript(Wire source, QueueRef q, List<Bytes> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<?> reply = source.eval(new ScriptCall<>(Script.MIGRATE_V1_SOURCE, sourceKeys(q, jobKeys(q, ids)),
                List.of(Utf8.bytes("read")), Replies::asList));
        List<Job> jobs = new ArrayList<>(ids.size());
        for (int i = 0; i < reply.size(); i += 2) {
            List<byte[]> flat = Replies.asList(reply.get(i + 1)).stream().map(Replies::asBytes).toList();
            jobs.add(new Job(Replies.asText(reply.get(i)), FlatHash.of(flat)));
        }
        return jobs;
    }

    /**
     * The digest {@code migrate_v1_source.lua} gives a job with no logs list and no flow keys: the first
     * 16 hex digits of the SHA-1 over its hash's {@code <length>:<field><length>:<value>} pairs in byte
     * order (lengths in bytes, in decimal), or over {@code none} when it has no hash.
     */
    static String digest(FlatHash hash) {
        MessageDigest sha1 = Sha1.digester();
        if (hash.isEmpty()) {
            sha1.update(NONE);
        } else {
            byte[][] pairs = new byte[hash.size()][];
            for (int i = 0; i < pairs.length; i++) {
                pairs[i] = pair(hash.fieldAt(i), hash.valueAt(i));
            }
            Arrays.sort(pairs, Arrays::compareUnsigned);
            for (byte[] pair : pairs) {
                sha1.update(pair);
            }
        }
        return HEX.formatHex(sha1.digest(), 0, 8);
    }

    private static final byte[] NONE = Utf8.bytes("none");
    private static final HexFormat HEX = HexFormat.of();

    /** {@code <length>:<field><length>:<value>}, the lengths in decimal ASCII. */
    private static byte[] pair(byte[] field, byte[] value) {
        int fieldDigits = digits(field.length);
        int valueDigits = digits(value.length);
        byte[] out = new byte[fieldDigits + 1 + field.length + valueDigits + 1 + value.length];
        int at = length(out, 0, field.length, fieldDigits);
        System.arraycopy(field, 0, out, at, field.length);
        at = length(out, at + field.length, value.length, valueDigits);
        System.arraycopy(value, 0, out, at, value.length);
        return out;
    }

    /** How many decimal digits {@code n} (not negative) has. */
    static int digits(int n) {
        int digits = 1;
        for (int rest = n / 10; rest > 0; rest /= 10) {
            digits++;
        }
        return digits;
    }

    /**
     * Writes {@code n} in its {@code digits} decimal digits and a colon at {@code at}; returns the position after them
     * (a digest's pair, and a {@code v2r:} block's entry, {@link ClientMint}).
     */
    static int length(byte[] out, int at, int n, int digits) {
        for (int i = at + digits - 1, rest = n; i >= at; i--, rest /= 10) {
            out[i] = (byte) ('0' + rest % 10);
        }
        out[at + digits] = ':';
        return at + digits + 1;
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
