package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * V30-V50: write the rows of the jobs of the v1 states the step file {@code takes} into their v2 structure.
 * When the key scan of the snapshot read (V10's, or this run's first read on a re-run) met no job's logs list or
 * flow key, no job is checked for them ({@link SourceFence#readWithoutExtras}): one created since is told by the
 * change feed, or found by the full re-sync pass when there is no feed, and that job copied again with it. The copy
 * keeps what it recorded of each job ({@link InLine}: its v2 state and attempts, and without the feed its digest,
 * {@link InLine#withDigests}), so the first pass looks up in the journal only the jobs the feed tells touched, or
 * that it reads in another state or with other attempts (without the feed: another digest).
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
        QueueSnapshot snapshot = m.snapshot();
        if (m.inLine.isEmpty()) {
            m.inLine = m.watch.isEmpty() ? InLine.withDigestsIfTheyFit(snapshot.jobCount(), InLine.idBytes(snapshot))
                    : Optional.of(new InLine(snapshot.jobCount(), InLine.idBytes(snapshot)));
        }
        return JobWriter.write(m, Migratable.rows(snapshot, states, m.options), !SourceFence.noExtrasScanned(snapshot), m.freshIds());
    }
}
