package io.emq.migrate.v1;

/**
 * A flow parent of this queue: how many children it still waits for ({@code :dependencies}, full
 * child keys, possibly in other queues), how many finished into {@code :processed},
 * {@code :failed} and {@code :unsuccessful}, and the full keys of those finished children that are
 * in other queues ({@code finishedElsewhere}: each needs a branded id from its own queue's migration).
 */
public record FlowParent(Bytes id, long pendingChildren, long crossQueuePending, long processed, long failed,
                         long unsuccessful, java.util.List<Bytes> finishedElsewhere) {
}
