package io.emq.migrate.migrate;

import java.util.List;
import java.util.Map;

/** V110: the proof before anything is destroyed; see {@link Verification}. A failure stops the queue at running. */
final class VerifyStep implements Step {
    @Override
    public List<String> checkpoints() {
        return List.of("verified, not yet recorded");
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return Verification.prove(m);
    }
}
