package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Script;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * V120, only after proof: a last catch-up (and verify, when it absorbed anything), then one script
 * that deletes the v1 structures and stamps {@code meta.version = echomq:2.0.0-migrated} only if the
 * source's fingerprint still holds; then every other key of the queue (job hashes and their
 * subkeys, dedup keys, scheduler records) is deleted in batches, {@code meta} kept as the tombstone.
 * The v2 queue is resumed unless v1 was paused.
 */
final class RetireSource implements Step {
    static final List<String> QUEUE_LEVEL = List.of("pc", "marker", "events", "stalled", "stalled-check", "limiter",
            "repeat", "metrics:completed", "metrics:failed", "metrics:completed:data", "metrics:failed:data",
            "priority", "delay", "waiting");

    @Override
    public Map<String, Long> apply(QueueMigration m) {
        boolean stamped = SourceFence.TOMBSTONE.equals(Replies.asText(
                m.sourceClient().hget(m.source.key(QueueStructure.META).raw(), Utf8.bytes("version"))));
        long structures = stamped ? 0 : -1;
        for (int attempt = 0; attempt < CatchUp.MAX_PASSES && structures < 0; attempt++) {
            long caught = new CatchUp().apply(m).get("caught-up");
            if (caught > 0) {
                new VerifyStep().apply(m);
            }
            try {
                structures = SourceFence.retire(m.sourceWire, m.source, m.journal.get("fingerprint").orElse(""), queueLevelKeys(m));
            } catch (EmqWireException.State changed) {
                m.checkpoints.hit("source moved at retire");
            }
        }
        if (structures < 0) {
            throw new MigrationRefused("source-changed", "the v1 queue " + m.source.display()
                    + " kept changing at retirement: stop its producers, then re-run (nothing was deleted)");
        }
        m.checkpoints.hit("structures deleted");
        long jobKeys = deleteRemainingKeys(m);
        m.checkpoints.hit("source deleted");
        if (m.journal.get("v1_was_paused").orElse("0").equals("0") && m.journal.get("v2_was_paused").orElse("0").equals("0")) {
            m.targetWire.eval(Script.QUEUE_RESUME, List.of(Utf8.bytes(m.keys.meta())), List.of());
        }
        m.journal.set(Journal.STATE, Journal.State.RETIRED.wireName());
        return Map.of("structures", structures, "keys", jobKeys);
    }

    private static List<byte[]> queueLevelKeys(QueueMigration m) {
        return QUEUE_LEVEL.stream().map(s -> m.source.key(s).raw()).toList();
    }

    /** Deletes, by SCAN over the queue's base, every key this queue owns except meta; and the stray bare hash. */
    private static long deleteRemainingKeys(QueueMigration m) {
        Bytes meta = m.source.key(QueueStructure.META);
        ScanParams params = new ScanParams().match(globEscape(m.source.base().raw())).count(1000);
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        long deleted = 0;
        do {
            ScanResult<byte[]> page = m.sourceClient().scan(cursor, params);
            List<byte[]> mine = new ArrayList<>();
            for (byte[] key : page.getResult()) {
                Bytes k = Bytes.of(key);
                if (!k.equals(meta) && m.bases.owner(k).map(m.source::equals).orElse(false)) {
                    mine.add(key);
                }
            }
            if (!mine.isEmpty()) {
                try (AbstractPipeline p = m.sourceClient().pipelined()) {
                    mine.forEach(p::unlink);
                    p.sync();
                }
                deleted += mine.size();
                m.checkpoints.hit("job keys deleted");
            }
            cursor = page.getCursorAsBytes();
        } while (!java.util.Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
        byte[] bare = m.source.bareKey().raw();
        if ("hash".equals(m.sourceClient().type(bare))) {
            deleted += m.sourceClient().del(bare);
        }
        return deleted;
    }

    /** A MATCH pattern for every key starting with these bytes. */
    static byte[] globEscape(byte[] prefix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + 8);
        for (byte b : prefix) {
            if (b == '\\' || b == '*' || b == '?' || b == '[' || b == ']') {
                out.write('\\');
            }
            out.write(b);
        }
        out.write('*');
        return out.toByteArray();
    }
}
