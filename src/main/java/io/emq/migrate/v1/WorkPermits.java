package io.emq.migrate.v1;

import java.util.concurrent.Semaphore;

/**
 * The permits of N callers that may work at once (the migrator's {@code --parallel N}); a caller that
 * waits for a {@link SharedScan} round gives its permit back meanwhile, and a round can wait until no
 * one is at work, so it serves every caller in flight.
 */
public final class WorkPermits {
    private final int total;
    private final Semaphore permits;

    public WorkPermits(int total) {
        this.total = total;
        this.permits = new Semaphore(total);
    }

    public void enter() {
        permits.acquireUninterruptibly();
    }

    public void leave() {
        permits.release();
    }

    /** Whether no caller holds a permit or waits for one. */
    boolean idle() {
        return permits.availablePermits() == total && !permits.hasQueuedThreads();
    }
}
