package io.emq.migrate.migrate;

import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Reads batches on a reader thread, one batch ahead of the caller, who takes them in order: the
 * server answers the next read while the caller works on the batch before. A failure on either side
 * stops both and is thrown to the caller. Or runs a task of its own on a reader thread beside the caller's
 * ({@link #beside}). The reader threads are shared by every run of the process
 * and kept a minute when idle: a migration of many small queues reads ahead several times a queue,
 * and starting a thread each time cost more than the read it overlapped.
 */
final class ReadAhead {
    private static final ExecutorService READERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "emq-migrate-read-ahead");
        t.setDaemon(true);
        return t;
    });

    private ReadAhead() {
    }

    /** Runs {@code read} (which hands each batch it reads to its argument) on a reader thread; {@code take} gets the batches here. */
    static <T> void run(String what, Consumer<Consumer<T>> read, Consumer<T> take) {
        BlockingQueue<Optional<T>> ahead = new ArrayBlockingQueue<>(1); // empty: the reader is done
        beside(what, () -> {
            try {
                read.accept(batch -> handOver(ahead, Optional.of(batch), what));
            } finally {
                try {
                    ahead.put(Optional.empty());
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        }, () -> {
            for (Optional<T> batch = next(ahead, what); batch.isPresent(); batch = next(ahead, what)) {
                take.accept(batch.get());
            }
        });
    }

    /**
     * Runs {@code aside} on a reader thread while {@code here} runs on the caller's; returns what
     * {@code aside} returned. A failure on either side stops both and is thrown to the caller.
     */
    static <T> T beside(String what, Callable<T> aside, Runnable here) {
        Future<T> other = READERS.submit(aside);
        try {
            here.run();
            return other.get(); // the other side's failure, if it failed
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefused(MigrationRefused.Kind.INTERRUPTED, "interrupted while reading " + what);
        } finally {
            other.cancel(true); // a side still at work (the caller failed) is interrupted and stops at its next hand-over
        }
    }

    private static <T> Optional<T> next(BlockingQueue<Optional<T>> ahead, String what) {
        try {
            return ahead.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefused(MigrationRefused.Kind.INTERRUPTED, "interrupted while reading " + what);
        }
    }

    private static <T> void handOver(BlockingQueue<Optional<T>> ahead, Optional<T> batch, String what) {
        try {
            ahead.put(batch);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefused(MigrationRefused.Kind.INTERRUPTED, "stopped while reading " + what);
        }
    }
}
