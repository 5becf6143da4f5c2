package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * V20: mint one branded id per job in rank order (v1 serve order per state), in journal batches
 * ({@link IdMinter}); ids already in the journal are kept, so a crashed run resumes with the same ids.
 * Records which snapshot it minted from ({@link QueueMigration#mintedFromSnapshot}), which the absorb steps after it
 * copy, and the ids that follow from a job's rank ({@link FreshIds}), which they need not look up.
 */
final class PlanIdentity implements Step {
    @Override
    public List<String> checkpoints() {
        return IdMinter.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        IdMinter.Minted minted = IdMinter.mint(m, Migratable.identities(m.snapshot(), m.rule()));
        m.mintedFromSnapshot(minted.fresh());
        return Map.of("ids", minted.jobs(), "hwm", m.journal.ids().highWaterMark());
    }
}
