package io.emq.migrate.cli;

import io.emq.migrate.drain.Drain;
import io.emq.migrate.drain.ExecHandler;
import io.emq.migrate.runtime.JobHandler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT) or SIGTERM during a drain of a queue: a shutdown hook that stops the drain ({@link Drain#stop()}: it claims
 * nothing more, finishes the jobs it holds and records what it served) and holds the process until the drain said where it
 * stopped, at most one lease: jobs still held then (a handler that did not return, a target that did not answer) go back to
 * pending when their lease lapses, and the hook says so. Handler commands still running then ({@code --handler exec}) are
 * ended, with their process trees, so none finishes a job after the drain let its lease lapse. Closed when the drain ended,
 * however it ended.
 */
final class DrainInterruption implements AutoCloseable {
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Thread hook;
    private volatile boolean gaveUp;

    private DrainInterruption(Drain drain, JobHandler handler, Duration lease, Invocation in) {
        this.hook = new Thread(() -> {
            drain.stop();
            try {
                if (!ended.await(lease.toMillis(), TimeUnit.MILLISECONDS)) {
                    gaveUp = true;
                    in.note(notSettled(lease, stopHandlers(handler)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Installs the hook for this drain, which runs {@code handler}. */
    static DrainInterruption of(Drain drain, JobHandler handler, Duration lease, Invocation in) {
        DrainInterruption interruption = new DrainInterruption(drain, handler, lease, in);
        Runtime.getRuntime().addShutdownHook(interruption.hook);
        return interruption;
    }

    /**
     * Whether the hook stopped waiting for the drain to settle the jobs it holds (and said so): the drain's own word on
     * where it stopped, should it end after all, is then not to be said.
     */
    boolean gaveUp() {
        return gaveUp;
    }

    /** Ends the handler commands still running, with their process trees; how many processes were ended. */
    private static int stopHandlers(JobHandler handler) {
        return handler instanceof ExecHandler exec ? exec.stop() : 0;
    }

    private static String notSettled(Duration lease, int processesStopped) {
        return "emq-migrate drain: interrupted; the jobs it holds were not settled within " + lease.toSeconds() + " s: "
                + (processesStopped == 0 ? "they" : "their handlers were stopped (" + processesStopped + " processes); the jobs")
                + " go back to pending when their lease lapses, and a drain run again claims them then";
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
