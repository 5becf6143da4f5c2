package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * V100: re-reads the source when its fingerprint (the add counter and the size of every structure)
 * moved since the last pass. Jobs a v1 producer added meanwhile are minted ids above the high-water
 * mark and absorbed with their logs and dedup keys, so they drain after the migrated backlog; a job
 * already migrated that changed state means a v1 worker is still running, and the queue is refused.
 * Passes repeat until the fingerprint holds still.
 */
final class CatchUp implements Step {
    static final int MAX_PASSES = 5;

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        long absorbed = 0;
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            String measured = SourceFence.fingerprint(m.sourceWire, m.source);
            if (m.journal.get("fingerprint").map(measured::equals).orElse(false)) {
                return Map.of("caught-up", absorbed, "passes", (long) pass);
            }
            absorbed += absorbNewJobs(m, m.refreshSnapshot());
            m.journal.set("fingerprint", measured);
            m.checkpoints.hit("pass recorded");
        }
        throw new MigrationRefused("source-changed", "the v1 queue " + m.source.display() + " kept changing over "
                + MAX_PASSES + " passes: stop its producers, then re-run");
    }

    private static long absorbNewJobs(QueueMigration m, QueueSnapshot snap) {
        List<JobFacts> fresh = new ArrayList<>(); // only the jobs added since the last pass
        Migratable.inBatches(Migratable.identities(snap, m.options), PlanIdentity.BATCH, batch -> {
            List<Optional<BrandedId>> ids = m.journal.lookupV1(batch.stream().map(j -> j.id().raw()).toList());
            Map<BrandedId, JobFacts> known = new LinkedHashMap<>();
            for (int i = 0; i < batch.size(); i++) {
                if (ids.get(i).isPresent()) {
                    known.put(ids.get(i).get(), batch.get(i));
                } else {
                    fresh.add(batch.get(i));
                }
            }
            refuseMovedJobs(m, known);
        });
        if (fresh.stream().anyMatch(j -> j.state() == V1State.WAITING_CHILDREN)) {
            throw new MigrationRefused("source-changed", "a flow was added to " + m.source.display()
                    + " during the migration: stop its producers, abandon, and migrate again");
        }
        PlanIdentity.mint(m, fresh);
        List<JobFacts> rows = fresh.stream().filter(j -> Migratable.getsRow(j, m.options)).toList();
        JobWriter.write(m, rows);
        CopyLogs.copy(m, rows);
        new AbsorbDedupAndSchedulers().apply(m);
        return rows.size();
    }

    private static void refuseMovedJobs(QueueMigration m, Map<BrandedId, JobFacts> known) {
        Map<BrandedId, Journal.Expected> expected = m.journal.expectations(new ArrayList<>(known.keySet()));
        known.forEach((id, job) -> {
            Journal.Expected e = expected.get(id);
            String now = RowBuilder.v2State(job.state());
            if (e != null && !e.state().equals(now)) {
                throw new MigrationRefused("source-changed", "v1 job " + job.id().display() + " moved to "
                        + job.state().wireName() + " after it was migrated as " + e.state()
                        + ": a v1 worker is still running; stop it, then re-run");
            }
        });
    }
}
