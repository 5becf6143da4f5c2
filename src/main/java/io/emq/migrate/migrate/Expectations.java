package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.ScriptCall;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import redis.clients.jedis.Protocol;

/** What each migrated job must look like after the migration: {@code r:<branded id>} = an {@link Expectation}. */
public final class Expectations {
    static final String PREFIX = "r:";
    /** The journal field that counts the expectations (the journal Lua keeps it; see {@link #count()}). */
    static final String COUNT = JournalHeader.EXPECTED_ROWS.name();
    private static final byte[] COUNT_FIELD = Utf8.bytes(COUNT);
    /** The fewest expectations {@link #record} writes in a transaction: below that, the connection it opens costs more than the script saves. */
    static final int LEAST = 64;

    private final Journal journal;

    Expectations(Journal journal) {
        this.journal = journal;
    }

    /**
     * Whether {@link #record} writes these expectations in a {@link JournalTransaction}: when there are at least
     * {@link #LEAST} and {@code allNew} (the journal held an expectation of none of these jobs when their
     * batch was built; a write's jobs are distinct, so none was recorded since).
     */
    static boolean transacted(Map<BrandedId, Expectation> expected, boolean allNew) {
        return expected.size() >= LEAST && allNew;
    }

    /**
     * Sends ahead the first round trip of the transaction that {@link #record} completes, when these
     * expectations take one ({@link #transacted}): the caller writes their rows meanwhile.
     */
    static void watch(JournalTransaction tx, Map<BrandedId, Expectation> expected, boolean allNew) {
        if (transacted(expected, allNew)) {
            tx.watch(List.of(COUNT_FIELD));
        }
    }

    /**
     * Records these expectations of a write's rows, fenced by the lease token. When they take a transaction
     * ({@link #transacted}), in the {@link JournalTransaction} whose first round trip {@link #watch} sent:
     * one {@code HSET} of the fields and, when the journal has the counter, {@code HINCRBY expected_rows}
     * by their number, what the script writes for them; else, and when the transaction wrote nothing, with
     * the script ({@link #call}).
     */
    void record(QueueMigration m, JournalTransaction tx, Map<BrandedId, Expectation> expected, boolean allNew) {
        if (transacted(expected, allNew)) {
            List<byte[]> hset = new ArrayList<>(2 * expected.size());
            expected.forEach((id, e) -> {
                hset.add(Utf8.bytes(PREFIX + id));
                hset.add(Utf8.bytes(e.render()));
            });
            Optional<List<Object>> done = tx.write(counter -> counter.get(0) == null
                    ? List.of(new JournalTransaction.Write(Protocol.Command.HSET, hset.toArray(byte[][]::new)))
                    : List.of(new JournalTransaction.Write(Protocol.Command.HSET, hset.toArray(byte[][]::new)),
                            new JournalTransaction.Write(Protocol.Command.HINCRBY, COUNT_FIELD, Utf8.bytes(Integer.toString(expected.size())))));
            if (done.isPresent()) {
                if (!done.get().get(0).equals((long) expected.size())) {
                    throw new IllegalStateException("the journal " + journal.key() + " held " + (expected.size() - (Long) done.get().get(0))
                            + " of the expectations just recorded as new: its " + COUNT + " is no longer exact");
                }
                return;
            }
        }
        m.evalAll(m.targetWire, List.of(call(expected)));
    }

    /** Records these expectations, in one call fenced by the lease token. */
    public ScriptCall<Void> call(Map<BrandedId, Expectation> expected) {
        Map<String, String> fields = new LinkedHashMap<>();
        expected.forEach((id, e) -> fields.put(PREFIX + id, e.render()));
        return journal.setCall(fields);
    }

    /** The expectations of these jobs (jobs without one are left out). */
    public Map<BrandedId, Expectation> of(List<BrandedId> ids) {
        return parsed(ids, journal.read(ids.stream().map(id -> Utf8.bytes(PREFIX + id)).toList()));
    }

