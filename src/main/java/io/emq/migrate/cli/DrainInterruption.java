package io.emq.migrate.cli;

import io.emq.migrate.drain.Drain;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT) or SIGTERM during a drain of a queue: a shutdown hook that stops the drain ({@link Drain#stop()}: it claims
 * nothing more, finishes the jobs it holds and records what it served) and holds the process until the drain said where it
 * stopped, at most one lease: jobs still held then (a handler that did not return, a target that did not answer) go back to
 * pending when their lease lapses, and the hook says so. Closed when the drain ended, however it ended.
 */
final class DrainInterruption implements AutoCloseable {
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Thread hook;

    private DrainInterruption(Drain drain, Duration lease, Invocation in) {
        this.hook = new Thread(() -> {
            drain.stop();
            try {
                if (!ended.await(lease.toMillis(), TimeUnit.MILLISECONDS)) {
                    in.note("emq-migrate drain: interrupted; the jobs it holds were not settled within "
                            + lease.toSeconds() + " s: they go back to pending when their lease lapses, and a drain run"
                            + " again claims them then");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Installs the hook for this drain. */
    static DrainInterruption of(Drain drain, Duration lease, Invocation in) {
        DrainInterruption interruption = new DrainInterruption(drain, lease, in);
        Runtime.getRuntime().addShutdownHook(interruption.hook);
        return interruption;
    }

    /** The drain ended: a hook under way lets the process exit; else the hook is removed. */
    @Override
    public void close() {
        ended.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, and the process exits once it returned
        }
    }
}
