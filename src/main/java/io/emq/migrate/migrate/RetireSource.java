package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.EmqWireException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import redis.clients.jedis.AbstractPipeline;

/**
 * V120, only after proof: a re-sync pass ({@link Resync}) and the proof ({@link Verification}), then
 * one script that deletes the v1 structures and stamps the tombstone only if the source's fingerprint
 * (every member of every structure, in order, and the add counter) and the digests of its jobs
 * (fields, data, logs) are still the ones the pass brought v2 in line with. If it moved, nothing is deleted and another pass runs, up to {@link #PASSES}; then
 * the queue is refused, naming what kept moving. After the atomic step every other key of the queue
 * (job hashes and their subkeys, dedup keys, scheduler records) is deleted in batches, {@code meta}
 * kept as the tombstone and the add counter left holding it, so a v1 producer still pointed at the
 * queue fails loudly instead of adding a job no migration will see. The v2 queue is resumed unless
 * either side was paused before, and the v2 fence is released.
 */
final class RetireSource implements Step {
    static final int PASSES = 5;
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
        boolean stamped = SourceFence.TOMBSTONE.equals(Replies.asText(
                m.sourceClient().hget(m.source.key(QueueStructure.META).raw(), Utf8.bytes("version"))));
        long structures = stamped ? 0 : -1;
        String first = m.journal.header().get(JournalHeader.FINGERPRINT).orElse("");
        for (int pass = 0; pass < PASSES && structures < 0; pass++) {
            Resync.Pass synced = Resync.run(m);
            Verification.prove(m);
            m.checkpoints.hit("before retire");
            try {
                structures = SourceFence.retire(m.sourceWire, m.source, synced.fingerprint(), synced.content(), queueLevelKeys(m));
            } catch (EmqWireException.State changed) {
                m.checkpoints.hit("source moved at retire");
            }
        }
        if (structures < 0) {
            throw new MigrationRefused("source-changed", "the v1 queue " + m.source.display() + " kept changing at"
                    + " retirement over " + PASSES + " passes (" + SourceFence.describe(first,
                    SourceFence.fingerprint(m.sourceWire, m.source)) + "): v1 producers or workers are still running;"
                    + " stop them (point producers at v2), then re-run; nothing was deleted");
        }
        m.checkpoints.hit("structures deleted");
        long jobKeys = deleteRemainingKeys(m);
        m.checkpoints.hit("source deleted");
        if (!m.journal.header().get(JournalHeader.V1_WAS_PAUSED).orElse(false) && !m.journal.header().get(JournalHeader.V2_WAS_PAUSED).orElse(false)) {
            TargetFence.resume(m.targetWire, m.keys, m.journal);
        }
        TargetFence.release(m.targetWire, m.keys, m.journal);
        m.journal.record(JournalHeader.STATE, MigrationState.RETIRED);
        return Map.of("structures", structures, "keys", jobKeys);
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
                try (AbstractPipeline p = m.sourceClient().pipelined()) {
                    mine.forEach(p::unlink);
                    p.sync();
                }
                deleted[0] += mine.size();
                m.checkpoints.hit("job keys deleted");
            }
        });
        byte[] bare = m.source.bareKey().raw();
        if ("hash".equals(m.sourceClient().type(bare))) {
            deleted[0] += m.sourceClient().del(bare);
        }
        return deleted[0];
    }
}
