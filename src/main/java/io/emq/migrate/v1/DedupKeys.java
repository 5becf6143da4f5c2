package io.emq.migrate.v1;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;

/**
 * The dedup keys of a snapshot, held compactly: their ids and job ids each in a {@link ByteArena}, their TTLs in
 * chunks of {@link HeapChunks}' size; an entry is materialised as a {@link DedupEntry} on demand. About 30 bytes a
 * key of short ids, where a list of entries costs about 110: a queue whose million jobs each carry a dedup key keeps
 * its snapshot, and the one a re-sync reads beside it, inside a heap of 256 MiB. Append-only.
 */
final class DedupKeys extends AbstractList<DedupEntry> {
    private static final int TTLS = HeapChunks.of(Long.BYTES);

    private final ByteArena dedupIds = new ByteArena(16);
    private final ByteArena jobIds = new ByteArena(16);
    private final List<long[]> pttls = new ArrayList<>();

    void add(Bytes dedupId, Bytes jobId, long pttlMs) {
        int i = dedupIds.size();
        if (i % TTLS == 0) {
            pttls.add(new long[TTLS]);
        }
        dedupIds.add(dedupId.raw());
        jobIds.add(jobId.raw());
        pttls.get(i / TTLS)[i % TTLS] = pttlMs;
    }

    @Override
    public DedupEntry get(int i) {
        if (i < 0 || i >= size()) {
            throw new IndexOutOfBoundsException(i);
        }
        return new DedupEntry(dedupIds.get(i), jobIds.get(i), pttls.get(i / TTLS)[i % TTLS]);
    }

    @Override
    public int size() {
        return dedupIds.size();
    }

    /** Drops spare capacity once every key is added. */
    void trim() {
        dedupIds.trim();
        jobIds.trim();
    }
}
