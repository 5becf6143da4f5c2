package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * V100: one re-sync of the source ({@link Resync}): jobs v1 producers added since the fence are
 * minted ids above the high-water mark, in serve order, and absorbed with their logs and dedup keys;
 * jobs that moved are rewritten, jobs v1 no longer holds are removed from v2; a live v1 worker
 * refuses the queue. With the source's change feed intact since this run's fence, only the jobs it
 * names are re-read ({@code delta-keys}); otherwise every job is ({@code full-pass}).
 */
final class CatchUp implements Step {
    @Override
    public List<String> checkpoints() {
        return Resync.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return Resync.run(m).counts();
    }
}
