package io.emq.migrate.v1;

/**
 * A flow parent of this queue: how many children it still waits for ({@code :dependencies}, full
 * child keys, possibly in other queues), and how many finished into {@code :processed},
 * {@code :failed} and {@code :unsuccessful}.
 */
public record FlowParent(Bytes id, long pendingChildren, long crossQueuePending, long processed, long failed,
                         long unsuccessful) {
}
