package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The v2 metrics of a migrated queue that count v1's finished jobs: {@code metrics:completed} the jobs v1 lists
 * completed (they get no row), {@code metrics:failed} those it lists failed (each a dead row, as a v2 death bumps
 * it), each folded in once however often it is called (a fenced {@code migrate_count_completed}, which keeps the
 * number it folded in beside the count). Composed by the count-completed step and by the re-sync, so the counts
 * follow what a live v1 worker finishes until the pause; {@link Abandon} takes them back ({@link #takeBack}).
 */
final class FinishedCounts {
    private FinishedCounts() {
    }

    /** One counted v1 state: its v2 metrics hash, and the field of that hash holding the number folded in. */
    enum Metric {
        COMPLETED(V1State.COMPLETED, Keys::metricsCompleted, "migrated_completed"),
        FAILED(V1State.FAILED, Keys::metricsFailed, "migrated_failed");

        final V1State state;
        private final Function<Keys, String> key;
        final String foldedField;

        Metric(V1State state, Function<Keys, String> key, String foldedField) {
            this.state = state;
            this.key = key;
            this.foldedField = foldedField;
        }

        String key(Keys keys) {
            return key.apply(keys);
        }
    }

    /**
     * Makes each metric hold the v1 jobs {@code snap} lists in its state once, however often it is called; returns
     * those numbers. Counts this run folded last are not sent again: the script would write nothing (only a migrator
     * holding the lease writes what it folded, and abandon must take the lease first), and every pass calls it.
     */
    static Map<Metric, Long> fold(QueueMigration m, QueueSnapshot snap) {
        Map<Metric, Long> listed = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) {
            listed.put(metric, snap.listedCount(metric.state));
        }
        if (listed.equals(m.folded)) {
            return listed;
        }
        List<byte[]> keys = new ArrayList<>(List.of(Utf8.bytes(m.keys.meta())));
        List<byte[]> args = new ArrayList<>(List.of(Utf8.bytes(m.journal.token())));
        listed.forEach((metric, n) -> {
            keys.add(Utf8.bytes(metric.key(m.keys)));
            args.add(Utf8.bytes(metric.foldedField));
            args.add(Utf8.bytes(Long.toString(n)));
        });
        m.targetWire.eval(new ScriptCall<>(Script.MIGRATE_COUNT_COMPLETED, keys, args, Replies::ignored));
        m.folded = listed;
        return listed;
    }

    /**
     * Abandon: takes back from each metric what the migration folded in, keeping what v2 counted since (the hash is
     * deleted when nothing else is left in its count).
     */
    static void takeBack(Wire target, Keys keys, TargetWrites w) {
        for (Metric metric : Metric.values()) {
            String key = metric.key(keys);
            List<byte[]> read = target.hmget(Utf8.bytes(key), List.of(Utf8.bytes(metric.foldedField), Utf8.bytes("count")));
            if (read.get(0) == null) {
                continue;
            }
            long folded = Long.parseLong(Replies.asText(read.get(0)));
            long count = read.get(1) == null ? 0 : Long.parseLong(Replies.asText(read.get(1)));
            if (count <= folded) {
                w.del(key);
            } else {
                w.hincrBy(key, "count", -folded).hdel(key, metric.foldedField);
            }
        }
    }
}
