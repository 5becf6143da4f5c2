package io.emq.migrate.migrate;

import io.emq.migrate.payload.Envelope;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.ParentOnFailure;
import io.emq.migrate.v1.PayloadDigest;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Turns one v1 job (its facts and hash) into the v2 row the contract's mapping gives it (contract §3). */
public final class RowBuilder {

    private RowBuilder() {
    }

    /**
     * The v2 row of one job: where it goes (the set it goes into, as the script numbers them: {@link #SET_NONE},
     * {@link #SET_PENDING}, {@link #SET_SCHEDULE} or {@link #SET_DEAD}), its fields, and what the journal expects of it.
     */
    record Row(BrandedId id, String state, int set, long score, List<byte[]> fields, Expectation expected) {
        /**
         * Appends this row to a {@code migrate_write_jobs} call under construction: its row key to
         * the keys, its record (id, set index, score, guard, field count, fields) to the arguments.
         * {@code known} is what the journal expected of the row before (empty for a row not written yet).
         */
        void appendTo(QueueMigration m, Optional<Expectation> known, List<byte[]> keys, List<byte[]> args) {
            keys.add(Utf8.bytes(m.keys.job(id)));
            args.add(Utf8.bytes(id.toString()));
            args.add(SET_INDEX[set]);
            args.add(Utf8.bytes(Long.toString(score)));
            args.add(guard(known, expected.attempts()));
            args.add(Utf8.bytes(Integer.toString(fields.size())));
            args.addAll(fields);
        }
    }

    /** The sets a row goes into, numbered as {@code migrate_write_jobs} numbers them. */
    static final int SET_NONE = 0;
    static final int SET_PENDING = 1;
    static final int SET_SCHEDULE = 2;
    static final int SET_DEAD = 3;
    /** Each set's number as the script's argument. */
    private static final byte[][] SET_INDEX = {Utf8.bytes("0"), Utf8.bytes("1"), Utf8.bytes("2"), Utf8.bytes("3")};
    private static final byte[] SET_REMOVE = Utf8.bytes("-1");

    /** The script's guard: a row written before must still hold the attempts the journal expects. */
    private static byte[] guard(Optional<Expectation> known, long attemptsIfNew) {
        return Utf8.bytes(known.map(e -> "k" + e.attempts()).orElse("n" + attemptsIfNew));
    }

    /**
     * A {@code migrate_write_jobs} call for these rows (all of one queue): one call writes them all;
     * {@code known} holds what the journal expected of the rows written before.
     */
    static ScriptCall<Void> writeCall(QueueMigration m, List<Row> rows, Map<BrandedId, Expectation> known) {
        List<byte[]> keys = callKeys(m, rows.size());
        List<byte[]> args = new ArrayList<>(rows.size() * 14);
        args.add(Utf8.bytes(m.journal.token()));
        for (Row row : rows) {
            row.appendTo(m, Optional.ofNullable(known.get(row.id())), keys, args);
        }
        return new ScriptCall<>(Script.MIGRATE_WRITE_JOBS, keys, args, Replies::ignored);
    }

    /** A {@code migrate_write_jobs} call that removes these rows, each only while it holds the attempts given (or is gone). */
    static ScriptCall<Void> removeCall(QueueMigration m, Map<BrandedId, Long> rows) {
        List<byte[]> keys = callKeys(m, rows.size());
        List<byte[]> args = new ArrayList<>(rows.size() * 5);
        args.add(Utf8.bytes(m.journal.token()));
        rows.forEach((id, attempts) -> {
            keys.add(Utf8.bytes(m.keys.job(id)));
            args.add(Utf8.bytes(id.toString()));
            args.add(SET_REMOVE);
            args.add(SET_INDEX[SET_NONE]);
            args.add(Utf8.bytes("k" + attempts));
            args.add(SET_INDEX[SET_NONE]);
        });
        return new ScriptCall<>(Script.MIGRATE_WRITE_JOBS, keys, args, Replies::ignored);
    }

    private static List<byte[]> callKeys(QueueMigration m, int rows) {
        List<byte[]> keys = new ArrayList<>(rows + 5);
        keys.add(Utf8.bytes(m.keys.meta()));
        keys.add(Utf8.bytes(m.keys.pending()));
        keys.add(Utf8.bytes(m.keys.schedule()));
        keys.add(Utf8.bytes(m.keys.dead()));
        keys.add(Utf8.bytes(m.keys.active()));
        return keys;
    }

