package io.emq.migrate.drain;

import java.util.Optional;

/**
 * A drain stopped part-way ({@link Drain#stop()}): it claimed nothing more and settled the jobs it held. {@code completed}
 * jobs were completed by it, {@code left} wait for the next drain; {@code unrecorded} says why the migrated jobs it served
 * could not be recorded in the journal ({@link io.emq.migrate.migrate.DrainedJobs}), empty when they were.
 */
public final class DrainStopped extends RuntimeException {
    private final long completed;
    private final long left;
    private final Optional<String> unrecorded;

    DrainStopped(long completed, long left, Optional<String> unrecorded) {
        super("drain stopped: " + completed + " completed, " + left + " left");
        this.completed = completed;
        this.left = left;
        this.unrecorded = unrecorded;
    }

    public long completed() {
        return completed;
    }

    public long left() {
        return left;
    }

    public Optional<String> unrecorded() {
        return unrecorded;
    }
}
