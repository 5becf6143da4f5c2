package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.ScriptCall;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/** What each migrated job must look like after the migration: {@code r:<branded id>} = an {@link Expectation}. */
public final class Expectations {
    static final String PREFIX = "r:";
    /** The journal field that counts the expectations (the journal Lua keeps it; see {@link #count()}). */
    static final String COUNT = "expected_rows";

    private final Journal journal;

    Expectations(Journal journal) {
        this.journal = journal;
    }

    /** Records these expectations, in one call fenced by the lease token. */
    public ScriptCall<Void> call(Map<BrandedId, Expectation> expected) {
        Map<String, String> fields = new LinkedHashMap<>();
        expected.forEach((id, e) -> fields.put(PREFIX + id, e.render()));
        return journal.setCall(fields);
    }

    /** The expectations of these jobs (jobs without one are left out). */
    public Map<BrandedId, Expectation> of(List<BrandedId> ids) {
        Map<BrandedId, Expectation> out = new LinkedHashMap<>();
        List<byte[]> values = journal.read(ids.stream().map(id -> Utf8.bytes(PREFIX + id)).toList());
        for (int i = 0; i < ids.size(); i++) {
            if (values.get(i) != null) {
                out.put(ids.get(i), Expectation.parse(Replies.asText(values.get(i))));
            }
        }
        return out;
    }

    /** Every expectation, a page of HSCAN at a time (the journal can be large; a page may repeat a job). */
    public void forEach(Consumer<Map<BrandedId, Expectation>> pages) {
        journal.entriesStartingWith(PREFIX, page -> {
            Map<BrandedId, Expectation> out = new LinkedHashMap<>();
            for (Map.Entry<byte[], byte[]> e : page) {
                out.put(BrandedId.of(Replies.asText(e.getKey()).substring(PREFIX.length())),
                        Expectation.parse(Replies.asText(e.getValue())));
            }
            pages.accept(out);
        });
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
