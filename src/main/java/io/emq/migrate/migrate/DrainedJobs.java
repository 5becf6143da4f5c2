package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The migrated jobs that drains stopped part-way (Ctrl-C, SIGTERM) served, in the queue's journal: {@code drained:<branded
 * id>} = 1. Completing a job deletes its row, so without them the next drain of the queue could not tell a job such a drain
 * served from one that vanished, and would report it never claimed. A drain records only the jobs it completed once as the
 * journal expects them, under the journal's lease (taken and released around the writes, as a migrator's writes are fenced).
 */
public final class DrainedJobs {
    /** The family of journal fields, {@code drained:<branded id>}. */
    static final String PREFIX = "drained:";
    /** Fields written per call. */
    private static final int CHUNK = 1000;

    private DrainedJobs() {
    }

    /** The jobs stopped drains of the journal's queue recorded as served. */
    public static Set<String> of(Journal journal) {
        Set<String> out = new HashSet<>();
        journal.fieldsStartingWith(PREFIX, page -> page.forEach(field -> out.add(Replies.asText(field).substring(PREFIX.length()))));
        return out;
    }

    /**
     * Records these jobs as served, taking the journal's lease for the writes; refused ({@code EMQLOCK}) while a migrator
     * holds it.
     */
    public static void record(Journal journal, Collection<String> ids) {
        List<String> all = List.copyOf(ids);
        journal.lease().acquire(Migrator.owner(), MigrationOptions.DEFAULT_LEASE.toMillis());
        try {
            for (int from = 0; from < all.size(); from += CHUNK) {
                Map<String, String> fields = new LinkedHashMap<>();
                all.subList(from, Math.min(all.size(), from + CHUNK)).forEach(id -> fields.put(PREFIX + id, "1"));
                journal.set(fields);
            }
        } finally {
            journal.lease().release();
        }
    }
}
