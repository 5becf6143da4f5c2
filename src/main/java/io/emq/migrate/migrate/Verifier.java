package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.ParsedKey;
import io.emq.migrate.keyspace.Part;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.PayloadDigest;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.SharedScan;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import redis.clients.jedis.RedisClusterClient;

/**
 * Re-checks a migrated queue against its journal, with reads only: every journaled job has its row
 * in the expected state and structure, with the expected attempts and the payload written from its v1
 * data (its SHA-1, recorded when written), each batch of rows read with plain pipelined reads and
 * checked here (the server's one thread does no more than read), and listed in its set (pending,
 * schedule and dead walked once, not asked about row by row: {@link Listings}); the
 * structures hold at least the journaled counts; every key of the queue parses under the v2 grammar;
 * and, while the source still exists, every v1 job that gets a row is journaled with its digest.
 */
public final class Verifier {
    static final int BATCH = 500;
    static final int MAX_PROBLEMS = 20;
    /** What is read of each row: its state, attempts, payload and group. */
    private static final List<byte[]> ROW_FIELDS = List.of(Utf8.bytes("state"), Utf8.bytes("attempts"),
            Utf8.bytes("payload"), Utf8.bytes("group"));

    /** The verdict: counts expected and found per v2 state, and the problems found (empty when it passed). */
    public record Report(String queue, Map<String, Long> expected, Map<String, Long> found, long jobsChecked,
                         long keysChecked, List<String> problems, long problemCount, long rowsMissing, long setsShortByMissing) {
        public boolean passed() {
            return problemCount == 0;
        }

        /**
         * Whether every problem is a row gone: its row missing, or a set holding fewer than the journal expects by no more
         * than the rows of its state that are missing (what a v2 queue that served jobs since its migration shows).
         */
        public boolean onlyRowsGone() {
            return rowsMissing > 0 && problemCount == rowsMissing + setsShortByMissing;
        }
    }

    private final Wire target;
    private final SharedScan<String> keyScan;
    private final String queue;
    private final Keys keys;
    private final RowKeys rowKeys;
    private final Journal journal;
    /** The set the pending rows of each group met so far are listed in: the group's lane, or pending for a group that names none. */
    private final Map<String, String> groups = new TreeMap<>();
    /** The lanes' pending sets the key check met: with the groups' sets, every place a pending row is listed. */
    private final Set<String> laneKeys = new TreeSet<>();
    private final Map<String, Long> expected = new LinkedHashMap<>();
    private PayloadPolicy policy;
    /** Checks the rows' listings: walks pending, schedule and dead in a whole verification, asks in {@link #verifyRows}. */
    private Listings listings;
    private final List<String> problems = new ArrayList<>();
    private long problemCount;
    /** The rows the journal expects that the target does not hold. */
    private long rowsMissing;
    /** Those missing rows by the state the journal expects of them. */
    private final Map<String, Long> missingByState = new LinkedHashMap<>();
    /** The sets holding fewer rows than the journal expects, by no more than the rows of their state that are missing. */
    private long setsShortByMissing;
    private long jobsChecked;

    public Verifier(Wire target, String queue) {
        this(target, queue, SharedScan.v2(target.client(), target.client() instanceof RedisClusterClient));
    }

    /** As above, the queue's keys found by {@code keys}, a scan the verifiers of other queues may share. */
    Verifier(Wire target, String queue, SharedScan<String> keys) {
        this.target = target;
        this.keyScan = keys;
        this.queue = queue;
        this.keys = Keys.queue(queue);
        this.rowKeys = new RowKeys(this.keys);
        this.journal = new Journal(target, queue);
    }