    /** A flow child's link to its parent, resolved to the parent's branded id and v2 queue. */
    record ParentLink(BrandedId parent, String queue, String policy) {
    }

    /** The row of a job, whose v1 hash read {@code hash} and whose v1 digest (read before it) was {@code source}. */
    static Row build(QueueMigration m, JobFacts facts, FlatHash hash, String source, BrandedId id,
                     Optional<ParentLink> parent) {
        byte[] data = orEmpty(hash.raw(DATA));
        V2State v2 = facts.state().becomes().orElseThrow(() ->
                new IllegalStateException("a " + facts.state().wireName() + " job has no v2 row"));
        String state = v2.wireName();
        int set = switch (v2) {
            case PENDING -> SET_PENDING; // migrate_write_jobs puts a row with a group in its lane instead
            case SCHEDULED -> SET_SCHEDULE;
            case DEAD -> SET_DEAD;
            case ACTIVE, AWAITING_CHILDREN -> SET_NONE;
        };
        long score = v2 == V2State.SCHEDULED ? facts.dueAt() : 0;
        byte[] lastError = switch (facts.state()) {
            case FAILED -> orEmpty(hash.raw(FAILED_REASON));
            case UNKNOWN -> orphanError(hash.raw(FAILED_REASON));
            default -> null;
        };
        byte[] payload = payload(m, facts, hash, data);
        List<byte[]> fields = new ArrayList<>();
        add(fields, "state", Utf8.bytes(state));
        add(fields, "attempts", Utf8.bytes(Long.toString(facts.attempts())));
        add(fields, "payload", payload);
        if (lastError != null) {
            add(fields, "last_error", lastError);
        }
        byte[] progress = hash.raw(PROGRESS);
        if (progress != null) {
            add(fields, "progress", progress);
        }
        m.laneOf(hash).ifPresent(lane -> add(fields, "group", Utf8.bytes(lane.toString())));
        parent.ifPresent(p -> {
            add(fields, "parent", Utf8.bytes(p.parent().toString()));
            add(fields, "parent_queue", Utf8.bytes(p.queue()));
            add(fields, "parent_policy", Utf8.bytes(p.policy()));
        });
        return new Row(id, state, set, score, fields,
                new Expectation(state, facts.attempts(), PayloadDigest.sha256(data), source, Expectation.payloadSha1(payload),
                        v2 == V2State.SCHEDULED ? score : -1));
    }

    /** Why an orphan is dead: listed nowhere, and the failure v1 recorded, when it holds one (a failed job whose listing was lost). */
    private static byte[] orphanError(byte[] failedReason) {
        Bytes why = Bytes.utf8("orphan: the v1 job hash was listed in no structure");
        return failedReason == null ? why.raw() : why.concat("; its failedReason: ").concat(Bytes.of(failedReason)).raw();
    }

    private static byte[] payload(QueueMigration m, JobFacts facts, FlatHash hash, byte[] data) {
        if (m.options.payload() == PayloadPolicy.DATA) {
            return data;
        }
        Envelope.Provenance p = new Envelope.Provenance(m.source.display(), facts.id().raw(),
                hash.raw(NAME), hash.raw(TIMESTAMP), hash.raw(OPTS));
        return Envelope.wrap(data, p);
    }

    private static final byte[] DATA = Utf8.bytes("data");
    private static final byte[] FAILED_REASON = Utf8.bytes("failedReason");
    private static final byte[] PROGRESS = Utf8.bytes("progress");
    private static final byte[] NAME = Utf8.bytes("name");
    private static final byte[] TIMESTAMP = Utf8.bytes("timestamp");
    private static final byte[] OPTS = Utf8.bytes("opts");

    private static byte[] orEmpty(byte[] value) {
        return value == null ? new byte[0] : value;
    }

    /** The child's v2 parent policy ({@link ParentOnFailure}: fp, fail the parent, unless its v1 option says to go on). */
    static String parentPolicy(Map<Bytes, Bytes> hash) {
        return ParentOnFailure.of(field(hash, "parent").map(Bytes::raw).orElse(null)).v2Policy();
    }

    static Optional<Bytes> field(Map<Bytes, Bytes> hash, String name) {
        return Optional.ofNullable(hash.get(Bytes.utf8(name)));
    }

    private static void add(List<byte[]> fields, String name, byte[] value) {
        fields.add(Utf8.bytes(name));
        fields.add(value);
    }


}
