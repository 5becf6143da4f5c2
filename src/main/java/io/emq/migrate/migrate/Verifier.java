package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.StructureType;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.ParsedKey;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.PayloadDigest;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.SharedScan;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.RedisClusterClient;

/**
 * Re-checks a migrated queue against its journal, with reads only: every journaled job has its row
 * in the expected state and structure, with the expected attempts and the v1 data digest; the
 * structures hold at least the journaled counts; every key of the queue parses under the v2 grammar;
 * and, while the source still exists, every v1 job that gets a row is journaled with its digest.
 */
public final class Verifier {
    static final int BATCH = 500;
    static final int MAX_PROBLEMS = 20;
    private static final List<byte[]> ROW_FIELDS = List.of(Utf8.bytes("state"), Utf8.bytes("attempts"),
            Utf8.bytes("payload"), Utf8.bytes("group"));

    /** The verdict: counts expected and found per v2 state, and the problems found (empty when it passed). */
    public record Report(String queue, Map<String, Long> expected, Map<String, Long> found, long jobsChecked,
                         long keysChecked, List<String> problems, long problemCount) {
        public boolean passed() {
            return problemCount == 0;
        }
    }

    private final Wire target;
    private final SharedScan<String> keyScan;
    private final String queue;
    private final Keys keys;
    private final Journal journal;
    private final PayloadPolicy policy;
    private final java.util.SortedSet<BrandedId> lanes;
    private final Map<String, Long> expected = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private long problemCount;
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
        this.journal = new Journal(target, queue);
        this.policy = journal.header().get(JournalHeader.POLICY).orElse(PayloadPolicy.ENVELOPE);
        this.lanes = journal.lanes();
    }

    public Report verify(Optional<QueueSnapshot> source, MigrationOptions options) {
        if (!journal.exists()) {
            problem("no journal " + journal.key() + " on the target: the queue was never migrated there");
            return report(Map.of(), 0);
        }
        List<BrandedId> batch = new ArrayList<>(BATCH);
        journal.ids().forEach((id, v1) -> {
            batch.add(id);
            if (batch.size() == BATCH) {
                checkRows(batch);
                batch.clear();
            }
        });
        checkRows(batch);
        source.ifPresent(snap -> checkSource(snap, options));
        Map<String, Long> found = new LinkedHashMap<>();
        long pending = target.zcard(Utf8.bytes(keys.pending()));
        for (BrandedId lane : lanes) {
            pending += target.zcard(Utf8.bytes(keys.lanePending(lane)));
        }
        found.put(V2State.PENDING.wireName(), pending);
        found.put(V2State.SCHEDULED.wireName(), target.zcard(Utf8.bytes(keys.schedule())));
        found.put(V2State.DEAD.wireName(), target.zcard(Utf8.bytes(keys.dead())));
        for (String set : found.keySet()) {
            if (found.get(set) < expected.getOrDefault(set, 0L)) {
                problem(set + " holds " + found.get(set) + " jobs, the journal expects at least " + expected.get(set));
            }
        }
        return report(found, checkKeys());
    }

    private Report report(Map<String, Long> found, long keysChecked) {
        return new Report(queue, Map.copyOf(expected), found, jobsChecked, keysChecked, List.copyOf(problems), problemCount);
    }

    private void checkRows(List<BrandedId> ids) {
        Map<BrandedId, Expectation> want = journal.expectations().of(ids);
        if (want.isEmpty()) {
            return;
        }
        List<BrandedId> rowIds = new ArrayList<>(want.keySet());
        List<List<byte[]>> rows = target.hmget(rowIds.stream().map(id -> Utf8.bytes(keys.job(id))).toList(), ROW_FIELDS);
        List<String> sets = new ArrayList<>(rowIds.size());
        List<byte[]> listedIn = new ArrayList<>();
        List<byte[]> listed = new ArrayList<>();
        for (int i = 0; i < rowIds.size(); i++) {
            byte[] group = rows.get(i).get(3);
            String set = setOf(want.get(rowIds.get(i)).state(), group == null ? null : Replies.asText(group));
            sets.add(set);
            if (set != null) {
                listedIn.add(Utf8.bytes(set));
                listed.add(Utf8.bytes(rowIds.get(i).toString()));
            }
        }
        Iterator<Double> scores = target.zscores(listedIn, listed).iterator();
        for (int i = 0; i < rowIds.size(); i++) {
            BrandedId id = rowIds.get(i);
            Expectation e = want.get(id);
            expected.merge(e.state(), 1L, Long::sum);
            jobsChecked++;
            List<byte[]> row = rows.get(i);
            Double score = sets.get(i) == null ? null : scores.next();
            if (row.get(0) == null) {
                problem(keys.job(id) + ": row missing (expected " + e.state() + ")");
                continue;
            }
            String state = Replies.asText(row.get(0));
            if (!state.equals(e.state())) {
                problem(keys.job(id) + ": state " + state + ", expected " + e.state());
            }
            if (row.get(1) == null || Long.parseLong(Replies.asText(row.get(1))) != e.attempts()) {
                problem(keys.job(id) + ": attempts " + (row.get(1) == null ? "missing" : Replies.asText(row.get(1)))
                        + ", expected " + e.attempts());
            }
            Optional<byte[]> data = row.get(2) == null ? Optional.empty() : policy.v1Data(row.get(2));
            if (data.isEmpty() || !PayloadDigest.sha256(data.get()).equals(e.sha256())) {
                problem(keys.job(id) + ": payload does not carry the v1 data (sha256 " + e.sha256() + ")");
            }
            if (sets.get(i) != null && score == null) {
                problem(keys.job(id) + ": not a member of " + sets.get(i));
            }
        }
    }

    private void checkSource(QueueSnapshot snap, MigrationOptions options) {
        if (!snap.payloadsDigested()) {
            throw new IllegalArgumentException("verifying against the source needs a snapshot read with payload digests");
        }
        Migratable.inBatches(Migratable.rows(snap, options), BATCH, batch -> {
            List<Optional<BrandedId>> ids = journal.ids().lookupV1(batch.stream().map(j -> j.id().raw()).toList());
            List<BrandedId> mapped = ids.stream().flatMap(Optional::stream).toList();
            Map<BrandedId, Expectation> want = journal.expectations().of(mapped);
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                if (ids.get(i).isEmpty() || !want.containsKey(ids.get(i).get())) {
                    problem("v1 job " + snap.queue().jobKey(job.id()).display() + " (" + job.state().wireName()
                            + ") has no migrated row");
                } else if (job.payloadBytes() >= 0 && !want.get(ids.get(i).get()).sha256().equals(job.payloadSha256())) {
                    problem("v1 job " + snap.queue().jobKey(job.id()).display() + ": data changed since it was migrated");
                }
            }
        });
    }

    /** Every key of the queue on the target parses under the v2 grammar as a key of this queue. */
    private long checkKeys() {
        long[] n = {0};
        keyScan.keysOf(queue, batch -> {
            for (Bytes key : batch) {
                n[0]++;
                ParsedKey parsed = KeyGrammar.parse(key.utf8());
                if (!(parsed instanceof ParsedKey.QueueKey q) || !q.queue().equals(queue)) {
                    problem("key " + key.display() + " does not parse as a key of " + queue + ": " + parsed);
                }
            }
        });
        return n[0];
    }

    /** The key of the structure a row in {@code state} (of lane {@code group}, when it has one) is listed in (null for none). */
    private String setOf(String state, String group) {
        Optional<V2State> v2 = V2State.parse(state);
        if (v2.equals(Optional.of(V2State.PENDING))) {
            return group == null || !BrandedId.isValid(group) ? keys.pending() : keys.lanePending(BrandedId.of(group));
        }
        return v2.flatMap(V2State::structure).filter(t -> t != StructureType.ACTIVE).map(keys::structure).orElse(null);
    }

    private void problem(String text) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(text);
        }
    }
}
