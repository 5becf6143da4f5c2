package io.emq.migrate.v1;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the queue a key belongs to without splitting it: for every {@code :} in the key, the
 * prefix up to and including it is looked up among the known {@code P:Q:} bases; the longest
 * match wins (so queue {@code a:b} owns {@code P:a:b:wait}, not queue {@code a}).
 */
public final class QueueBases {
    private final Map<Bytes, QueueRef> byBase = new HashMap<>();
    private final Map<Bytes, QueueRef> byBareKey = new HashMap<>();

    public QueueBases(Collection<QueueRef> queues) {
        for (QueueRef q : queues) {
            byBase.put(q.base(), q);
            byBareKey.put(q.bareKey(), q);
        }
    }

    /** The queue whose base is the longest prefix of {@code key}. */
    public Optional<QueueRef> owner(Bytes key) {
        byte[] raw = key.raw();
        for (int i = raw.length - 1; i >= 0; i--) {
            if (raw[i] == ':') {
                QueueRef q = byBase.get(key.slice(0, i + 1));
                if (q != null) {
                    return Optional.of(q);
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
