package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * V70: the dedup keys, receipts and {@code every} schedulers of the source, and the v1 queue settings
 * the v2 gates read ({@link DedupAndSchedulers}).
 */
final class AbsorbDedupAndSchedulers implements Step {
    /** 2: also carries the v1 queue settings into the v2 meta. */
    @Override
    public int revision() {
        return 2;
    }

    @Override
    public List<String> checkpoints() {
        return DedupAndSchedulers.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return DedupAndSchedulers.absorb(m);
    }
}
