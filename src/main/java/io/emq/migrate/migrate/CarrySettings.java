package io.emq.migrate.migrate;

import io.emq.migrate.v1.plan.QueueSetting;
import io.emq.migrate.wire.Replies;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the v1 queue settings the v2 gates read ({@link QueueSetting}: concurrency, max, duration)
 * into the v2 {@code meta}, as v1 holds them now: composed by every absorb (V70, each re-sync pass) from the
 * source as last read, and once more after the tombstone from v1's {@code meta} (kept as the tombstone), so v2 starts
 * with v1's settings at the cutover. A field the v2 queue already sets itself is kept. Each field written is
 * recorded in the journal ({@code setting:<field>}, with the value) before it is written, so a re-run finishes the
 * write and {@code abandon} removes exactly what the migration added; one v1 no longer holds (removed, or no
 * longer a valid setting) is taken out of the v2 {@code meta}, then its record forgotten. The writes are fenced by
 * the lease token ({@code migrate_write} on the meta key, never its {@code migration} field).
 */
final class CarrySettings {
    static final String JOURNAL_PREFIX = "setting:";
    /** The settings' {@code meta} fields ({@link QueueSetting#FIELDS}), as v1's and v2's {@code meta} are asked for them. */
    private static final List<byte[]> FIELDS = QueueSetting.FIELDS.stream().map(Utf8::bytes).toList();
    /** Their journal records, in the same order. */
    private static final List<byte[]> RECORDS = QueueSetting.FIELDS.stream().map(f -> Utf8.bytes(JOURNAL_PREFIX + f)).toList();

    private CarrySettings() {
    }

    /** As {@link #write}, from the settings v1's {@code meta} holds now (read again: after the tombstone, which keeps it). */
    static long followV1(QueueMigration m) {
        List<byte[]> values = m.sourceWire.hmget(m.source.key("meta").raw(), FIELDS);
        Map<String, String> v1Meta = new HashMap<>();
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) != null) {
                v1Meta.put(QueueSetting.FIELDS.get(i), Replies.asText(values.get(i)));
            }
        }
        return write(m, v1Meta);
    }

    /** Brings the v2 meta's settings in line with {@code v1Meta}; the number of settings it holds from v1 after the call. */
    static long write(QueueMigration m, Map<String, String> v1Meta) {
        Map<String, String> inV1 = new HashMap<>();
        QueueSetting.of(v1Meta).stream().filter(QueueSetting::carried).forEach(s -> inV1.put(s.field(), s.v1Value()));
        List<byte[]> recorded = m.journal.read(RECORDS);
        if (inV1.isEmpty() && recorded.stream().allMatch(r -> r == null)) {
            return 0; // none in v1, none carried before: the v2 meta is not read
        }
        List<byte[]> present = m.targetWire.hmget(Utf8.bytes(m.keys.meta()), FIELDS);
        TargetWrites writes = new TargetWrites(m);
        List<byte[]> takenBack = new ArrayList<>();
        long carried = 0;
        for (int i = 0; i < QueueSetting.FIELDS.size(); i++) {
            String field = QueueSetting.FIELDS.get(i);
            String value = inV1.get(field);
            String journaled = recorded.get(i) == null ? null : Replies.asText(recorded.get(i));
            if (value == null) {
                if (journaled != null) {
                    writes.hdel(m.keys.meta(), field);
                    takenBack.add(RECORDS.get(i));
                }
                continue;
            }
            if (present.get(i) != null && journaled == null) {
                continue; // the v2 queue's own value
            }
            if (!value.equals(journaled)) {
                m.journal.set(Map.of(JOURNAL_PREFIX + field, value)); // first carried, or changed in v1 since
            }
            if (!Arrays.equals(present.get(i), Utf8.bytes(value))) {
                writes.hset(m.keys.meta(), Map.of(FIELDS.get(i), Utf8.bytes(value)));
            }
            carried++;
        }
        writes.flush();
        if (!takenBack.isEmpty()) {
            m.journal.forget(takenBack);
        }
        return carried;
    }
}
