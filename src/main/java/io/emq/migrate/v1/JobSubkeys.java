package io.emq.migrate.v1;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The lock and logs keys of a queue's jobs, as a read found them: per kind, the ids of the jobs that have one. What
 * a refresh ({@link QueueSnapshotReader#refresh}) carries on from the snapshot before, so that a queue served by a
 * v1 worker (its locks) or whose jobs log is refreshed as a plain one is: only the keys written since are typed again.
 */
final class JobSubkeys {
    /** The per-job keys a refresh carries on; a flow's keys it does not (a queue with a flow is read in full). */
    static final Set<JobSubKind> CARRIED = Collections.unmodifiableSet(EnumSet.of(JobSubKind.LOCK, JobSubKind.LOGS));
    private final Map<JobSubKind, IdSet> ids = new EnumMap<>(JobSubKind.class);

    /** Records that job {@code id} has a key of {@code kind} (one of {@link #CARRIED}). */
    void add(JobSubKind kind, Bytes id) {
        ids.computeIfAbsent(kind, k -> new IdSet()).add(id);
    }

    boolean has(JobSubKind kind, Bytes id) {
        IdSet held = ids.get(kind);
        return held != null && held.contains(id);
    }

    /** How many jobs have a key of each kind, the kinds none has left out. */
    Map<JobSubKind, Long> counts() {
        Map<JobSubKind, Long> counts = new EnumMap<>(JobSubKind.class);
        ids.forEach((kind, held) -> {
            if (held.size() > 0) {
                counts.put(kind, (long) held.size());
            }
        });
        return counts;
    }

    /**
     * These keys as they are after the keys of {@code retyped} were typed again ({@code there}: which of them exist,
     * each of its kind's type): a kind whose keys none of them is shares its ids with this one, the others are
     * copied without the retyped keys, then given those there.
     */
    JobSubkeys retyped(Map<JobSubKind, Set<Bytes>> retyped, Map<JobSubKind, Set<Bytes>> there) {
        JobSubkeys next = new JobSubkeys();
        for (JobSubKind kind : CARRIED) {
            Set<Bytes> again = retyped.getOrDefault(kind, Set.of());
            IdSet held = ids.get(kind);
            if (again.isEmpty()) {
                if (held != null) {
                    next.ids.put(kind, held);
                }
                continue;
            }
            if (held != null) {
                held.forEach(id -> {
                    if (!again.contains(id)) {
                        next.add(kind, id);
                    }
                });
            }
            there.getOrDefault(kind, Set.of()).forEach(id -> next.add(kind, id));
        }
        return next;
    }
}
