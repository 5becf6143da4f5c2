package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/**
 * V20: mint one branded id per job in rank order (v1 serve order per state), in journal batches
 * ({@link IdMinter}); ids already in the journal are kept, so a crashed run resumes with the same ids.
 */
final class PlanIdentity implements Step {
    @Override
    public List<String> checkpoints() {
        return IdMinter.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        long ids = IdMinter.mint(m, Migratable.identities(m.snapshot(), m.options));
        return Map.of("ids", ids, "hwm", m.journal.ids().highWaterMark());
    }
}