    public Report verify(Optional<QueueSnapshot> source, MigrationOptions options) {
        List<byte[]> fields = new ArrayList<>(MintedRanks.FIELDS);
        fields.add(Utf8.bytes(Expectations.COUNT));
        List<byte[]> read = journal.read(fields);
        MintedRanks minted = MintedRanks.of(read.get(0), read.get(1));
        if (minted.base().isEmpty() && !journal.exists()) {
            problem("no journal " + journal.key() + " on the target: the queue was never migrated there");
            return report(Map.of(), 0);
        }
        listings = new Listings(target, Set.of(keys.pending(), keys.schedule(), keys.dead()), minted, this::notListed,
                this::scoredOff);
        boolean oneBatch = minted.hwm() <= BATCH; // and its keys fit one page of the key scan
        checkJournaledRows(minted, Optional.ofNullable(read.get(2)).map(Replies::asText), oneBatch);
        listings.finish();
        source.ifPresent(snap -> checkSource(snap, options));
        long keysChecked = checkKeys(oneBatch);
        Map<String, Long> found = new LinkedHashMap<>();
        Set<String> lanes = new TreeSet<>(groups.values());
        lanes.addAll(laneKeys);
        lanes.remove(keys.pending());
        List<byte[]> sets = new ArrayList<>(List.of(Utf8.bytes(keys.schedule()), Utf8.bytes(keys.dead()), Utf8.bytes(keys.pending())));
        lanes.forEach(lane -> sets.add(Utf8.bytes(lane)));
        List<Long> sizes = target.zcards(sets);
        found.put(V2State.PENDING.wireName(), sizes.subList(2, sizes.size()).stream().mapToLong(Long::longValue).sum());
        found.put(V2State.SCHEDULED.wireName(), sizes.get(0));
        found.put(V2State.DEAD.wireName(), sizes.get(1));
        for (String set : found.keySet()) {
            if (found.get(set) < expected.getOrDefault(set, 0L)) {
                if (found.get(set) + missingByState.getOrDefault(set, 0L) >= expected.get(set)) {
                    setsShortByMissing++;
                }
                problem(set + " holds " + found.get(set) + " jobs, the journal expects at least " + expected.get(set));
            }
        }
        return report(found, keysChecked);
    }

    /**
     * Checks only these journaled rows, as {@link #verify} checks each row (the last pass under the v1
     * pause proves what it wrote; a full verification proved the rest while v1 was live, and the paused
     * v2 queue changes only by the migration's writes).
     */
    Report verifyRows(List<BrandedId> ids) {
        listings = new Listings(target, Set.of(), new MintedRanks(Optional.empty(), 0), this::notListed, this::scoredOff);
        Migratable.inBatches(ids, BATCH, batch -> checkRows(read(journal.expectations().of(batch))));
        return report(Map.of(), 0);
    }

    /**
     * The jobs the v2 queue completed since its migration: its {@code metrics:completed} count beyond the v1 completed
     * jobs the migration folded into it ({@link FinishedCounts}); a v2 queue that completed jobs of its own before the
     * migration counts those too.
     */
    public long completedSinceMigration() {
        List<byte[]> counts = target.hmget(List.of(Utf8.bytes(keys.metricsCompleted())),
                List.of(Utf8.bytes("count"), Utf8.bytes(FinishedCounts.Metric.COMPLETED.foldedField))).get(0);
        long count = counts.get(0) == null ? 0 : Long.parseLong(Replies.asText(counts.get(0)));
        long folded = counts.get(1) == null ? 0 : Long.parseLong(Replies.asText(counts.get(1)));
        return Math.max(0, count - folded);
    }

    private Report report(Map<String, Long> found, long keysChecked) {
        return new Report(queue, Map.copyOf(expected), found, jobsChecked, keysChecked, List.copyOf(problems), problemCount,
                rowsMissing, setsShortByMissing);
    }

    /**
     * Checks every journaled row, a batch at a time: a reader thread reads the journal's expectations
     * and the rows (one batch ahead) while the batch before is compared here, unless {@code oneBatch}
     * ({@link ReadAhead}). {@code journaled}: the journal's {@code expected_rows}, read with {@code minted}
     * (nothing writes expectations meanwhile).
     */
    private void checkJournaledRows(MintedRanks minted, Optional<String> journaled, boolean oneBatch) {
        ReadAhead.<Rows>run("the rows of " + queue, oneBatch, ahead -> journal.expectations().forEach(BATCH, minted, journaled,
                want -> ahead.accept(read(want))), this::checkRows);
    }

    /** A batch of journaled rows: what the journal expects of each, and what each row holds ({@link #ROW_FIELDS}, in order). */
    private record Rows(Map<BrandedId, Expectation> want, List<List<byte[]>> found) {
    }

