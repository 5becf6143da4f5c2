package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Whether v2 holds the migrated jobs in v1's order (migration contract §3). v2 serves {@code pending} and
 * lists {@code dead} by id, and ids are minted in v1's serve order when the ids are planned (V20); a job v1
 * puts elsewhere while it serves through the copy keeps the id it has (one the passes mint for a job added
 * since comes after every id minted before), so v2 would hold it elsewhere than v1 serves it: a LIFO add,
 * an add of higher priority than jobs already prioritized, a job promoted, retried or re-queued into
 * {@code wait} ahead of others, a job that fails after jobs that failed before it. An id, once given, stays
 * (rows, receipts and flow links name it), so such a queue is refused ({@code out-of-order}) unless the
 * operator accepts the drift: V120 compares the whole order as last read before it pauses v1 ({@link #of}),
 * and under the pause only around the jobs each pass wrote ({@link #around}); with the drift accepted, the
 * order v2 holds is compared once v2 serves, and reported. Only once a re-sync pass wrote a row
 * ({@link #canBreak}: else the rows are those minted in v1's order, and v1 only removed jobs since). With
 * lanes chosen job by job ({@code --lane-from}) pending is served lane by lane, and only dead is checked.
 */
final class ServeOrder {
    private static final int LOOKUP = 1000;

    /** How often one v2 set breaks v1's order, and its first break. */
    record Broken(long times, String first) {
    }

    /** Where v2's order breaks v1's: in {@code pending} and in {@code dead}, each set only when it does. */
    record Drift(Map<V2State, Broken> sets) {
        /** No break: what a queue no re-sync pass wrote a row of holds (its rows are those minted in v1's order). */
        static final Drift NONE = new Drift(Map.of());

        boolean none() {
            return sets.isEmpty();
        }

        /** One line: the breaks of each set and the first of each. */
        String describe() {
            List<String> parts = new ArrayList<>();
            sets.forEach((set, broken) -> parts.add(set.wireName() + " breaks v1's order "
                    + (broken.times() == 1 ? "once" : broken.times() + " times") + " (" + broken.first() + ")"));
            return String.join("; ", parts);
        }
    }

    private ServeOrder() {
    }

    /**
     * Whether v2's order can break v1's: a re-sync pass wrote a row ({@link JournalHeader#PASS_WROTE}: read now,
     * as a pass of this step may have set it), and no v1 id was kept as its branded id (those sort by their own
     * mint time, as the plan says).
     */
    private static boolean canBreak(QueueMigration m) {
        JournalHeader header = m.journal.header();
        return header.get(JournalHeader.PASS_WROTE).orElse(false) && !header.get(JournalHeader.KEPT_IDS).orElse(false);
    }

    /** Refuses the queue ({@code out-of-order}) when {@code check} finds v2's order breaking v1's, unless the drift is accepted. */
    static void refuseADrift(QueueMigration m, Supplier<Drift> check) {
        if (!m.options.acceptOrderDrift() && canBreak(m)) {
            Drift drift = check.get();
            if (!drift.none()) {
                throw refusal(m, drift);
            }
        }
    }

    /**
     * Once v2 serves: with the drift accepted, where v2's order breaks v1's as the pass under the pause read it
     * ({@code atPause}; empty, unchecked, without it: a run resumed past the tombstone); else none (refused before).
     */
    static Optional<Drift> accepted(QueueMigration m, Optional<QueueSnapshot> atPause) {
        return m.options.acceptOrderDrift() && canBreak(m) ? atPause.map(snap -> of(m, snap)) : Optional.of(Drift.NONE);
    }

    private static MigrationRefused refusal(QueueMigration m, Drift drift) {
        return new MigrationRefused(MigrationRefused.Kind.OUT_OF_ORDER, "v1 moved jobs of " + m.source.display() + " while it"
                + " served through the copy, and v2 would hold them in another order than v1's: " + drift.describe() + "; stop what"
                + " puts jobs ahead in v1 (LIFO or prioritized adds, promote, retry, workers that fail or retry jobs), then"
                + " `emq-migrate abandon` and migrate again (the ids are then minted from v1 as it is), or re-run with"
                + " --accept-order-drift to retire it as v2 holds it (MIGRATION.md §3, \"Order\"); v1 serves on, nothing was deleted");
    }

    /** Compares v1's order in {@code snap} (the source as last read) with the ids v2 holds, job by job. */
    static Drift of(QueueMigration m, QueueSnapshot snap) {
        Map<V2State, Walk> walks = walks(m);
        Migratable.inBatches(Migratable.identities(snap, m.rule()), LOOKUP, batch -> {
            List<Optional<BrandedId>> ids = ids(m, batch);
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                Walk walk = job.state().becomes().map(walks::get).orElse(null);
                if (walk != null && ids.get(i).isPresent()) {
                    walk.next(job.id(), ids.get(i).get());
                }
            }
        });
        return drift(walks);
    }

    /**
     * As {@link #of}, but only around {@code moved}, the jobs a pass wrote since the order last held: each
     * with its neighbours in its v2 set's order in {@code snap} (a job neither moved nor beside one kept its
     * place among the others since, and so its order).
     */
    static Drift around(QueueMigration m, QueueSnapshot snap, List<JobFacts> moved) {
        Map<V2State, Walk> walks = walks(m);
        List<List<JobFacts>> runs = new ArrayList<>();
        for (JobFacts job : moved) {
            Optional<V2State> set = job.state().becomes().filter(walks::containsKey);
            if (set.isPresent() && m.rule().getsIdentity(job)) {
                List<JobFacts> run = new ArrayList<>(3);
                neighbour(m, snap, job, set.get(), -1).ifPresent(run::add);
                run.add(job);
                neighbour(m, snap, job, set.get(), 1).ifPresent(run::add);
                runs.add(run);
            }
        }
        List<Optional<BrandedId>> ids = ids(m, runs.stream().flatMap(List::stream).toList());
        int at = 0;
        for (List<JobFacts> run : runs) {
            Walk walk = walks.get(run.get(0).state().becomes().orElseThrow()).restart();
            for (JobFacts job : run) {
                Optional<BrandedId> id = ids.get(at++);
                id.ifPresent(v2 -> walk.next(job.id(), v2));
            }
        }
        return drift(walks);
    }

    private static Map<V2State, Walk> walks(QueueMigration m) {
        Map<V2State, Walk> walks = new EnumMap<>(V2State.class);
        walks.put(V2State.DEAD, new Walk());
        if (m.options.laneFrom().isEmpty()) {
            walks.put(V2State.PENDING, new Walk());
        }
        return walks;
    }

    /** The job next to {@code job} in its set's order (before it for -1, after it for 1) that gets an identity. */
    private static Optional<JobFacts> neighbour(QueueMigration m, QueueSnapshot snap, JobFacts job, V2State set, int step) {
        List<V1State> states = V1State.RANK_ORDER;
        int s = states.indexOf(job.state());
        long i = job.position() + step;
        while (s >= 0 && s < states.size()) {
            V1State state = states.get(s);
            if (state.becomes().filter(set::equals).isPresent()) {
                List<JobFacts> jobs = snap.jobs(state);
                for (; i >= 0 && i < jobs.size(); i += step) {
                    JobFacts next = jobs.get((int) i);
                    if (m.rule().getsIdentity(next)) {
                        return Optional.of(next);
                    }
                }
            }
            s += step;
            if (s >= 0 && s < states.size()) {
                i = step > 0 ? 0 : snap.jobs(states.get(s)).size() - 1;
            }
        }
        return Optional.empty();
    }

    /** The branded ids of these jobs, in order (empty where the journal maps none), looked up {@link #LOOKUP} at a time. */
    private static List<Optional<BrandedId>> ids(QueueMigration m, List<JobFacts> jobs) {
        List<Optional<BrandedId>> ids = new ArrayList<>(jobs.size());
        Migratable.inBatches(jobs, LOOKUP, batch -> ids.addAll(m.journal.ids().lookupV1(batch.stream().map(j -> j.id().raw()).toList())));
        return ids;
    }

    private static Drift drift(Map<V2State, Walk> walks) {
        Map<V2State, Broken> sets = new EnumMap<>(V2State.class);
        walks.forEach((set, walk) -> {
            if (walk.breaks > 0) {
                sets.put(set, new Broken(walk.breaks, walk.first));
            }
        });
        return new Drift(sets);
    }

    /** One v2 set's jobs in v1's order: a break wherever a job's id sorts before the id of the job v1 has just before it. */
    private static final class Walk {
        private Bytes lastV1;
        private BrandedId last;
        private long breaks;
        private String first;

        /** Walks on from nothing: the next job is compared with none (breaks found so far kept). */
        Walk restart() {
            last = null;
            lastV1 = null;
            return this;
        }

        void next(Bytes v1, BrandedId id) {
            if (last != null && id.compareTo(last) < 0) {
                if (breaks++ == 0) {
                    first = "v1 job " + v1.display() + " comes after v1 job " + lastV1.display() + " in v1, before it in v2";
                }
            }
            lastV1 = v1;
            last = id;
        }
    }
}
