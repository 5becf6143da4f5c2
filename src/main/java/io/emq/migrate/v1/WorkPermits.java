package io.emq.migrate.v1;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The permits of N callers that may work at once (the migrator's {@code --parallel N}); a caller that
 * waits for a {@link SharedScan} round gives its permit back meanwhile, and a round can wait until no
 * one is at work, so it serves every caller in flight.
 */
public final class WorkPermits {
    private final int total;
    private final Semaphore permits;
    /** Callers handed to a thread that have not asked for a permit yet ({@link #expect}): a round waits for them too. */
    private final AtomicInteger coming = new AtomicInteger();

    public WorkPermits(int total) {
        this.total = total;
        this.permits = new Semaphore(total);
    }

    public void enter() {
        permits.acquireUninterruptibly();
    }

    /**
     * {@code callers} more are on their way (handed to threads that may not have started yet: a loaded machine starts
     * a thread late), each to {@link #enterExpected}: until they have, no one counts as idle.
     */
    public void expect(int callers) {
        coming.addAndGet(callers);
    }

    /** Enters as one of the callers {@link #expect}ed (holding the permit before it stops being counted as coming). */
    public void enterExpected() {
        enter();
        coming.decrementAndGet();
    }

    public void leave() {
        permits.release();
    }

    /** Whether no caller holds a permit, waits for one or is on its way. */
    boolean idle() {
        return coming.get() == 0 && permits.availablePermits() == total && !permits.hasQueuedThreads();
    }
}
