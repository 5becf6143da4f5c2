package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * V20: mint one branded id per job in rank order (v1 serve order per state), in journal batches
 * ({@link IdMinter}); ids already in the journal are kept, so a crashed run resumes with the same ids.
 * Records which snapshot it minted from ({@link QueueMigration#mintedFromSnapshot}): the absorb steps after it
 * copy that snapshot, so the first re-sync pass need not look up the jobs still listed as it read them.
 */
final class PlanIdentity implements Step {
    @Override
    public List<String> checkpoints() {
        return IdMinter.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        long ids = IdMinter.mint(m, Migratable.identities(m.snapshot(), m.options));
        m.mintedFromSnapshot();
        return Map.of("ids", ids, "hwm", m.journal.ids().highWaterMark());
    }
}
