package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Names;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.plan.SchedulerNames;
import io.emq.migrate.wire.Replies;
import java.util.Arrays;

/**
 * The journal's record of a v1 {@code every} scheduler carried as a v2 registration: field {@code scheduler:<v2 name>},
 * value the v1 scheduler id's bytes. Keyed by the v2 name, which is unique within a queue ({@link SchedulerNames}), and
 * not by the id's display, which is not: the bytes {@code 0xFF 'z'} and the text {@code \xffz} display alike, and two
 * schedulers would share one record (the second's drop, template and abandon then acting on the first's registration).
 * A journal of an earlier release holds {@code scheduler:<display>} = v2 name; a field whose suffix is no v2 name is read
 * so (for an id that is a v2 name both forms are the same record).
 */
record SchedulerRecord(String name, Bytes v1Id) {
    static SchedulerRecord of(Bytes v1Id) {
        return new SchedulerRecord(SchedulerNames.v2Name(v1Id), v1Id);
    }

    static SchedulerRecord read(byte[] field, byte[] value) {
        String suffix = Replies.asText(Arrays.copyOfRange(field, Journal.SCHEDULER_PREFIX.length(), field.length));
        return Names.isDedupId(suffix) ? new SchedulerRecord(suffix, Bytes.of(value))
                : new SchedulerRecord(Replies.asText(value), Bytes.utf8(suffix));
    }

    String field() {
        return Journal.SCHEDULER_PREFIX + name;
    }
}
