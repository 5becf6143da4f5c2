package io.emq.migrate.v1;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The dedup keys of a snapshot, held compactly: their ids and job ids each in a {@link ByteArena}, when each TTL runs
 * out (this process's clock; -1 for none, -2 for a key gone when read) in chunks of {@link HeapChunks}' size; an entry
 * is materialised as a {@link DedupEntry} on demand, its TTL what is left of it then (at least 1 ms). About 30 bytes a
 * key of short ids, where a list of entries costs about 110: a queue whose million jobs each carry a dedup key keeps
 * its snapshot, and the one a re-sync reads beside it, inside a heap of 256 MiB. Append-only.
 */
final class DedupKeys extends AbstractList<DedupEntry> {
    private static final int TTLS = HeapChunks.of(Long.BYTES);

    private final ByteArena dedupIds = new ByteArena(16);
    private final ByteArena jobIds = new ByteArena(16);
    private final List<long[]> runsOut = new ArrayList<>();

    /** Adds a key as read at {@code readAtMs} (this process's clock), {@code pttlMs} its TTL then (-1: none; -2: gone). */
    void add(Bytes dedupId, Bytes jobId, long pttlMs, long readAtMs) {
        int i = dedupIds.size();
        if (i % TTLS == 0) {
            runsOut.add(new long[TTLS]);
        }
        dedupIds.add(dedupId.raw());
        jobIds.add(jobId.raw());
        runsOut.get(i / TTLS)[i % TTLS] = pttlMs < 0 ? pttlMs : readAtMs + pttlMs;
    }

    @Override
    public DedupEntry get(int i) {
        if (i < 0 || i >= size()) {
            throw new IndexOutOfBoundsException(i);
        }
        long at = runsOut.get(i / TTLS)[i % TTLS];
        return new DedupEntry(dedupIds.get(i), jobIds.get(i), at < 0 ? at : Math.max(1, at - System.currentTimeMillis()));
    }

    @Override
    public int size() {
        return dedupIds.size();
    }

    /** The dedup id of key {@code i}. */
    Bytes dedupIdAt(int i) {
        return dedupIds.get(i);
    }

    /** The job ids the keys name, in order. */
    ByteArena jobIds() {
        return jobIds;
    }

    /**
     * The keys whose id is one of {@code ids} or whose job's id is one of {@code jobs}, in order: a walk of the ids
     * held, each one's hash compared first, no entry built but those.
     */
    List<DedupEntry> naming(Set<Bytes> ids, Set<Bytes> jobs) {
        int[] idHashes = ByteArena.hashesOf(ids);
        int[] jobHashes = ByteArena.hashesOf(jobs);
        List<DedupEntry> found = new ArrayList<>();
        for (int i = 0; i < size() && !(ids.isEmpty() && jobs.isEmpty()); i++) {
            if (Arrays.binarySearch(idHashes, dedupIds.hashAt(i)) >= 0 && ids.contains(dedupIds.get(i))
                    || Arrays.binarySearch(jobHashes, jobIds.hashAt(i)) >= 0 && jobs.contains(jobIds.get(i))) {
                found.add(get(i));
            }
        }
        return found;
    }

    /** Drops spare capacity once every key is added. */
    void trim() {
        dedupIds.trim();
        jobIds.trim();
    }
}
