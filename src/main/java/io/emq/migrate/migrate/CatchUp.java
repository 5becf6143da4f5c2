package io.emq.migrate.migrate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * V100, while v1 still serves: re-sync passes ({@link Resync}) bring v2 in line with what v1
 * producers and workers did during the bulk copy, so the last pass under the pause (V120) has only
 * the few jobs they touch meanwhile left to do. With the change feed intact only the jobs whose keys
 * v1 wrote since the pass before are re-read ({@code delta-keys}); otherwise every job is
 * ({@code full-pass}). Passes go on while each one changes more than {@link #SMALL} rows and fewer
 * than the pass before (the delta still shrinks), at most {@link #PASSES}.
 */
final class CatchUp implements Step {
    static final int PASSES = 4;
    static final long SMALL = 1000;

    @Override
    public List<String> checkpoints() {
        return Resync.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        Map<String, Long> counts = new LinkedHashMap<>();
        Resync.Pass pass = Resync.run(m);
        pass.counts().forEach((k, v) -> counts.merge(k, v, Long::sum));
        long passes = 1;
        for (long before = Long.MAX_VALUE; passes < PASSES && pass.changed() > SMALL && pass.changed() < before; passes++) {
            before = pass.changed();
            pass = Resync.run(m);
            pass.counts().forEach((k, v) -> counts.merge(k, v, Long::sum));
        }
        counts.put("passes", passes);
        return counts;
    }
}