    /** Reads these rows' fields ({@code HMGET}, one pipeline). */
    private Rows read(Map<BrandedId, Expectation> want) {
        return new Rows(want, target.hmget(want.keySet().stream().map(rowKeys::of).toList(), ROW_FIELDS));
    }

    /**
     * Checks these rows as read, the payload by its digest; then hands each set the rows must be listed
     * in to {@link #listings}.
     */
    private void checkRows(Rows rows) {
        Map<String, List<BrandedId>> listed = new LinkedHashMap<>();
        Map<BrandedId, Long> due = new LinkedHashMap<>();
        int i = 0;
        for (Map.Entry<BrandedId, Expectation> want : rows.want().entrySet()) {
            BrandedId id = want.getKey();
            expected.merge(want.getValue().state(), 1L, Long::sum);
            jobsChecked++;
            long dueAt = want.getValue().due();
            checkRow(id, want.getValue(), rows.found().get(i++)).ifPresent(set -> {
                if (dueAt >= 0) {
                    due.put(id, dueAt); // its listing asked with its score, not walked as well
                } else {
                    listed.computeIfAbsent(set, k -> new ArrayList<>()).add(id);
                }
            });
        }
        listed.forEach(listings::check);
        checkDueTimes(due);
    }

    /**
     * Each scheduled row whose due time the journal records (v1's) is listed in {@code schedule} at that score: a copy
     * that scheduled it at another time would fire it early or late. One {@code ZMSCORE} tells both.
     */
    private void checkDueTimes(Map<BrandedId, Long> due) {
        if (due.isEmpty()) {
            return;
        }
        List<BrandedId> ids = List.copyOf(due.keySet());
        List<Double> scores = target.zmscore(Utf8.bytes(keys.schedule()), ids.stream().map(id -> Utf8.bytes(id.toString())).toList());
        for (int k = 0; k < ids.size(); k++) {
            Double score = scores.get(k);
            if (score == null) {
                notListed(ids.get(k), keys.schedule());
            } else if (score != (double) due.get(ids.get(k))) {
                problem(keys.job(ids.get(k)) + ": scheduled at " + String.format("%.0f", score) + " in " + keys.schedule()
                        + ", its due time is " + due.get(ids.get(k)));
            }
        }
    }

    private void notListed(BrandedId id, String set) {
        problem(keys.job(id) + ": not a member of " + set);
    }

    /** A row listed in a set v2 scores 0 (pending, a lane's pending, dead: their order is the ids'), at another score. */
    private void scoredOff(BrandedId id, String set, double score) {
        if (!set.equals(keys.schedule())) {
            problem(keys.job(id) + ": scored " + String.format("%.0f", score) + " in " + set + ", where v2 scores every member 0"
                    + " (its order is the ids' order)");
        }
    }

    /** Checks one row's fields as read ({@link #ROW_FIELDS}); returns the set that must list it, if any. */
    private Optional<String> checkRow(BrandedId id, Expectation e, List<byte[]> found) {
        byte[] state = found.get(0);
        if (state == null) {
            rowsMissing++;
            missingByState.merge(e.state(), 1L, Long::sum);
            problem(keys.job(id) + ": row missing (expected " + e.state() + ")");
            return Optional.empty();
        }
        if (!Arrays.equals(state, Utf8.bytes(e.state()))) {
            problem(keys.job(id) + ": state " + Replies.asText(state) + ", expected " + e.state());
        }
        byte[] attempts = found.get(1);
        if (!Arrays.equals(attempts, Utf8.bytes(Long.toString(e.attempts())))) {
            problem(keys.job(id) + ": attempts " + (attempts == null || attempts.length == 0 ? "missing" : Replies.asText(attempts))
                    + ", expected " + e.attempts());
        }
        checkPayload(id, e, found.get(2));
        return listing(id, e, found.get(3));
    }

