package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.V1Job;
import io.emq.migrate.v1.V1JobReader;
import io.emq.migrate.v1.V1State;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * V60: flow parents waiting for children become rows in state {@code awaiting_children} (in no set)
 * with {@code job:<id>:dependencies} = the number of children still unfinished, and their finished
 * children's records keyed by branded child ids: v1 {@code :processed} to v2 {@code :processed};
 * v1 {@code :failed} (children that failed with ignore/continue) to v2 {@code :unsuccessful} (the
 * v2 ignore-dependency meaning); v1 {@code :unsuccessful} (fail-parent children) to v2 {@code :failed}.
 * Children in other queues are branded through their queue's journal.
 */
final class AbsorbFlows implements Step {
    private final List<V1State> parentStates;

    AbsorbFlows(StepDefinition definition) {
        if (!definition.takes().equals(List.of(V1State.WAITING_CHILDREN))) {
            throw new IllegalStateException("the flows step takes the parents that wait for children (waiting-children),"
                    + " not " + definition.takes());
        }
        this.parentStates = definition.takes();
    }

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        Iterable<JobFacts> parents = Migratable.rows(m.snapshot(), parentStates, m.options);
        Map<String, Long> counts = new LinkedHashMap<>(JobWriter.write(m, parents));
        V1JobReader reader = new V1JobReader(m.sourceClient());
        long links = 0;
        for (JobFacts facts : parents) {
            V1Job job = reader.read(m.source, facts.id()).orElseThrow(() -> new MigrationRefused("source-changed",
                    "flow parent " + m.source.jobKey(facts.id()).display() + " disappeared during the migration"));
            BrandedId id = m.journal.ids().lookupV1(List.of(facts.id().raw())).get(0).orElseThrow();
            Map<byte[], byte[]> processed = branded(m, job.processed(), facts);
            Map<byte[], byte[]> ignored = branded(m, job.failed(), facts);
            Map<Bytes, Bytes> failedReasons = new LinkedHashMap<>();
            job.unsuccessful().forEach((child, ms) -> failedReasons.put(child, Bytes.utf8("failed at " + ms.longValue())));
            Map<byte[], byte[]> failed = branded(m, failedReasons, facts);
            TargetWrites w = new TargetWrites(m)
                    .set(m.keys.job(id, JobSub.DEPENDENCIES), Utf8.bytes(Integer.toString(job.dependencies().size())), 0, false);
            replaceHash(w, m.keys.job(id, JobSub.PROCESSED), processed);
            replaceHash(w, m.keys.job(id, JobSub.UNSUCCESSFUL), ignored);
            replaceHash(w, m.keys.job(id, JobSub.FAILED), failed);
            w.flush();
            links += job.dependencies().size() + processed.size() + ignored.size() + failed.size();
            m.checkpoints.hit("flow parent written");
        }
        counts.put("child-links", links);
        return counts;
    }

    /** A child of this queue always gets an id: one the journal has, or one minted now (its hash may be gone). */
    private static java.util.Optional<BrandedId> sameQueueChild(QueueMigration m, Bytes childKey) {
        if (!m.bases.owner(childKey).map(m.source::equals).orElse(false)) {
            return java.util.Optional.empty();
        }
        byte[] id = childKey.dropPrefix(m.source.base()).raw();
        return java.util.Optional.of(m.journal.ids().assign(List.of(id)).get(0));
    }

    private static void replaceHash(TargetWrites w, String key, Map<byte[], byte[]> entries) {
        w.del(key);
        if (!entries.isEmpty()) {
            w.hset(key, entries);
        }
    }

    private static Map<byte[], byte[]> branded(QueueMigration m, Map<Bytes, Bytes> byChildKey, JobFacts parent) {
        Map<byte[], byte[]> out = new LinkedHashMap<>();
        byChildKey.forEach((childKey, value) -> {
            BrandedId child = sameQueueChild(m, childKey).or(() -> m.brandedIdOf(childKey)).orElseThrow(() -> new MigrationRefused("flow-child",
                    "child " + childKey.display() + " of flow parent " + parent.id().display() + " has no branded id:"
                            + " migrate its queue in the same run (add --queue for it, or use --all)"));
            out.put(Utf8.bytes(child.toString()), value.raw());
        });
        return out;
    }
}
