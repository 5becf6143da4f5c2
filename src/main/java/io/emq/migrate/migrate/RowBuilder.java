package io.emq.migrate.migrate;

import io.emq.migrate.payload.Envelope;
import io.emq.migrate.payload.PayloadPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
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
    private static final ObjectMapper JSON = new ObjectMapper();

    private RowBuilder() {
    }

    /** The v2 row of one job: where it goes, its fields, and what the journal expects of it. */
    record Row(BrandedId id, String state, String setKey, long score, List<byte[]> fields, Expectation expected) {
        /**
         * Appends this row to a {@code migrate_write_jobs} call under construction: its row key to
         * the keys, its record (id, set index, score, guard, field count, fields) to the arguments.
         * {@code known} is what the journal expected of the row before (empty for a row not written yet).
         */
        void appendTo(QueueMigration m, Optional<Expectation> known, List<byte[]> keys, List<byte[]> args) {
            keys.add(Utf8.bytes(m.keys.job(id)));
            args.add(Utf8.bytes(id.toString()));
            args.add(setIndex(m));
            args.add(Utf8.bytes(Long.toString(score)));
            args.add(guard(known, expected.attempts()));
            args.add(Utf8.bytes(Integer.toString(fields.size())));
            args.addAll(fields);
        }

        private byte[] setIndex(QueueMigration m) {
            if (setKey == null) {
                return SET_NONE;
            }
            if (setKey.equals(m.keys.pending())) {
                return SET_PENDING;
            }
            if (setKey.equals(m.keys.schedule())) {
                return SET_SCHEDULE;
            }
            if (setKey.equals(m.keys.dead())) {
                return SET_DEAD;
            }
            throw new IllegalStateException("a row cannot go into " + setKey);
        }
    }

    private static final byte[] SET_REMOVE = Utf8.bytes("-1");
    private static final byte[] SET_NONE = Utf8.bytes("0");
    private static final byte[] SET_PENDING = Utf8.bytes("1");
    private static final byte[] SET_SCHEDULE = Utf8.bytes("2");
    private static final byte[] SET_DEAD = Utf8.bytes("3");

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

    /** A {@code migrate_write_jobs} call that removes these rows, each guarded by what the journal expected of it. */
    static ScriptCall<Void> removeCall(QueueMigration m, Map<BrandedId, Expectation> rows) {
        List<byte[]> keys = callKeys(m, rows.size());
        List<byte[]> args = new ArrayList<>(rows.size() * 5);
        args.add(Utf8.bytes(m.journal.token()));
        rows.forEach((id, e) -> {
            keys.add(Utf8.bytes(m.keys.job(id)));
            args.add(Utf8.bytes(id.toString()));
            args.add(SET_REMOVE);
            args.add(SET_NONE);
            args.add(guard(Optional.of(e), e.attempts()));
            args.add(SET_NONE);
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
    static Row build(QueueMigration m, JobFacts facts, Map<Bytes, Bytes> hash, String source, BrandedId id,
                     Optional<ParentLink> parent) {
        byte[] data = field(hash, "data").map(Bytes::raw).orElse(new byte[0]);
        V2State v2 = facts.state().becomes().orElseThrow(() ->
                new IllegalStateException("a " + facts.state().wireName() + " job has no v2 row"));
        String state = v2.wireName();
        String setKey = switch (v2) {
            case PENDING -> m.keys.pending(); // migrate_write_jobs puts a row with a group in its lane instead
            case SCHEDULED -> m.keys.schedule();
            case DEAD -> m.keys.dead();
            case ACTIVE, AWAITING_CHILDREN -> null;
        };
        long score = v2 == V2State.SCHEDULED ? facts.dueAt() : 0;
        byte[] lastError = switch (facts.state()) {
            case FAILED -> field(hash, "failedReason").map(Bytes::raw).orElse(new byte[0]);
            case UNKNOWN -> Utf8.bytes("orphan: the v1 job hash was listed in no structure");
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
        field(hash, "progress").ifPresent(p -> add(fields, "progress", p.raw()));
        m.laneOf(hash).ifPresent(lane -> add(fields, "group", Utf8.bytes(lane.toString())));
        parent.ifPresent(p -> {
            add(fields, "parent", Utf8.bytes(p.parent().toString()));
            add(fields, "parent_queue", Utf8.bytes(p.queue()));
            add(fields, "parent_policy", Utf8.bytes(p.policy()));
        });
        return new Row(id, state, setKey, score, fields,
                new Expectation(state, facts.attempts(), PayloadDigest.sha256(data), source, Expectation.payloadSha1(payload)));
    }

    private static byte[] payload(QueueMigration m, JobFacts facts, Map<Bytes, Bytes> hash, byte[] data) {
        if (m.options.payload() == PayloadPolicy.DATA) {
            return data;
        }
        Envelope.Provenance p = new Envelope.Provenance(m.source.display(), facts.id().raw(),
                field(hash, "name").map(Bytes::raw).orElse(null),
                field(hash, "timestamp").map(Bytes::raw).orElse(null),
                field(hash, "opts").map(Bytes::raw).orElse(null));
        return Envelope.wrap(data, p);
    }

    /** fp (fail the parent) unless the child's v1 parent options ask to ignore or continue on failure. */
    static String parentPolicy(Map<Bytes, Bytes> hash) {
        Optional<Bytes> parent = field(hash, "parent");
        if (parent.isPresent()) {
            try {
                JsonNode node = JSON.readTree(parent.get().raw());
                if (node.path("idof").asBoolean() || node.path("cpof").asBoolean() || node.path("rdof").asBoolean()) {
                    return "id";
                }
            } catch (java.io.IOException notJson) {
                return "fp";
            }
        }
        return "fp";
    }

    static Optional<Bytes> field(Map<Bytes, Bytes> hash, String name) {
        return Optional.ofNullable(hash.get(Bytes.utf8(name)));
    }

    private static void add(List<byte[]> fields, String name, byte[] value) {
        fields.add(Utf8.bytes(name));
        fields.add(value);
    }


}
