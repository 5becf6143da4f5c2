package io.emq.migrate.migrate;

import io.emq.migrate.wire.DaemonThreads;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Reads batches on a reader thread, one batch ahead of the caller, who takes them in order: the
 * server answers the next read while the caller works on the batch before. A failure on either side
 * stops both and is thrown to the caller. The reader threads are shared by every run of the process
 * and kept a minute when idle: a migration of many small queues reads ahead several times a queue,
 * and starting a thread each time cost more than the read it overlapped. A read the caller knows to
 * yield one batch at most runs on the caller's thread: there is nothing to read ahead of, and handing
 * that batch between two threads cost a small queue's run more than its reads (bench/RESULTS.md,
 * session 16).
 */
final class ReadAhead {
    private static final ExecutorService READERS = Executors.newCachedThreadPool(DaemonThreads.named("emq-migrate-read-ahead"));

    private ReadAhead() {
    }

    /**
     * Runs {@code read} (which hands each batch it reads to its argument) on a reader thread; {@code take} gets the
     * batches here. With {@code oneBatch} (the read yields one batch at most), both run here, one after the other.
     */
    static <T> void run(String what, boolean oneBatch, Consumer<Consumer<T>> read, Consumer<T> take) {
        if (oneBatch) {
            read.accept(take);
            return;
        }
        BlockingQueue<Optional<T>> ahead = new ArrayBlockingQueue<>(1); // empty: the reader is done
        Future<?> reading = READERS.submit(() -> {
            try {
                read.accept(batch -> handOver(ahead, Optional.of(batch), what));
            } finally {
                try {
                    ahead.put(Optional.empty());
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        try {
            for (Optional<T> batch = ahead.take(); batch.isPresent(); batch = ahead.take()) {
                take.accept(batch.get());
            }
            reading.get(); // the reader's failure, if it failed
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefused(MigrationRefused.Kind.INTERRUPTED, "interrupted while reading " + what);
        } finally {
            reading.cancel(true); // a reader still at work (the caller failed) is interrupted and stops at its next hand-over
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
