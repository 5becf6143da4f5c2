package io.emq.migrate.keyspace;

import io.emq.migrate.keyspace.ParsedKey.QueueKey;
import io.emq.migrate.keyspace.ParsedKey.Reserve;
import io.emq.migrate.keyspace.ParsedKey.ReserveKey;
import java.util.Optional;

/**
 * The key builder: builds only keys that parse. {@code Keys.queue("orders").pending()} is
 * {@code emq:{orders}:pending}; an invalid queue name or part is refused before any wire.
 */
public final class Keys {
    public static final String VERSION = new ReserveKey(Reserve.VERSION, Optional.empty()).render();

    private final String queue;

    private Keys(String queue) {
        Names.queueNameProblem(queue).ifPresent(p -> {
            throw new IllegalArgumentException(p);
        });
        this.queue = queue;
    }

    public static Keys queue(String queue) {
        return new Keys(queue);
    }

    public static String migrationJournal(String queue) {
        return new ReserveKey(Reserve.MIGRATION, Optional.of(queue)).render();
    }

    public String name() {
        return queue;
    }

    /** {@code emq:{q}:}, the declared base scripts derive keys from. */
    public String base() {
        return "emq:{" + queue + "}:";
    }

    public String key(Part part) {
        return new QueueKey(queue, part).render();
    }

    public String structure(StructureType type) {
        return key(new Part.Structure(type));
    }

    public String pending() {
        return structure(StructureType.PENDING);
    }

    public String active() {
        return structure(StructureType.ACTIVE);
    }

    public String schedule() {
        return structure(StructureType.SCHEDULE);
    }

    public String dead() {
        return structure(StructureType.DEAD);
    }

    /** {@code emq:{q}:g:<group>:pending}: the pending set of one lane. */
    public String lanePending(BrandedId group) {
        return key(new Part.GroupPending(group));
    }

    public String meta() {
        return structure(StructureType.META);
    }

    /** {@code emq:{q}:flow:outbox}: this queue's cross-queue flow entries awaiting delivery. */
    public String flowOutbox() {
        return structure(StructureType.FLOW_OUTBOX);
    }

    public String job(BrandedId id) {
        return key(new Part.Job(id));
    }

    public String job(BrandedId id, JobSub sub) {
        return key(new Part.Job(id, Optional.of(sub)));
    }

    public String dedup(String dedupId) {
        return key(new Part.Dedup(dedupId));
    }

    public String metricsCompleted() {
        return key(new Part.Metrics(false, false));
    }

    public String metricsFailed() {
        return key(new Part.Metrics(true, false));
    }

    public String repeat(String name) {
        return key(new Part.Repeat(name));
    }
}
