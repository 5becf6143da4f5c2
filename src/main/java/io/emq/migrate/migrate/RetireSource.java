package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * V120, only after proof, in three parts.
 *
 * <p>The structures: one script deletes the v1 structures and stamps the tombstone only if the
 * source's fingerprint (every member of every structure, in order, and the add counter) is still the
 * one the last re-sync pass brought v2 in line with and a verification proved. When the last
 * verification proved the pass now recorded, that is tried first as it stands; otherwise, and whenever
 * the fingerprint moved, a re-sync pass ({@link Resync}) and the proof ({@link Verification}) run
 * first, up to {@link #PASSES} times; then the queue is refused, naming what kept moving, with
 * nothing deleted. From the tombstone on, a v1 producer fails loudly (the add counter and
 * {@code meta.version} hold it) instead of adding a job no migration sees.
 *
 * <p>The jobs: a batch at a time, each job's hash and logs are deleted in one script only while its
 * digest is still the one v2 holds (the journal's expectation). A job edited since the pass (data,
 * progress, logs) is copied again from the source as read before the tombstone, then retired; one
 * that keeps changing, or that this run cannot copy again, is refused with its hash kept.
 *
 * <p>The rest: every other key of the queue (subkeys, completed jobs, dedup keys, scheduler records)
 * is deleted in batches, {@code meta} kept as the tombstone and the add counter left holding it. The
 * v2 queue is resumed unless either side was paused before, and the v2 fence is released.
 */
final class RetireSource implements Step {
    static final int PASSES = 5;
    static final int BATCH = 500;
    static final List<String> QUEUE_LEVEL = List.of("pc", "marker", "events", "stalled", "stalled-check", "limiter",
            "repeat", "metrics:completed", "metrics:failed", "metrics:completed:data", "metrics:failed:data",
            "priority", "delay", "waiting");

    @Override
    public List<String> checkpoints() {
        return Stream.of(Resync.CHECKPOINTS, List.of("verified, not yet recorded", "before retire", "source moved at retire",
                "structures deleted", "job keys deleted", "source deleted")).flatMap(List::stream).toList();
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        Optional<byte[]> version = Optional.ofNullable(m.sourceWire.hmget(m.source.key(QueueStructure.META).raw(),
                List.of(Utf8.bytes("version"))).get(0));
        boolean stamped = version.map(v -> SourceFence.TOMBSTONE.equals(Replies.asText(v))).orElse(false);
        Stamped stamp = stamped ? new Stamped(Optional.empty(), 0) : retireStructures(m);
        m.checkpoints.hit("structures deleted");
        m.watch.ifPresent(SourceFeed.Watch::end);
        long jobs = retireJobs(m, stamp.before());
        long keys = deleteRemainingKeys(m);
        m.checkpoints.hit("source deleted");
        if (!m.journal.header().get(JournalHeader.V1_WAS_PAUSED).orElse(false) && !m.journal.header().get(JournalHeader.V2_WAS_PAUSED).orElse(false)) {
            TargetFence.resume(m.targetWire, m.keys, m.journal);
        }
        TargetFence.release(m.targetWire, m.keys, m.journal);
        m.journal.record(JournalHeader.STATE, MigrationState.RETIRED);
        return Map.of("structures", stamp.structures(), "jobs", jobs, "keys", keys);
    }

    /** What stamping the tombstone deleted, and the source as read for the fingerprint it checked (empty when an earlier run stamped it). */
    private record Stamped(Optional<QueueSnapshot> before, long structures) {
    }

    /**
     * Deletes the structures and stamps the tombstone once the fingerprint is the proven one, keeping
     * the source as read for that fingerprint (what a job edited later is copied again from).
     */
    private static Stamped retireStructures(QueueMigration m) {
        String first = m.journal.header().get(JournalHeader.FINGERPRINT).orElse("");
        for (int pass = 0; pass < PASSES; pass++) {
            JournalHeader header = m.journal.header();
            String fingerprint = header.get(JournalHeader.FINGERPRINT).orElse("");
            if (pass > 0 || fingerprint.isEmpty() || !fingerprint.equals(header.get(JournalHeader.PROVEN).orElse(""))) {
                fingerprint = Resync.run(m).fingerprint();
                Verification.prove(m);
            }
            QueueSnapshot snapshot = m.snapshot();
            m.checkpoints.hit("before retire");
            if (flowsMoved(m, snapshot)) {
                m.checkpoints.hit("source moved at retire");
                continue;
            }
            try {
                return new Stamped(Optional.of(snapshot), SourceFence.retire(m.sourceWire, m.source, fingerprint, queueLevelKeys(m)));
            } catch (EmqWireException.State changed) {
                m.checkpoints.hit("source moved at retire");
            }
        }
        throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "the v1 queue " + m.source.display() + " kept changing at"
                + " retirement over " + PASSES + " passes (" + SourceFence.describe(first,
                SourceFence.fingerprint(m.sourceWire, m.source)) + "): v1 producers or workers are still running;"
                + " stop them (point producers at v2), then re-run; nothing was deleted");
    }

    /**
     * Whether a flow job (a parent waiting for children, or a child) holds other than v2 holds: a flow
     * cannot be copied again piecemeal, so it is looked at before the tombstone, where the re-sync
     * pass that follows can still refuse the queue with v1 intact.
     */
    private static boolean flowsMoved(QueueMigration m, QueueSnapshot snapshot) {
        boolean[] moved = {false};
        Iterable<JobFacts> flows = Migratable.select(List.of(snapshot.jobsInRankOrder()),
                j -> Migratable.getsRow(j, m.options) && (j.state() == V1State.WAITING_CHILDREN || j.parentKey() != null));
        Migratable.inBatches(flows, BATCH, batch -> {
            List<Bytes> v1Ids = batch.stream().map(JobFacts::id).toList();
            Journal.Known known = m.journal.known(v1Ids.stream().map(Bytes::raw).toList());
            List<String> digests = SourceFence.digests(m.sourceWire, m.source, v1Ids);
            for (int i = 0; i < batch.size(); i++) {
                Expectation e = known.expectation(i).orElse(null);
                moved[0] |= e == null || !e.source().equals(digests.get(i));
            }
        });
        return moved[0];
    }

    /**
     * Retires every job that has a row, a batch at a time; returns the keys deleted. The jobs are those
     * of the source as read before the tombstone (the pass brought the journal in line with them), or,
     * when an earlier run stamped it, the journal's.
     */
    private static long retireJobs(QueueMigration m, Optional<QueueSnapshot> before) {
        long[] deleted = {0};
        if (before.isPresent()) {
            Migratable.inBatches(Migratable.rows(before.get(), m.options), BATCH, batch -> {
                List<Bytes> v1Ids = batch.stream().map(JobFacts::id).toList();
                List<Optional<BrandedId>> ids = m.journal.ids().lookupV1(v1Ids.stream().map(Bytes::raw).toList());
                List<BrandedId> mapped = new ArrayList<>(batch.size());
                List<Bytes> mappedV1 = new ArrayList<>(batch.size());
                for (int i = 0; i < batch.size(); i++) {
                    if (ids.get(i).isPresent()) {
                        mapped.add(ids.get(i).get());
                        mappedV1.add(v1Ids.get(i));
                    }
                }
                deleted[0] += retireBatch(m, before, mapped, mappedV1);
            });
            return deleted[0];
        }
        List<BrandedId> ids = new ArrayList<>(BATCH);
        List<Bytes> v1Ids = new ArrayList<>(BATCH);
        m.journal.ids().forEach((id, v1) -> {
            ids.add(id);
            v1Ids.add(Bytes.of(v1));
            if (ids.size() == BATCH) {
                deleted[0] += retireBatch(m, before, ids, v1Ids);
                ids.clear();
                v1Ids.clear();
            }
        });
        deleted[0] += retireBatch(m, before, ids, v1Ids);
        return deleted[0];
    }

    private static long retireBatch(QueueMigration m, Optional<QueueSnapshot> before, List<BrandedId> ids, List<Bytes> v1Ids) {
        long deleted = 0;
        List<BrandedId> left = new ArrayList<>(ids);
        List<Bytes> leftV1 = new ArrayList<>(v1Ids);
        for (int attempt = 1; ; attempt++) {
            Map<BrandedId, Expectation> want = m.journal.expectations().of(left);
            List<Bytes> rows = new ArrayList<>(want.size());
            List<String> digests = new ArrayList<>(want.size());
            for (int i = 0; i < left.size(); i++) {
                Expectation e = want.get(left.get(i));
                if (e != null) {
                    rows.add(leftV1.get(i));
                    digests.add(e.source());
                }
            }
            if (rows.isEmpty()) {
                return deleted;
            }
            SourceFence.RetiredJobs retired = SourceFence.retireJobs(m.sourceWire, m.source, rows, digests);
            deleted += retired.deleted();
            m.checkpoints.hit("job keys deleted");
            if (retired.moved().isEmpty()) {
                return deleted;
            }
            m.checkpoints.hit("source moved at retire");
            List<Bytes> moved = retired.moved().stream().map(rows::get).toList();
            copyAgain(m, before, moved, attempt);
            leftV1 = moved;
            left = m.journal.ids().lookupV1(moved.stream().map(Bytes::raw).toList()).stream().map(Optional::orElseThrow).toList();
        }
    }

    /** Copies again jobs edited since the pass v2 was brought in line with, from the source as read before the tombstone. */
    private static void copyAgain(QueueMigration m, Optional<QueueSnapshot> before, List<Bytes> moved, int attempt) {
        List<JobFacts> jobs = new ArrayList<>(moved.size());
        for (Bytes id : moved) {
            Optional<JobFacts> facts = before.flatMap(s -> s.job(id)).filter(j -> Migratable.getsRow(j, m.options)
                    && j.state() != V1State.WAITING_CHILDREN);
            if (facts.isEmpty() || attempt == PASSES) {
                throw new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED, "v1 job " + m.source.jobKey(id).display() + " changed after"
                        + " retirement stamped the tombstone on " + m.source.display() + (facts.isEmpty()
                        ? " and this run cannot copy it again (" + (before.isEmpty() ? "an earlier run stamped it" : "a flow parent") + ")"
                        : " and kept changing over " + PASSES + " attempts") + ": its v1 hash is kept, its v2 row holds"
                        + " what was copied before; stop whatever edits it, then `emq-migrate abandon` or copy the edit by hand");
            }
            jobs.add(facts.get());
        }
        JobWriter.write(m, jobs);
        LogCopier.copy(m, jobs);
    }

    private static List<byte[]> queueLevelKeys(QueueMigration m) {
        return QUEUE_LEVEL.stream().map(s -> m.source.key(s).raw()).toList();
    }

    /** Deletes every key this queue owns (its share of a key scan, see {@link QueueMigration#sourceKeys}) except meta and the add counter; and the stray bare hash. */
    private static long deleteRemainingKeys(QueueMigration m) {
        Bytes meta = m.source.key(QueueStructure.META);
        Bytes counter = m.source.key("id");
        long[] deleted = {0};
        m.sourceKeys.keysOf(m.source, batch -> {
            List<byte[]> mine = new ArrayList<>();
            for (Bytes k : batch) {
                if (!k.equals(meta) && !k.equals(counter)) {
                    mine.add(k.raw());
                }
            }
            if (!mine.isEmpty()) {
                deleted[0] += m.sourceWire.unlink(mine);
                m.checkpoints.hit("job keys deleted");
            }
        });
        byte[] bare = m.source.bareKey().raw();
        if ("hash".equals(m.sourceWire.type(bare))) {
            deleted[0] += m.sourceWire.unlink(List.of(bare));
        }
        return deleted[0];
    }
}
