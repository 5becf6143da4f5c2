package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.KeyType;
import io.emq.migrate.v1.V1State;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * V60: flow parents waiting for children become rows in state {@code awaiting_children} (in no set)
 * with {@code job:<id>:dependencies} = the number of children still unfinished, and their finished
 * children's records keyed by branded child ids: v1 {@code :processed} to v2 {@code :processed};
 * v1 {@code :failed} (children that failed with ignore/continue) to v2 {@code :unsuccessful} (the
 * v2 ignore-dependency meaning); v1 {@code :unsuccessful} (fail-parent children) to v2 {@code :failed}.
 * Children in other queues are branded through their queue's journal. A parent v1 released already (its
 * last child finished: in {@code wait}, or anywhere else a row comes from), whose row an earlier step wrote, gets
 * its records here too: its children's results are what it reads when it runs ({@link #records}).
 * A try after a lost connection ({@link Migrator}) goes on where the tries before it stopped: the parents' rows as the
 * copy steps do ({@link Absorb#write}), and the parents whose records this run wrote ({@link QueueMigration#flowRecords})
 * are counted, neither read nor written again (a try that wrote them once left what a try that did not stop leaves).
 */
final class AbsorbFlows implements Step {
    /** Children whose ids are minted or looked up at once. */
    static final int LOOKUP = 1000;
    private final List<V1State> parentStates;

    AbsorbFlows(StepDefinition definition) {
        if (!definition.takes().equals(List.of(V1State.WAITING_CHILDREN))) {
            throw new IllegalStateException("the flows step takes the parents that wait for children (waiting-children),"
                    + " not " + definition.takes());
        }
        this.parentStates = definition.takes();
    }

    @Override
    public List<String> checkpoints() {
        return Stream.concat(JobWriter.CHECKPOINTS.stream(), Stream.of("flow parent written")).toList();
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        Map<String, Long> counts = new LinkedHashMap<>(Absorb.write(m, parentStates, SourceFence::read, Optional.empty()));
        long[] links = {0};
        Migratable.inBatches(unwritten(m, Migratable.rows(m.snapshot(), parentStates, m.rule()), links), LOOKUP, batch -> {
            List<Optional<BrandedId>> minted = idsOf(m, batch);
            for (int i = 0; i < batch.size(); i++) {
                Bytes parent = batch.get(i).id();
                if (minted.get(i).isEmpty() && m.v1Live()) {
                    continue; // added after the ids were minted: the re-sync refuses a flow added during the migration
                }
                ParentRecord job = ParentRecord.read(m, parent).orElseThrow(() -> new MigrationRefused(MigrationRefused.Kind.SOURCE_CHANGED,
                        "flow parent " + m.source.jobKey(parent).display() + " disappeared during the migration"));
                links[0] += write(m, parent, job, minted.get(i).orElseThrow(), true);
            }
        });
        counts.put("child-links", links[0]);
        long released = records(m, Migratable.rows(m.snapshot(), m.rule()), true);
        if (released > 0) {
            counts.put("released-parent-links", released);
        }
        return counts;
    }

    /**
     * Writes the records of those of these jobs (rows written, read as they are) that are flow parents v1 released
     * already (not waiting for children): their children's records keyed by branded ids, and {@code :dependencies} when
     * v1 still holds one; returns how many links they hold. The re-sync calls it for the rows it writes again.
     */
    static long records(QueueMigration m, Iterable<JobFacts> rows) {
        return records(m, rows, false);
    }

    /** As {@link #records(QueueMigration, Iterable)}; {@code goOn}: but the parents whose records this run wrote ({@link #unwritten}). */
    private static long records(QueueMigration m, Iterable<JobFacts> rows, boolean goOn) {
        Set<Bytes> released = new HashSet<>();
        m.snapshot().flowParents().forEach(p -> released.add(p.id()));
        m.snapshot().jobs(V1State.WAITING_CHILDREN).forEach(j -> released.remove(j.id()));
        if (released.isEmpty()) {
            return 0; // no walk of the rows when every parent waits
        }
        List<JobFacts> parents = new ArrayList<>();
        rows.forEach(j -> {
            if (released.contains(j.id())) {
                parents.add(j);
            }
        });
        long[] links = {0};
        Migratable.inBatches(goOn ? unwritten(m, parents, links) : parents, LOOKUP, batch -> {
            List<Optional<BrandedId>> ids = idsOf(m, batch);
            for (int i = 0; i < batch.size(); i++) {
                Bytes parent = batch.get(i).id();
                Optional<ParentRecord> job = ids.get(i).isPresent() ? ParentRecord.read(m, parent) : Optional.empty();
                // a job given no id yet gets its row, and these records, from the re-sync; one v1 finished and removed
                // since it was read loses its row there too
                if (job.isPresent()) {
                    links[0] += write(m, parent, job.get(), ids.get(i).get(), false);
                }
            }
        });
        return links[0];
    }

    /**
     * Those of these parents whose records this run has not written ({@link QueueMigration#flowRecords}); the links of
     * the others, written by a try before this one, are added to {@code links}.
     */
    private static List<JobFacts> unwritten(QueueMigration m, Iterable<JobFacts> parents, long[] links) {
        List<JobFacts> unwritten = new ArrayList<>();
        for (JobFacts parent : parents) {
            Long written = m.flowRecords.get(parent.id());
            if (written == null) {
                unwritten.add(parent);
            } else {
                links[0] += written;
            }
        }
        return unwritten;
    }

    /** The branded ids the journal gives these jobs, in order, looked up at once. */
    private static List<Optional<BrandedId>> idsOf(QueueMigration m, List<JobFacts> jobs) {
        return m.journal.ids().lookupV1(jobs.stream().map(j -> j.id().raw()).toList());
    }

    /**
     * Writes a flow parent's records under its branded id, {@code :dependencies} when it waits for children or v1 holds
     * some still; returns how many child links they hold. Kept in {@link QueueMigration#flowRecords}, progress the first
     * time in this run ({@link QueueMigration#progressed}).
     */
    private static long write(QueueMigration m, Bytes parent, ParentRecord job, BrandedId id, boolean waiting) {
        Map<byte[], byte[]> processed = branded(m, job.processed(), parent);
        Map<byte[], byte[]> ignored = branded(m, job.failed(), parent);
        Map<byte[], byte[]> failed = branded(m, job.unsuccessful(), parent);
        TargetWrites w = new TargetWrites(m);
        if (waiting || job.dependencies() > 0) {
            w.set(m.keys.job(id, JobSub.DEPENDENCIES), Utf8.bytes(Long.toString(job.dependencies())), 0, false);
        }
        replaceHash(w, m.keys.job(id, JobSub.PROCESSED), processed);
        replaceHash(w, m.keys.job(id, JobSub.UNSUCCESSFUL), ignored);
        replaceHash(w, m.keys.job(id, JobSub.FAILED), failed);
        w.flush();
        long links = job.dependencies() + processed.size() + ignored.size() + failed.size();
        if (m.flowRecords.put(parent, links) == null) {
            m.progressed(1);
        }
        m.checkpoints.hit("flow parent written");
        return links;
    }

    /**
     * What a v1 flow parent holds about its children, read through the source wire: the number of
     * children still unfinished ({@code :dependencies}), the finished ones' records ({@code :processed},
     * {@code :failed}), and the fail-parent children as "failed at <ms>" ({@code :unsuccessful}); a
     * subkey of another type than v1 writes reads as empty.
     */
    private record ParentRecord(long dependencies, Map<Bytes, Bytes> processed, Map<Bytes, Bytes> failed,
                                Map<Bytes, Bytes> unsuccessful) {
        static final List<JobSubKind> SUBKEYS = List.of(JobSubKind.DEPENDENCIES, JobSubKind.PROCESSED,
                JobSubKind.FAILED, JobSubKind.UNSUCCESSFUL);

        /** The records of the parent as they are now; empty when v1 holds its hash no more. */
        static Optional<ParentRecord> read(QueueMigration m, Bytes parent) {
            byte[] hashKey = m.source.jobKey(parent).raw();
            List<byte[]> keys = new ArrayList<>(List.of(hashKey));
            SUBKEYS.forEach(sub -> keys.add(m.source.jobSubKey(parent, sub).raw()));
            List<String> types = m.sourceWire.types(keys);
            if (KeyType.parse(types.get(0)) != KeyType.HASH) {
                return Optional.empty();
            }
            Map<JobSubKind, byte[]> present = new EnumMap<>(JobSubKind.class);
            for (int i = 0; i < SUBKEYS.size(); i++) {
                if (KeyType.parse(types.get(i + 1)) == SUBKEYS.get(i).type()) {
                    present.put(SUBKEYS.get(i), keys.get(i + 1));
                }
            }
            Map<Bytes, Bytes> unsuccessful = new TreeMap<>();
            if (present.containsKey(JobSubKind.UNSUCCESSFUL)) {
                m.sourceWire.zrangeWithScores(present.get(JobSubKind.UNSUCCESSFUL), 0, -1).forEach(e ->
                        unsuccessful.put(Bytes.of(e.getKey()), Bytes.utf8("failed at " + e.getValue().longValue())));
            }
            byte[] dependencies = present.get(JobSubKind.DEPENDENCIES);
            return Optional.of(new ParentRecord(dependencies == null ? 0 : m.sourceWire.scard(dependencies),
                    hash(m, present.get(JobSubKind.PROCESSED)), hash(m, present.get(JobSubKind.FAILED)), unsuccessful));
        }

        /** The hash at {@code key} (none: empty). */
        private static Map<Bytes, Bytes> hash(QueueMigration m, byte[] key) {
            Map<Bytes, Bytes> out = new TreeMap<>();
            if (key == null) {
                return out;
            }
            m.sourceWire.hgetAll(key).forEach((k, v) -> out.put(Bytes.of(k), Bytes.of(v)));
            return out;
        }
    }

    /**
     * The branded ids of these children: a child of this queue always gets one (the journal's, or one minted now: its hash
     * may be gone); a child of another queue has its queue's journal's, if any. {@link #LOOKUP} children at a time.
     */
    private static Map<Bytes, BrandedId> childIds(QueueMigration m, Set<Bytes> childKeys) {
        List<Bytes> ours = new ArrayList<>();
        List<Bytes> others = new ArrayList<>();
        childKeys.forEach(k -> (m.bases.owner(k).map(m.source::equals).orElse(false) ? ours : others).add(k));
        Map<Bytes, BrandedId> out = new HashMap<>();
        Migratable.inBatches(ours, LOOKUP, batch -> {
            List<BrandedId> ids = m.journal.ids().assign(batch.stream().map(k -> k.dropPrefix(m.source.base()).raw()).toList());
            for (int i = 0; i < batch.size(); i++) {
                out.put(batch.get(i), ids.get(i));
            }
        });
        Migratable.inBatches(others, LOOKUP, batch -> out.putAll(m.brandedIdsOf(batch)));
        return out;
    }

    private static void replaceHash(TargetWrites w, String key, Map<byte[], byte[]> entries) {
        w.del(key);
        if (!entries.isEmpty()) {
            w.hset(key, entries);
        }
    }

    private static Map<byte[], byte[]> branded(QueueMigration m, Map<Bytes, Bytes> byChildKey, Bytes parent) {
        Map<Bytes, BrandedId> ids = childIds(m, byChildKey.keySet());
        Map<byte[], byte[]> out = new LinkedHashMap<>();
        byChildKey.forEach((childKey, value) -> {
            BrandedId child = Optional.ofNullable(ids.get(childKey)).orElseThrow(() -> new MigrationRefused(MigrationRefused.Kind.FLOW_CHILD,
                    "child " + childKey.display() + " of flow parent " + parent.display() + " has no branded id: "
                            + m.whyNoBrandedId(childKey)));
            out.put(Utf8.bytes(child.toString()), value.raw());
        });
        return out;
    }
}
