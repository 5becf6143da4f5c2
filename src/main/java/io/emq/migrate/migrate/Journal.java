package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Scan;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The migration journal of one queue, {@code {emq}:migration:<q>} on the target: one hash, read and
 * written through its parts: the {@link JournalLease lease} whose fencing token every write carries,
 * the typed {@link JournalHeader header}, the {@link IdentityMap identity map}, the
 * {@link StepHistory step history} and the {@link Expectations expectations}; besides them the
 * families of fields a migration records to undo or re-find what it wrote ({@code lane:},
 * {@code scheduler:}, {@code dedup:}, {@code receipt:}, {@code setting:}, {@code linked:}).
 */
public final class Journal {
    /** {@code lane:<group>} = the job-field value a lane was minted from ("" for a fixed lane). */
    static final String LANE_PREFIX = "lane:";
    /** {@code scheduler:<v1 scheduler id>} = the name of the v2 repeat registration it became. */
    static final String SCHEDULER_PREFIX = "scheduler:";
    /** {@code dedup:<dedup id>} = the branded id the v2 dedup key was written with. */
    static final String DEDUP_PREFIX = "dedup:";
    /** {@code receipt:<custom v1 id>} = the branded id the v2 receipt {@code de:<custom v1 id>} was written with. */
    static final String RECEIPT_PREFIX = "receipt:";
    /**
     * {@code linked:<q>} = 1: this migration's v2 rows or records name branded ids of queue {@code q}'s migration (a flow
     * across the two queues: a child naming its parent, a parent its finished children), recorded before the first such
     * write; {@link Abandon} refuses to undo one of two linked queues alone.
     */
    static final String LINKED_PREFIX = "linked:";
    /** How many {@code dedup:}, {@code receipt:} and {@code scheduler:} fields the journal holds, kept by its fenced writes. */
    static final String CARRIED_COUNT = "carried_records";

    private final Wire wire;
    private final String queue;
    private final byte[] key;
    private final JournalLease lease;
    private final IdentityMap ids = new IdentityMap(this);
    private final StepHistory history = new StepHistory(this);
    private final Expectations expectations = new Expectations(this);

    public Journal(Wire wire, String queue) {
        this.wire = wire;
        this.queue = queue;
        this.key = Utf8.bytes(Keys.migrationJournal(queue));
        this.lease = new JournalLease(wire, key);
    }

    public String queue() {
        return queue;
    }

    public String key() {
        return Keys.migrationJournal(queue);
    }

    public boolean exists() {
        return wire.exists(key);
    }

    public JournalLease lease() {
        return lease;
    }

