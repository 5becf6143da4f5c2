package io.emq.migrate.migrate;

import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * V30-V50: write the rows of the jobs of the v1 states the step file {@code takes} into their v2 structure (V60 writes
 * its flow parents' rows the same way, {@link AbsorbFlows}).
 * When the key scan of the snapshot read (V10's, or this run's first read on a re-run) met no job's logs list or
 * flow key, no job is checked for them ({@link SourceFence#readWithoutExtras}): one created since is told by the
 * change feed, or found by the full re-sync pass when there is no feed, and that job copied again with it. The copy
 * keeps what it recorded of each job ({@link InLine}: its v2 state and attempts, and without the feed its digest,
 * {@link InLine#withDigests}), so the first pass looks up in the journal only the jobs the feed tells touched, or
 * that it reads in another state or with other attempts (without the feed: another digest).
 * A try of the step after a lost connection ({@link Migrator}) goes on where the tries before it stopped: the jobs the
 * table holds as written and journaled by this run ({@link InLine#holds}) are counted as copied, and neither read,
 * looked up nor written again; a job whose row was written but whose expectation did not land is not held, and is
 * written again as on a re-run (guarded by what its row holds, {@link JobWriter}).
 */
final class Absorb implements Step {
    private final List<V1State> states;

    Absorb(StepDefinition definition) {
        if (definition.takes().isEmpty()) {
            throw new IllegalStateException("an absorb step must say which v1 states it takes");
        }
        this.states = definition.takes();
    }

    @Override
    public List<String> checkpoints() {
        return JobWriter.CHECKPOINTS;
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        return write(m, states, SourceFence.asScanned(m.snapshot()), m.freshIds());
    }

    /**
     * Writes the rows of the jobs of these states ({@link JobWriter#write(QueueMigration, Iterable, JobRead, Optional)}),
     * going on where the tries before this one stopped: the jobs this run wrote and journaled are counted, not written
     * again. Returns how many rows each v2 state received.
     */
    static Map<String, Long> write(QueueMigration m, List<V1State> states, JobRead read, Optional<FreshIds> fresh) {
        QueueSnapshot snapshot = m.snapshot();
        if (m.inLine.isEmpty()) {
            m.inLine = m.watch.isEmpty() ? InLine.withDigestsIfTheyFit(snapshot.jobCount(), InLine.idBytes(snapshot))
                    : Optional.of(new InLine(snapshot.jobCount(), InLine.idBytes(snapshot)));
        }
        InLine table = m.inLine.orElse(null); // empty on a first try of V30: then nothing is skipped or looked up
        Map<String, Long> counts = table == null || table.isEmpty() ? new HashMap<>() : written(table, Migratable.rows(snapshot, states, m.rule()));
        Iterable<JobFacts> rows = counts.isEmpty() ? Migratable.rows(snapshot, states, m.rule())
                : Migratable.select(states.stream().map(snapshot::jobs).toList(), j -> m.rule().getsRow(j) && !table.holds(j));
        JobWriter.write(m, rows, read, fresh).forEach((state, n) -> counts.merge(state, n, Long::sum));
        return counts;
    }

    /** How many of these jobs this run wrote and journaled already ({@link InLine#holds}), by v2 state. */
    private static Map<String, Long> written(InLine table, Iterable<JobFacts> rows) {
        Map<String, Long> counts = new HashMap<>();
        for (JobFacts j : rows) {
            if (table.holds(j)) {
                counts.merge(j.state().becomes().orElseThrow().wireName(), 1L, Long::sum);
            }
        }
        return counts;
    }
}