    /** The expectations of these jobs whose fields were read as these values, in order (a nil value: none, left out). */
    static Map<BrandedId, Expectation> parsed(List<BrandedId> ids, List<?> values) {
        Map<BrandedId, Expectation> out = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            if (values.get(i) != null) {
                out.put(ids.get(i), Expectation.parse(Replies.asText(values.get(i))));
            }
        }
        return out;
    }

    /**
     * Every expectation, in batches of up to {@code size}. The ids the journal minted are dense, ranks 1
     * to {@code hwm} of the queue's id base ({@link Rebrand}), so their expectations are read by field,
     * {@code size} fields an {@code HMGET}, without walking the identity map's fields beside them. Only
     * when the number found is not the journal's {@code expected_rows} (ids kept from v1 by
     * {@code --keep-branded-ids}, a journal begun before the counter) are the others found by
     * {@code HSCAN}, the minted ids read above skipped (a page may repeat a field, so one of those may
     * come twice). {@code minted} and {@code journaled}: the journal's id base and high-water mark, and its
     * {@code expected_rows} (empty when it has none), as read by the caller.
     */
    void forEach(int size, MintedRanks minted, Optional<String> journaled, Consumer<Map<BrandedId, Expectation>> batches) {
        Batches out = new Batches(size, batches);
        long found = 0;
        for (long from = 1; minted.base().isPresent() && from <= minted.hwm(); from += size) {
            List<BrandedId> ids = new ArrayList<>(size);
            for (long rank = from; rank <= Math.min(minted.hwm(), from + size - 1); rank++) {
                ids.add(minted.id(rank));
            }
            Map<BrandedId, Expectation> read = of(ids);
            found += read.size();
            read.forEach(out::add);
        }
        if (!journaled.equals(Optional.of(Long.toString(found)))) {
            journal.entriesStartingWith(PREFIX, page -> {
                for (Map.Entry<byte[], byte[]> e : page) {
                    BrandedId id = BrandedId.of(Replies.asText(e.getKey()).substring(PREFIX.length()));
                    if (minted.rank(id.value()) == 0) {
                        out.add(id, Expectation.parse(Replies.asText(e.getValue())));
                    }
                }
            });
        }
        out.flush();
    }

    /** Gathers expectations into batches of {@code size}, each handed on as it fills; {@link #flush} hands on the rest. */
    private static final class Batches {
        private final int size;
        private final Consumer<Map<BrandedId, Expectation>> to;
        private Map<BrandedId, Expectation> batch = new LinkedHashMap<>();

        Batches(int size, Consumer<Map<BrandedId, Expectation>> to) {
            this.size = size;
            this.to = to;
        }

        void add(BrandedId id, Expectation e) {
            batch.put(id, e);
            if (batch.size() >= size) {
                flush();
            }
        }

        void flush() {
            if (!batch.isEmpty()) {
                to.accept(batch);
                batch = new LinkedHashMap<>();
            }
        }
    }

    /**
     * How many expectations the journal holds: its {@code expected_rows}, which the fenced journal
     * scripts keep exact with every expectation they add or delete (one {@code HGET}). A journal begun
     * before the counter has none: its expectations are counted once by HSCAN (each field once) and the
     * count recorded, fenced, so the scripts keep it from then on.
     */
    public long count() {
        Optional<String> kept = journal.text(COUNT);
        if (kept.isPresent()) {
            return Long.parseLong(kept.get());
        }
        Set<String> fields = new HashSet<>();
        journal.fieldsStartingWith(PREFIX, page -> page.forEach(f -> fields.add(Replies.asText(f))));
        journal.set(Map.of(COUNT, Long.toString(fields.size())));
        return fields.size();
    }

    /** Deletes the expectations of these jobs, fenced by the lease token. */
    public void forget(Collection<BrandedId> ids) {
        journal.forget(ids.stream().map(id -> Utf8.bytes(PREFIX + id)).toList());
    }
}