    /**
     * The payload must be the bytes written: their SHA-1 the one the journal recorded. A journal written
     * before it recorded that SHA-1 has the payload's v1 data checked against its digest (sha256) instead.
     */
    private void checkPayload(BrandedId id, Expectation e, byte[] payload) {
        if (!e.payload().isEmpty()) {
            if (payload == null || !e.payloadIs(payload)) {
                problem(keys.job(id) + ": payload does not carry the v1 data (not the bytes written from it, whose SHA-1 is "
                        + e.payload() + "; sha256 of the v1 data " + e.sha256() + ")");
            }
            return;
        }
        Optional<byte[]> data = payload == null ? Optional.empty() : policy().v1Data(payload);
        if (data.isEmpty() || !PayloadDigest.sha256(data.get()).equals(e.sha256())) {
            problem(keys.job(id) + ": payload does not carry the v1 data (sha256 " + e.sha256() + ")");
        }
    }

    /**
     * The set a row expected in {@code e}'s state must be listed in: a pending row in its group's lane
     * (pending for a group that names no lane, or no group), a scheduled row in schedule, a dead one in
     * dead; none for the others. A group that is not UTF-8 text is a problem: its listing is not checked.
     */
    private Optional<String> listing(BrandedId id, Expectation e, byte[] group) {
        return switch (V2State.parse(e.state()).orElse(V2State.ACTIVE)) {
            case PENDING -> {
                if (group == null) {
                    yield Optional.of(keys.pending());
                }
                if (!Bytes.isUtf8(group)) {
                    problem(keys.job(id) + ": its group is not UTF-8 text, its listing cannot be checked");
                    yield Optional.empty();
                }
                yield Optional.of(groups.computeIfAbsent(Replies.asText(group), g -> BrandedId.isValid(g)
                        ? keys.lanePending(BrandedId.of(g)) : keys.pending()));
            }
            case SCHEDULED -> Optional.of(keys.schedule());
            case DEAD -> Optional.of(keys.dead());
            case ACTIVE, AWAITING_CHILDREN -> Optional.empty();
        };
    }

    /** The payload policy the journal's migration wrote with (read once, when a payload is checked by its v1 data). */
    private PayloadPolicy policy() {
        if (policy == null) {
            policy = journal.header().get(JournalHeader.POLICY).orElse(PayloadPolicy.ENVELOPE);
        }
        return policy;
    }

    private void checkSource(QueueSnapshot snap, MigrationOptions options) {
        if (!snap.payloadsDigested()) {
            throw new IllegalArgumentException("verifying against the source needs a snapshot read with payload digests");
        }
        Migratable.inBatches(Migratable.rows(snap, Migratable.Rule.of(options)), BATCH, batch -> {
            // read with HMGETs, not the migration's script: verify is a dry run, which a user limited to +@read may make
            List<Optional<BrandedId>> ids = journal.ids().lookupV1(batch.stream().map(j -> j.id().raw()).toList());
            Map<BrandedId, Expectation> expected = journal.expectations().of(ids.stream().flatMap(Optional::stream).toList());
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                Optional<Expectation> want = ids.get(i).map(expected::get);
                if (want.isEmpty()) {
                    problem("v1 job " + snap.queue().jobKey(job.id()).display() + " (" + job.state().wireName()
                            + ") has no migrated row");
                } else if (job.payloadBytes() >= 0 && !want.get().sha256().equals(job.payloadSha256())) {
                    problem("v1 job " + snap.queue().jobKey(job.id()).display() + ": data changed since it was migrated");
                }
            }
        });
    }

    /**
     * Every key of the queue on the target parses under the v2 grammar as a key of this queue: a reader
     * thread walks the keys ({@link SharedScan}) while the page before is parsed here (a row's key judged
     * on its bytes, {@link RowKeys#isRow}), unless {@code onePage} ({@link ReadAhead}).
     */
    private long checkKeys(boolean onePage) {
        long[] n = {0};
        ReadAhead.<List<Bytes>>run("the keys of " + queue, onePage, ahead -> keyScan.keysOf(queue, ahead), batch -> {
            for (Bytes key : batch) {
                n[0]++;
                if (rowKeys.isRow(key.raw())) {
                    continue;
                }
                ParsedKey parsed = KeyGrammar.parse(key.utf8());
                if (!(parsed instanceof ParsedKey.QueueKey q) || !q.queue().equals(queue)) {
                    problem("key " + key.display() + " does not parse as a key of " + queue + ": " + parsed);
                } else if (q.part() instanceof Part.GroupPending) {
                    laneKeys.add(key.utf8());
                }
            }
        });
        return n[0];
    }

    private void problem(String text) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(text);
        }
    }
}
