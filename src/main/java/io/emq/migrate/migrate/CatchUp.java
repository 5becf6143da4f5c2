package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * V100, while v1 still serves: re-sync passes ({@link Resync}) bring v2 in line with what v1
 * producers and workers did during the bulk copy, so the last pass under the pause (V120) has only
 * the few jobs they touch meanwhile left to do. With the change feed intact the snapshot held is
 * refreshed with the keys v1 wrote since the pass before and only those jobs are re-read
 * ({@code delta-keys}), and only those and the jobs that may have moved since the copy or the pass before of
 * this run read them are looked up in the journal (see {@link Resync#pass}); otherwise every job is
 * ({@code full-pass}). Passes go on while each one changes
 * more than {@link #SMALL} rows and fewer than the pass before (the delta still shrinks), at most
 * {@link #PASSES}. Without the feed, a queue whose sizes have not moved since this run read it takes no pass
 * ({@code unchanged}, see {@link #apply}). V120 catches up the same way again just before it pauses v1
 * ({@link RetireSource}), with the feed only.
 */
final class CatchUp implements Step {
    static final int PASSES = 4;
    static final long SMALL = 1000;

    /**
     * What the passes of one catch-up did: their counts summed (and how many passes), every row they wrote,
     * and the journal's expectation count as the last one read it when it wrote and removed no row ({@link Resync.Pass#journaled}).
     */
    record Passes(Map<String, Long> counts, List<BrandedId> written, OptionalLong journaled) {
    }

    @Override
    public List<String> checkpoints() {
        return Resync.CHECKPOINTS;
    }

    /**
     * Passes as {@link #run} does; except that a queue the change feed does not watch, whose sizes are still
     * those read before this run's last full read ({@link QueueMigration#sizesAsBeforeLiveRead}: nothing
     * added, no structure moved), takes no pass ({@code unchanged}): each of its passes would read the whole
     * source again, as the pass under the pause (V120) does anyway, which also catches what keeps the sizes (an edit).
     */
    @Override
    public Map<String, Long> apply(QueueMigration m) {
        if (m.v1Live()) {
            m.beginWatch(false); // a run resumed past the fence
        }
        if (m.watch.isEmpty() && m.sizesAsBeforeLiveRead()) {
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put("unchanged", 1L);
            counts.put("passes", 0L);
            return counts;
        }
        return run(m).counts();
    }

    /** Passes while the delta is large and still shrinks, at most {@link #PASSES}. */
    static Passes run(QueueMigration m) {
        Map<String, Long> counts = new LinkedHashMap<>();
        Set<BrandedId> written = new LinkedHashSet<>();
        Resync.Pass pass = Resync.run(m);
        long passes = 1;
        for (long before = Long.MAX_VALUE; ; passes++) {
            pass.counts().forEach((k, v) -> counts.merge(k, v, Long::sum));
            written.addAll(pass.written());
            if (passes == PASSES || pass.changed() <= SMALL || pass.changed() >= before) {
                break;
            }
            before = pass.changed();
            pass = Resync.run(m);
        }
        counts.put("passes", passes);
        return new Passes(counts, new ArrayList<>(written), pass.journaled());
    }
}
