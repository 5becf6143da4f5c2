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
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.HashSet;
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
 * data (its SHA-1, recorded when written), each batch of rows checked on the server
 * ({@code migrate_verify_rows}: no row or payload travels to the client); the
 * structures hold at least the journaled counts; every key of the queue parses under the v2 grammar;
 * and, while the source still exists, every v1 job that gets a row is journaled with its digest.
 */
public final class Verifier {
    static final int BATCH = 500;
    static final int MAX_PROBLEMS = 20;

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
    /** The set the pending rows of each group met so far are listed in: the group's lane, or pending for a group that names none. */
    private final Map<String, String> groups = new TreeMap<>();
    /** The lanes' pending sets the key check met: with the groups' sets, every place a pending row is listed. */
    private final Set<String> laneKeys = new TreeSet<>();
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
    }

    public Report verify(Optional<QueueSnapshot> source, MigrationOptions options) {
        if (!journal.exists()) {
            problem("no journal " + journal.key() + " on the target: the queue was never migrated there");
            return report(Map.of(), 0);
        }
        checkJournaledRows();
        source.ifPresent(snap -> checkSource(snap, options));
        long keysChecked = checkKeys();
        Map<String, Long> found = new LinkedHashMap<>();
        long pending = target.zcard(Utf8.bytes(keys.pending()));
        Set<String> lanes = new TreeSet<>(groups.values());
        lanes.addAll(laneKeys);
        for (String lane : lanes) {
            pending += lane.equals(keys.pending()) ? 0 : target.zcard(Utf8.bytes(lane));
        }
        found.put(V2State.PENDING.wireName(), pending);
        found.put(V2State.SCHEDULED.wireName(), target.zcard(Utf8.bytes(keys.schedule())));
        found.put(V2State.DEAD.wireName(), target.zcard(Utf8.bytes(keys.dead())));
        for (String set : found.keySet()) {
            if (found.get(set) < expected.getOrDefault(set, 0L)) {
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
        Migratable.inBatches(ids, BATCH, batch -> checkRows(journal.expectations().of(batch)));
        return report(Map.of(), 0);
    }

    private Report report(Map<String, Long> found, long keysChecked) {
        return new Report(queue, Map.copyOf(expected), found, jobsChecked, keysChecked, List.copyOf(problems), problemCount);
    }

    /**
     * Checks every journaled row, a batch at a time: the journal's expectations are read (HSCAN) one
     * batch ahead, on a reader thread, while the batch before is checked on the server.
     */
    private void checkJournaledRows() {
        ReadAhead.<Map<BrandedId, Expectation>>run("the journal of " + queue, ahead -> {
            Map<BrandedId, Expectation> batch = new LinkedHashMap<>();
            journal.expectations().forEach(page -> {
                batch.putAll(page);
                if (batch.size() >= BATCH) {
                    ahead.accept(new LinkedHashMap<>(batch));
                    batch.clear();
                }
            });
            ahead.accept(batch);
        }, this::checkRows);
    }

    /**
     * Checks these rows on the server ({@code migrate_verify_rows}): only the problems come back. A
     * pending row of a group not met before comes back too: its group is named and the rows checked again.
     */
    private void checkRows(Map<BrandedId, Expectation> want) {
        if (want.isEmpty()) {
            return;
        }
        List<BrandedId> ids = new ArrayList<>(want.keySet());
        List<Object> reply = target.eval(verifyCall(ids, want));
        boolean named = false;
        for (int i = 0; i < reply.size(); i += 3) {
            if (Replies.asText(reply.get(i + 1)).equals("group")) {
                String group = Replies.asText(reply.get(i + 2));
                named |= groups.putIfAbsent(group, BrandedId.isValid(group) ? keys.lanePending(BrandedId.of(group))
                        : keys.pending()) == null;
            }
        }
        if (named) {
            checkRows(want);
            return;
        }
        for (Expectation e : want.values()) {
            expected.merge(e.state(), 1L, Long::sum);
            jobsChecked++;
        }
        Set<BrandedId> missing = new HashSet<>();
        for (int i = 0; i < reply.size(); i += 3) {
            BrandedId id = ids.get((int) Replies.asLong(reply.get(i)) - 1);
            Expectation e = want.get(id);
            String value = Replies.asText(reply.get(i + 2));
            String row = keys.job(id);
            switch (Replies.asText(reply.get(i + 1))) {
                case "missing" -> {
                    missing.add(id);
                    problem(row + ": row missing (expected " + e.state() + ")");
                }
                case "state" -> problem(row + ": state " + value + ", expected " + e.state());
                case "attempts" -> problem(row + ": attempts " + (value.isEmpty() ? "missing" : value) + ", expected "
                        + e.attempts());
                case "payload" -> problem(row + ": payload does not carry the v1 data (not the bytes written from"
                        + " it, whose SHA-1 is " + e.payload() + "; sha256 of the v1 data " + e.sha256() + ")");
                case "set" -> problem(row + ": not a member of " + value);
                case "group" -> problem(row + ": its group is not UTF-8 text, its listing cannot be checked");
                default -> throw new IllegalStateException("migrate_verify_rows replied " + reply.get(i + 1));
            }
        }
        checkUnrecordedPayloads(want, missing);
    }

    /**
     * Rows whose expectation a journal wrote before it recorded the written payload's SHA-1: their
     * payload is read here and must carry the v1 data the journal digested (sha256), as verification
     * always checked them.
     */
    private void checkUnrecordedPayloads(Map<BrandedId, Expectation> want, Set<BrandedId> missing) {
        List<BrandedId> ids = want.entrySet().stream().filter(e -> e.getValue().payload().isEmpty())
                .map(Map.Entry::getKey).filter(id -> !missing.contains(id)).toList();
        if (ids.isEmpty()) {
            return;
        }
        PayloadPolicy policy = journal.header().get(JournalHeader.POLICY).orElse(PayloadPolicy.ENVELOPE);
        List<List<byte[]>> payloads = target.hmget(ids.stream().map(id -> Utf8.bytes(keys.job(id))).toList(),
                List.of(Utf8.bytes("payload")));
        for (int i = 0; i < ids.size(); i++) {
            byte[] payload = payloads.get(i).get(0);
            Optional<byte[]> data = payload == null ? Optional.empty() : policy.v1Data(payload);
            String sha256 = want.get(ids.get(i)).sha256();
            if (data.isEmpty() || !PayloadDigest.sha256(data.get()).equals(sha256)) {
                problem(keys.job(ids.get(i)) + ": payload does not carry the v1 data (sha256 " + sha256 + ")");
            }
        }
    }

    private ScriptCall<List<Object>> verifyCall(List<BrandedId> ids, Map<BrandedId, Expectation> want) {
        List<byte[]> callKeys = new ArrayList<>(3 + groups.size() + ids.size());
        List<byte[]> args = new ArrayList<>(1 + groups.size() + 5 * ids.size());
        callKeys.add(Utf8.bytes(keys.pending()));
        callKeys.add(Utf8.bytes(keys.schedule()));
        callKeys.add(Utf8.bytes(keys.dead()));
        args.add(Utf8.bytes(Integer.toString(groups.size())));
        groups.forEach((group, set) -> {
            callKeys.add(Utf8.bytes(set));
            args.add(Utf8.bytes(group));
        });
        for (BrandedId id : ids) {
            Expectation e = want.get(id);
            callKeys.add(Utf8.bytes(keys.job(id)));
            args.add(Utf8.bytes(id.toString()));
            args.add(Utf8.bytes(Integer.toString(setIndex(e.state()))));
            args.add(Utf8.bytes(e.state()));
            args.add(Utf8.bytes(Long.toString(e.attempts())));
            args.add(Utf8.bytes(e.payload()));
        }
        return new ScriptCall<>(Script.MIGRATE_VERIFY_ROWS, callKeys, args, Replies::asList);
    }

    /**
     * Where a row in {@code state} is listed, as {@code migrate_verify_rows} numbers it: 1 pending (its
     * lane's pending set when it has one), 2 schedule, 3 dead, 0 none.
     */
    private static int setIndex(String state) {
        return switch (V2State.parse(state).orElse(V2State.ACTIVE)) {
            case PENDING -> 1;
            case SCHEDULED -> 2;
            case DEAD -> 3;
            case ACTIVE, AWAITING_CHILDREN -> 0;
        };
    }

    private void checkSource(QueueSnapshot snap, MigrationOptions options) {
        if (!snap.payloadsDigested()) {
            throw new IllegalArgumentException("verifying against the source needs a snapshot read with payload digests");
        }
        Migratable.inBatches(Migratable.rows(snap, options), BATCH, batch -> {
            Journal.Known known = journal.known(batch.stream().map(j -> j.id().raw()).toList());
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                Optional<Expectation> want = known.expectation(i);
                if (want.isEmpty()) {
                    problem("v1 job " + snap.queue().jobKey(job.id()).display() + " (" + job.state().wireName()
                            + ") has no migrated row");
                } else if (job.payloadBytes() >= 0 && !want.get().sha256().equals(job.payloadSha256())) {
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