    /** The header as it is now (one {@code HMGET}). */
    public JournalHeader header() {
        List<byte[]> values = read(JournalHeader.ALL.stream().map(f -> Utf8.bytes(f.name())).toList());
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) != null) {
                fields.put(JournalHeader.ALL.get(i).name(), Replies.asText(values.get(i)));
            }
        }
        return new JournalHeader(fields);
    }

    /** Writes header fields, fenced by the lease token. */
    public void record(JournalHeader.Write write) {
        set(write.fields());
    }

    /** The fenced write of header fields, as a call to send (alone or pipelined). */
    ScriptCall<Void> recordCall(JournalHeader.Write write) {
        return setCall(write.fields());
    }

    public <T> void record(JournalHeader.Field<T> field, T value) {
        record(new JournalHeader.Write().set(field, value));
    }

    public IdentityMap ids() {
        return ids;
    }

    public StepHistory history() {
        return history;
    }

    public Expectations expectations() {
        return expectations;
    }

    /** What the journal knows of some v1 jobs: each one's branded id (empty where none) and the expectations of those rows. */
    record Known(List<Optional<BrandedId>> ids, Map<BrandedId, Expectation> expected) {
        /** What the journal expects of the i-th job's row; empty when it has no id or no expectation. */
        Optional<Expectation> expectation(int i) {
            return ids.get(i).map(expected::get);
        }
    }

    /** The ids and expectations of these v1 jobs, in order, read in one call ({@code migrate_journal_known}). */
    Known known(List<byte[]> v1Ids) {
        if (v1Ids.isEmpty()) {
            return new Known(List.of(), Map.of());
        }
        List<byte[]> fields = v1Ids.stream().map(IdentityMap::v1Field).toList();
        return wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_KNOWN, List.of(key), fields, Journal::known));
    }

    private static Known known(Object reply) {
        List<Object> parts = Replies.asList(reply);
        List<Optional<BrandedId>> found = IdentityMap.brandedIds(Replies.asList(parts.get(0)));
        return new Known(found, Expectations.parsed(found.stream().flatMap(Optional::stream).toList(), Replies.asList(parts.get(1))));
    }

    /** The lanes the queue's pending jobs were migrated into, as recorded ({@code lane:}); empty: the flat pending set. */
    public SortedSet<BrandedId> lanes() {
        SortedSet<BrandedId> out = new TreeSet<>();
        for (byte[] field : fieldsStartingWith(LANE_PREFIX)) {
            out.add(BrandedId.of(Replies.asText(field).substring(LANE_PREFIX.length())));
        }
        return out;
    }

    /** The queues whose branded ids this migration's v2 data names ({@code linked:}). */
    Set<String> linkedQueues() {
        Set<String> out = new TreeSet<>();
        for (byte[] field : fieldsStartingWith(LINKED_PREFIX)) {
            out.add(Replies.asText(field).substring(LINKED_PREFIX.length()));
        }
        return out;
    }

    /** The fencing token of the lease this journal holds ("" before it is acquired). */
    String token() {
        return lease.token();
    }

    /** The token of this journal's lease on the v1 side ({@link JournalLease#sourceToken}). */
    String sourceToken() {
        return lease.sourceToken();
    }

    /**
     * The owner and the end (server ms) of the lease a run took and did not release (a run under way, or one that
     * crashed: its lease lapses then); empty when none holds it.
     */
    public Optional<LeaseHeld> leaseHeld() {
        List<byte[]> held = read(List.of(Utf8.bytes("lock_owner"), Utf8.bytes("lock_until")));
        return held.get(0) == null || held.get(1) == null ? Optional.empty()
                : Optional.of(new LeaseHeld(Replies.asText(held.get(0)), Long.parseLong(Replies.asText(held.get(1)))));
    }

    /** A lease as {@link #leaseHeld} reads it. */
    public record LeaseHeld(String owner, long untilMs) {
    }

    /** One field's text (for the field families; the header reads through {@link #header()}). */
    Optional<String> text(String field) {
        return Optional.ofNullable(read(List.of(Utf8.bytes(field))).get(0)).map(Replies::asText);
    }

    /** These fields' values, in order (null where absent). */
    List<byte[]> read(List<byte[]> fields) {
        return wire.hmget(key, fields);
    }

    /** Writes fields, fenced by the lease token. */
    void set(Map<String, String> fields) {
        wire.eval(setCall(fields));
    }

    /** Writes one field whose value is bytes (a v1 id that need not be text), fenced by the lease token. */
    void set(String field, byte[] value) {
        wire.eval(new ScriptCall<>(Script.MIGRATE_JOURNAL_SET, List.of(key), List.of(Utf8.bytes(token()), Utf8.bytes(field), value),
                Replies::ignored));
    }

    /** The fenced write of these fields, as a call to send (alone or pipelined). */
    ScriptCall<Void> setCall(Map<String, String> fields) {
        List<byte[]> args = new ArrayList<>(fields.size() * 2 + 1);
        args.add(Utf8.bytes(token()));
        fields.forEach((f, v) -> {
            args.add(Utf8.bytes(f));
            args.add(Utf8.bytes(v));
        });
        return new ScriptCall<>(Script.MIGRATE_JOURNAL_SET, List.of(key), args, Replies::ignored);
    }

    /** Deletes fields, fenced by the lease token; the number deleted. */
    long forget(List<byte[]> fields) {
        List<byte[]> args = new ArrayList<>(fields.size() + 1);
        args.add(Utf8.bytes(token()));
        args.addAll(fields);
        return eval(Script.MIGRATE_JOURNAL_FORGET, args, Replies::asLong);
    }

    /**
     * Unlinks the journal when it records the migration retired, in one step with that read ({@code emq-migrate forget}):
     * the number of fields it held, or empty when it was kept (missing, or not retired).
     */
    public OptionalLong unlinkIfRetired() {
        long fields = eval(Script.MIGRATE_JOURNAL_UNLINK, List.of(), Replies::asLong);
        return fields < 0 ? OptionalLong.empty() : OptionalLong.of(fields);
    }

    <T> T eval(Script script, List<byte[]> args, java.util.function.Function<Object, T> decoder) {
        return wire.eval(new ScriptCall<>(script, List.of(key), args, decoder));
    }

    /** Every field name starting with this prefix, by HSCAN. */
    List<byte[]> fieldsStartingWith(String prefix) {
        List<byte[]> out = new ArrayList<>();
        fieldsStartingWith(prefix, out::addAll);
        return out;
    }

    /** The field names with this prefix, a page of HSCAN at a time (a field may come twice; deleting fields already seen is safe). */
    void fieldsStartingWith(String prefix, Consumer<List<byte[]>> pages) {
        entriesStartingWith(prefix, page -> pages.accept(page.stream().map(Map.Entry::getKey).toList()));
    }

    /** The fields with this prefix and their values, a page of HSCAN at a time. */
    void entriesStartingWith(String prefix, Consumer<List<Map.Entry<byte[], byte[]>>> pages) {
        wire.hscan(key, Scan.startingWith(Utf8.bytes(prefix)), pages);
    }
}
