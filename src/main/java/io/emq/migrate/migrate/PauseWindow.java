package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.wire.Wire;
import java.util.Optional;

/**
 * The estimate {@code plan} gives of a queue's pause window: how long its v1 queue stays paused, from
 * the pause in V120 until the v2 queue serves. The bulk is copied, re-synced and verified while v1
 * serves, and V120 catches up again and proves those rows just before it pauses; under the pause the
 * last pass still walks the listings of every job and checks each against what the pass before read
 * ({@link InLine}), and looks up in the journal only the jobs touched or added since (every job when the
 * change feed broke), so the window still grows with the queue, slowly (the guard of that read and the
 * retirement of the structures are O(1): {@link SourceGuard}). Without the change feed that pass reads every job
 * again, and so it does with the feed when the queue holds what the feed's refresh of the read before cannot carry on
 * (ids listed twice, more than 1,000 anomalies of a kind, BullMQ 4.x markers:
 * {@link QueueSnapshot#readInFullBecause}),
 * or when a flow moves under the pause (a child finishing: the estimate takes flows to stay, as locks, logs lists, job
 * schedulers, stalled jobs, ids listed without a hash, jobs stranded in {@code paused}, the v1 wrappers' keys, keys of
 * no v1 shape, stale schedulers' records, the keys of jobs whose hash is gone, orphan hashes and the anomalies of job
 * hashes and scores are carried).
 * The estimate is the jobs times the cost per job {@code bench/run-migration} measured either way (bench/RESULTS.md).
 */
public final class PauseWindow implements AutoCloseable {
    /**
     * The window per job with the change feed, rounded up from what {@code bench/run-migration --jobs 1000000 --producer 1000}
     * measured on the tree that caught up before the pause: 997 ms for 1,079,560 jobs at load average 1.2
     * (0.92 µs a job) and 1,702 ms for 1,123,913 jobs at load average 8 (1.5 µs a job). A producer adds the
     * jobs it added during the last live pass to the window (about a second's worth), which the estimate
     * does not foresee.
     */
    static final double MICROS_PER_JOB = 1.5;
    /**
     * The window per job without it (a source user without the feed's commands, a cluster source's queue whose keys spread over slots, a queue past the
     * {@link SourceFeed#MOST_WATCHED} a run watches): the pass under the pause reads every job again and looks each up in
     * the journal. Rounded up from {@code bench/run-migration --without-feed} (bench/RESULTS.md, session 29, once that
     * pass read a queue without logs or flow keys as hashes alone): 11,036 ms for 1,000,000 jobs (11.0 µs a job),
     * 14,944 ms for 1,099,980 with {@code --producer 1000} (13.6 µs a job). A queue read whole with the feed costs
     * about as much: 6-11 µs a job a read, timed in session 43 with a real BullMQ client beside the run, and a write
     * landing in a read has it read again.
     */
    static final double MICROS_PER_JOB_WITHOUT_FEED = 14;

    /** The feed a run would open: each queue of the plan is watched in turn, as the run would watch it. */
    private final SourceFeed feed;

    private PauseWindow(SourceFeed feed) {
        this.feed = feed;
    }

    /** The estimates of one plan's queues from {@code source}: a change feed is opened on it, and watches no key until {@link #next}. */
    public static PauseWindow of(Wire source) {
        return new PauseWindow(new SourceFeed(source));
    }

    /**
     * A queue's estimate; why its run would re-sync it without the change feed, or else why the last pass would read the
     * queue whole all the same (either way it reads every job again).
     */
    public record Estimate(long ms, Optional<String> withoutFeed, Optional<String> readInFull) {
    }

    /**
     * The estimate of the plan's next queue, whose run would watch it through the feed as this one does: unless the feed
     * could not start, the source refuses to track the queue's prefix, its keys spread over a cluster's slots, or the
     * feed watches its first {@link SourceFeed#MOST_WATCHED} queues already.
     */
    public Estimate next(QueueSnapshot snap) {
        Optional<String> without = feed.watch(snap.queue()).isPresent() ? Optional.empty() : Optional.of(feed.whyUnwatched(snap.queue()));
        Optional<String> readInFull = without.isEmpty() ? snap.readInFullBecause() : Optional.empty();
        double micros = without.isEmpty() && readInFull.isEmpty() ? MICROS_PER_JOB : MICROS_PER_JOB_WITHOUT_FEED;
        return new Estimate(Math.round(snap.jobCount() * micros / 1000), without, readInFull);
    }

    /** Closes the feed's connections. */
    @Override
    public void close() {
        feed.close();
    }
}
