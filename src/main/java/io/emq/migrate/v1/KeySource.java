package io.emq.migrate.v1;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a reader finds the keys a queue owns: a scan ({@link SharedScan}), or the keys discovery's
 * pass held ({@link HeldKeys}).
 *
 * @param <Q> how a queue is named: a {@link QueueRef} on the v1 source, a v2 name on the target
 */
public interface KeySource<Q> {
    /** The keys {@code queue} owns, in batches, in the order a scan met them. */
    void keysOf(Q queue, Consumer<List<Bytes>> batches);

    /** The queue {@code key} belongs to, if any: of the queues known, the one with the longest base the key starts with. */
    Optional<Q> owner(Bytes key);
}
