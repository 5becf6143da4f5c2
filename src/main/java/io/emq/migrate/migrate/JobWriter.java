package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Writes migrated jobs in pipelined batches: read the v1 jobs, each hash with its digest
 * (the digest recorded is exactly that of the bytes copied; {@link SourceFence#read}), and build the v2 rows (one batch ahead, on
 * a reader thread, while the batch before is written; building writes nothing but a lane first used), write them with
 * transactions when every row of a batch is new ({@link NewRows}), else (and for the rows of a transaction that
 * wrote nothing) one {@code migrate_write_jobs} call per batch (all keys of a queue share one slot), and record each
 * job's expectation in the journal ({@link Expectations#record}), and in the table of digests the passes without the
 * change feed look at first, when this run keeps one ({@link InLine#withDigests}). The first round trip of the expectations'
 * transaction ({@code WATCH} of the journal, the token read) is sent beside the rows' first ({@link Expectations#watch}),
 * its writes and {@code EXEC} only once the rows' writes replied: rows are always written before their expectations
 * are recorded, and whatever writes the journal in between (a takeover) makes that {@code EXEC} write nothing. Idempotent: a batch written twice leaves the same rows. A row the
 * journal expected before is rewritten only while the v2 runtime has not claimed it (see {@link Rows}); what
 * the journal expected of a batch's rows is read only when it held expectations as the write began (a
 * write's jobs are distinct, so with none then, none of its rows was expected before). The absorb steps' batches whose
 * ids follow from the jobs' ranks ({@link FreshIds}) are neither looked up in the journal nor guarded against a row or
 * a listing the target cannot hold.
 * While v1 is live a job with no id yet (added after V20 minted) or no hash any more (finished or
 * removed) is left to the re-sync passes; once v1 is paused, a job with no id is a bug, and one whose hash is gone
 * since the caller read the source (a client removed it: BullMQ's pause stops workers, not removals) is left
 * out and counted ({@link #GONE_SINCE_READ}): the caller reads the source again or refuses.
 */
final class JobWriter {
    static final int BATCH = 256;
    /**
     * The count {@link #write} returns, beside the rows each v2 state received, of the jobs v1 paused removed since the
     * caller read the source: present only when some were.
     */
    static final String GONE_SINCE_READ = "gone-since-read";
    /**
     * The checkpoints a write passes, in order, for each batch ("new rows watched" only for a batch {@link NewRows} takes,
     * "expectations watched" only for expectations recorded in a {@link JournalTransaction}).
     */
    static final List<String> CHECKPOINTS = List.of("rows built", "new rows watched", "rows written", "expectations watched",
            "expectations recorded");

    private JobWriter() {
    }

    /** Writes the rows of these jobs, each read with its logs and flow keys checked ({@link SourceFence#read}); returns how many rows each v2 state received. */
    static Map<String, Long> write(QueueMigration m, Iterable<JobFacts> jobs) {
        return write(m, jobs, SourceFence::read, Optional.empty());
    }

    /**
     * Writes the rows of these jobs, each read as {@code read} reads it ({@link SourceFence#asScanned}: what the caller's
     * key scan met tells which jobs to ask about logs lists and flow keys); returns how many rows each v2 state received.
     * {@code fresh}: the ids that follow from the rank of a job given ({@link QueueMigration#freshIds},
     * the jobs of the snapshot V20 minted from): a batch of those is not looked up in the journal, and its rows, new, are
     * written without the guards of a row the target may hold ({@link NewRows}).
     */
    static Map<String, Long> write(QueueMigration m, Iterable<JobFacts> jobs, JobRead read, Optional<FreshIds> fresh) {
        Map<String, Long> counts = new HashMap<>();
        if (!jobs.iterator().hasNext()) {
            return counts; // nothing asked of the journal either (a run of many small queues writes none in most passes)
        }
        boolean expectedBefore = !m.journal.text(Expectations.COUNT).equals(Optional.of("0"));
        try (NewRows newRows = new NewRows(m); JournalTransaction journalTx = new JournalTransaction(m, "expectations watched")) {
            ReadAhead.<Built>run("v1 jobs", Migratable.atMost(jobs, BATCH), ahead -> Migratable.inBatches(jobs, BATCH,
                            batch -> ahead.accept(build(m, batch, read, expectedBefore, fresh))),
                    built -> write(m, newRows, journalTx, built, counts));
        }
        return counts;
    }

    /**
     * One batch ready to write: its rows, what each is expected to be, what the journal expected of those written
     * before (and what those it expects nothing of hold), how many of them the journal expected something of, and
     * whether every row's id is fresh ({@link FreshIds}).
     */
    private record Built(List<RowBuilder.Row> rows, List<JobFacts> jobs, Map<BrandedId, Expectation> expectations,
                         Map<BrandedId, Expectation> known, int journaled, boolean fresh, int gone) {
    }

    /**
     * Reads a batch from the source and builds its rows, with what the journal expected of them when
     * {@code expectedBefore} (else none); only reads (it runs ahead, while the batch before is written).
     */
    private static Built build(QueueMigration m, List<JobFacts> batch, JobRead jobRead, boolean expectedBefore,
                               Optional<FreshIds> fresh) {
        List<Bytes> v1Ids = batch.stream().map(JobFacts::id).toList();
        Optional<List<Optional<BrandedId>>> ranked = fresh.flatMap(f -> f.of(batch));
        List<Optional<BrandedId>> ids = ranked.orElseGet(() -> m.journal.ids().lookupV1(v1Ids.stream().map(Bytes::raw).toList()));
        List<SourceFence.Job> read = jobRead.read(m.sourceWire, m.source, v1Ids);
        List<RowBuilder.Row> rows = new ArrayList<>(batch.size());
        List<JobFacts> jobs = new ArrayList<>(batch.size());
        Map<BrandedId, Expectation> expectations = new LinkedHashMap<>();
        Map<Bytes, BrandedId> parents = parentIds(m, batch);
        boolean live = m.v1Live();
        int gone = 0;
        for (int i = 0; i < batch.size(); i++) {
            JobFacts facts = batch.get(i);
            FlatHash hash = read.get(i).hash();
            if (live && (ids.get(i).isEmpty() || hash.isEmpty())) {
                continue; // added after the ids were minted, or gone since the read: the re-sync passes settle it
            }
            BrandedId id = ids.get(i).orElseThrow(() -> new IllegalStateException("job " + facts.id().display()
                    + " has no branded id: the plan-identity step must run first"));
            if (hash.isEmpty()) {
                gone++;
                continue;
            }
            RowBuilder.Row row = RowBuilder.build(m, facts, hash, read.get(i).digest(), id, parentOf(m, facts, hash, parents));
            rows.add(row);
            jobs.add(facts);
            expectations.put(id, row.expected());
        }
        Map<BrandedId, Expectation> known = expectedBefore ? m.journal.expectations().of(new ArrayList<>(expectations.keySet())) : Map.of();
        return new Built(rows, jobs, expectations, m.unjournaledRows ? withUnjournaledRows(m, known, expectations.keySet()) : known,
                known.size(), ranked.isPresent(), gone);
    }

    /**
     * {@code known}, with what each of these rows the journal expects nothing of holds, when v2 holds it
     * ({@link Rows#unjournaled}: written by a run that stopped before journaling it, or by a try of a step that lost its
     * connection): its rewrite is guarded by the attempts it was first written with, as a journaled row's by those the
     * journal expects, though v1 changed the job since (a retry, a failure).
     */
    private static Map<BrandedId, Expectation> withUnjournaledRows(QueueMigration m, Map<BrandedId, Expectation> known,
                                                                   Set<BrandedId> ids) {
        Map<BrandedId, Rows.Held> held = Rows.unjournaled(m, ids.stream().filter(id -> !known.containsKey(id)).toList());
        if (held.isEmpty()) {
            return known;
        }
        Map<BrandedId, Expectation> out = new HashMap<>(known);
        held.forEach((id, row) -> out.put(id, row.asExpected()));
        return out;
    }

    private static void write(QueueMigration m, NewRows newRows, JournalTransaction journalTx, Built built, Map<String, Long> counts) {
        m.checkpoints.hit("rows built");
        boolean allNew = built.known().isEmpty();
        Expectations.watch(journalTx, built.expectations(), allNew); // beside the rows' round trips; completed after them
        List<RowBuilder.Row> unwritten = built.rows().isEmpty() ? List.of() : newRows.write(built.rows(), built.known(), built.fresh());
        if (!unwritten.isEmpty()) {
            Rows.write(m, RowBuilder.writeCall(m, unwritten, built.known()));
        }
        m.checkpoints.hit("rows written");
        if (!built.expectations().isEmpty()) {
            m.journal.expectations().record(m, journalTx, built.expectations(), allNew);
            m.progressed(built.expectations().size() - built.journaled()); // a row an earlier try wrote and did not journal too
            m.inLine.ifPresent(table -> {
                for (int i = 0; i < built.rows().size(); i++) {
                    table.wrote(built.jobs().get(i), built.rows().get(i).expected());
                }
            });
        }
        m.checkpoints.hit("expectations recorded");
        built.rows().forEach(row -> counts.merge(row.state(), 1L, Long::sum));
        if (built.gone() > 0) {
            counts.merge(GONE_SINCE_READ, (long) built.gone(), Long::sum);
        }
    }

    /** The branded ids of the parents the jobs of a batch name, all looked up at once (a batch of flow children often names one). */
    private static Map<Bytes, BrandedId> parentIds(QueueMigration m, List<JobFacts> batch) {
        Set<Bytes> keys = new HashSet<>();
        batch.forEach(j -> {
            if (j.parentKey() != null) {
                keys.add(j.parentKey());
            }
        });
        return keys.isEmpty() ? Map.of() : m.brandedIdsOf(keys);
    }

    /** The link of a flow child to its parent, whose branded id is among {@code parents}; none for a job without a parent. */
    private static Optional<RowBuilder.ParentLink> parentOf(QueueMigration m, JobFacts facts, Map<Bytes, Bytes> hash,
                                                            Map<Bytes, BrandedId> parents) {
        if (facts.parentKey() == null) {
            return Optional.empty();
        }
        Bytes parentKey = facts.parentKey();
        BrandedId parent = Optional.ofNullable(parents.get(parentKey)).orElseThrow(() -> new MigrationRefused(MigrationRefused.Kind.FLOW_PARENT,
                "the parent " + parentKey.display() + " of job " + facts.id().display() + " has no branded id yet: "
                        + m.whyNoBrandedId(parentKey)));
        String parentQueue = m.bases.owner(parentKey).flatMap(m::targetName).orElse(m.target);
        return Optional.of(new RowBuilder.ParentLink(parent, parentQueue, RowBuilder.parentPolicy(hash)));
    }

    /** The hashes of these v1 jobs, in order (empty where a job has none). */
    static List<Map<Bytes, Bytes>> readHashes(QueueMigration m, List<Bytes> ids) {
        return new ArrayList<>(SourceFence.hashes(m.sourceWire, ids.stream().map(id -> m.source.jobKey(id).raw()).toList()));
    }
}
