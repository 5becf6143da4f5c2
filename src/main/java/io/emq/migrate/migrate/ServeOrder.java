package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether v2 holds the migrated jobs in v1's order at the cutover (migration contract §3). v2 serves
 * {@code pending} and lists {@code dead} by id, and ids are minted in v1's serve order when the ids are
 * planned (V20); a job v1 puts elsewhere while it serves through the copy keeps the id it has (one the
 * passes mint for a job added since comes after every id minted before), so v2 holds it elsewhere than
 * v1 would serve it: a LIFO add, an add of higher priority than jobs already prioritized, a job promoted,
 * retried or re-queued into {@code wait} while prioritized jobs wait behind it, a job that fails after
 * jobs that failed before it. Checked after the cutover, from the source as the pass under the pause
 * read it and the journal's ids, when a re-sync pass wrote a row ({@link JournalHeader#PASS_WROTE}: else the
 * rows are those minted in v1's order, and v1 only removed jobs since); nothing is moved (an id, once given, stays: rows, receipts and flow
 * links name it). With lanes chosen job by job ({@code --lane-from}) pending is served lane by lane,
 * and only dead is checked.
 */
final class ServeOrder {
    private static final int LOOKUP = 1000;

    /** Where v2's order breaks v1's: how many times in {@code pending} and in {@code dead}, and the first break of each. */
    record Drift(Map<V2State, Long> breaks, List<String> first) {
        /** No break: what a queue no re-sync pass wrote a row of holds (its rows are those minted in v1's order). */
        static final Drift NONE = new Drift(Map.of(), List.of());

        /** One line: the breaks of each set and the first of each. */
        String describe() {
            List<String> parts = new ArrayList<>();
            int i = 0;
            for (Map.Entry<V2State, Long> set : breaks.entrySet()) {
                parts.add(set.getKey().wireName() + " breaks v1's order " + (set.getValue() == 1 ? "once" : set.getValue() + " times")
                        + " (" + first.get(i++) + ")");
            }
            return String.join("; ", parts);
        }
    }

    private ServeOrder() {
    }

    /** Compares v1's order in {@code atPause} (the source the pass under the pause read) with the ids v2 holds. */
    static Drift of(QueueMigration m, QueueSnapshot atPause) {
        Map<V2State, Walk> walks = new EnumMap<>(V2State.class);
        walks.put(V2State.DEAD, new Walk());
        if (m.options.laneFrom().isEmpty()) {
            walks.put(V2State.PENDING, new Walk());
        }
        Migratable.inBatches(Migratable.identities(atPause, m.options), LOOKUP, batch -> {
            List<Optional<BrandedId>> ids = m.journal.ids().lookupV1(batch.stream().map(j -> j.id().raw()).toList());
            for (int i = 0; i < batch.size(); i++) {
                JobFacts job = batch.get(i);
                Walk walk = job.state().becomes().map(walks::get).orElse(null);
                if (walk != null && ids.get(i).isPresent()) {
                    walk.next(job.id(), ids.get(i).get());
                }
            }
        });
        Map<V2State, Long> breaks = new EnumMap<>(V2State.class);
        List<String> first = new ArrayList<>();
        walks.forEach((set, walk) -> {
            if (walk.breaks > 0) {
                breaks.put(set, walk.breaks);
                first.add(walk.first);
            }
        });
        return new Drift(breaks, first);
    }

    /** One v2 set's jobs in v1's order: a break wherever a job's id sorts before the id of the job v1 has just before it. */
    private static final class Walk {
        private Bytes lastV1;
        private BrandedId last;
        private long breaks;
        private String first;

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
