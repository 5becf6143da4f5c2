package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the queue a key belongs to without splitting it: for every {@code :} in the key, the
 * prefix up to and including it is looked up among the known {@code P:Q:} bases; the longest
 * match wins (so queue {@code a:b} owns {@code P:a:b:wait}, not queue {@code a}). The bases are
 * held in an {@link IdIndex}, so a lookup copies no part of the key (every scanned key is looked up).
 */
public final class QueueBases {
    private final ByteArena bases = new ByteArena(16);
    private final IdIndex byBase;
    private final List<QueueRef> queues = new ArrayList<>();
    private final Map<Bytes, QueueRef> byBareKey = new HashMap<>();

    public QueueBases(Collection<QueueRef> queues) {
        this.byBase = new IdIndex(bases, queues.size());
        for (QueueRef q : queues) {
            int first = byBase.putIfAbsent(bases.add(q.base().raw()));
            this.queues.add(q);
            if (first >= 0) {
                this.queues.set(first, q); // one base, two refs (prefix a, queue b:c and prefix a:b, queue c): the last wins
            }
            byBareKey.put(q.bareKey(), q);
        }
    }

    /** The queue whose base is the longest prefix of {@code key}. */
    public Optional<QueueRef> owner(Bytes key) {
        byte[] raw = key.raw();
        for (int i = raw.length - 1; i >= 0; i--) {
            if (raw[i] == ':') {
                int entry = byBase.find(raw, 0, i + 1);
                if (entry >= 0) {
                    return Optional.of(queues.get(entry));
                }
            }
        }
        return Optional.empty();
    }

    /** The queue whose bare {@code P:Q} key this is. */
    public Optional<QueueRef> bareOwner(Bytes key) {
        return Optional.ofNullable(byBareKey.get(key));
    }
}
