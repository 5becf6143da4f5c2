package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The keys one discovery pass met under the prefixes, grouped by the queue that owns each
 * ({@link QueueBases#owner}), each queue's in the order the scan met them: a dry run's reader takes a
 * queue's keys from here instead of scanning the keyspace a second time. Unlike a {@link SharedScan}'s,
 * these keys were met before the queue's listings were read: on a source that changes meanwhile, a job
 * added since is listed but not met (its hash is still read and typed with its facts), and a job hash
 * deleted since is met but no longer listed (an unlisted hash, as a job added between the listings and
 * a scan of its own would be). The migration never reads through held keys.
 */
final class HeldKeys implements KeySource<QueueRef> {
    private static final int[] NONE = new int[0];
    private final ByteArena keys;
    private final Map<QueueRef, int[]> byQueue;
    private final QueueBases bases;

    /** {@code owner}: per entry of {@code keys}, the index in {@code queues} of the queue that owns it ({@code bases}), or -1. */
    HeldKeys(ByteArena keys, List<QueueRef> queues, int[] owner, QueueBases bases) {
        this.keys = keys;
        this.bases = bases;
        int[] counts = new int[queues.size()];
        for (int q : owner) {
            if (q >= 0) {
                counts[q]++;
            }
        }
        int[][] entries = new int[queues.size()][];
        for (int q = 0; q < entries.length; q++) {
            entries[q] = new int[counts[q]];
            counts[q] = 0;
        }
        for (int entry = 0; entry < owner.length; entry++) {
            int q = owner[entry];
            if (q >= 0) {
                entries[q][counts[q]++] = entry;
            }
        }
        this.byQueue = new HashMap<>();
        for (int q = 0; q < entries.length; q++) {
            byQueue.put(queues.get(q), entries[q]);
        }
    }

    @Override
    public void keysOf(QueueRef queue, Consumer<List<Bytes>> batches) {
        int[] entries = byQueue.getOrDefault(queue, NONE);
        for (int from = 0; from < entries.length; from += KeyspaceScanner.BATCH) {
            int to = Math.min(entries.length, from + KeyspaceScanner.BATCH);
            List<Bytes> batch = new ArrayList<>(to - from);
            for (int k = from; k < to; k++) {
                batch.add(keys.get(entries[k]));
            }
            batches.accept(batch);
        }
    }

    @Override
    public Optional<QueueRef> owner(Bytes key) {
        return bases.owner(key);
    }
}
