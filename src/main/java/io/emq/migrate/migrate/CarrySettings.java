package io.emq.migrate.migrate;

import io.emq.migrate.v1.plan.QueueSetting;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Writes the v1 queue settings the v2 gates read ({@link QueueSetting}: concurrency, max, duration)
 * into the v2 {@code meta}. A field the v2 queue already sets itself is kept. Each field written is
 * recorded in the journal ({@code setting:<field>}) before it is written, so a re-run finishes the
 * write and {@code abandon} removes exactly what the migration added. The writes are fenced by the
 * lease token ({@code migrate_write} on the meta key, never its {@code migration} field).
 */
final class CarrySettings {
    static final String JOURNAL_PREFIX = "setting:";

    private CarrySettings() {
    }

    /** The number of settings the v2 meta holds from v1 after this call. */
    static long write(QueueMigration m) {
        TargetWrites writes = new TargetWrites(m);
        long carried = 0;
        for (QueueSetting setting : QueueSetting.of(m.snapshot().meta())) {
            if (!setting.carried()) {
                continue;
            }
            String journalField = JOURNAL_PREFIX + setting.field();
            Optional<String> recorded = m.journal.text(journalField);
            byte[] present = m.targetWire.hmget(Utf8.bytes(m.keys.meta()), List.of(Utf8.bytes(setting.field()))).get(0);
            if (present != null && recorded.isEmpty()) {
                continue; // the v2 queue's own value
            }
            if (recorded.isEmpty()) {
                m.journal.set(Map.of(journalField, setting.v1Value()));
            }
            writes.hset(m.keys.meta(), Map.of(Utf8.bytes(setting.field()), Utf8.bytes(m.journal.text(journalField).orElseThrow())));
            carried++;
        }
        writes.flush();
        return carried;
    }
}
