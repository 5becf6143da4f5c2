package io.emq.migrate.drain;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.keyspace.Keys;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Jobs per v2 state of one queue, as the reports chart them before and after; plain reads only. */
final class QueueCounts {
    /** The v2 states in the protocol's order, then the completed metric. */
    static final List<String> STATES = Stream.concat(Arrays.stream(V2State.values()).map(V2State::wireName),
            Stream.of("completed")).toList();

    private QueueCounts() {
    }

    /** Set sizes, the completed metric, and the journaled flow parents still awaiting their children. */
    static Map<String, Long> read(MigratedJobs migrated, Rows rows) {
        Keys keys = rows.keys();
        List<String> parents = migrated.all().entrySet().stream()
                .filter(e -> e.getValue().is(V2State.AWAITING_CHILDREN)).map(Map.Entry::getKey).toList();
        long awaiting = rows.fields(parents, "state").values().stream()
                .filter(f -> V2State.AWAITING_CHILDREN.wireName().equals(Rows.text(f.get(0)))).count();
        Map<String, Long> out = new LinkedHashMap<>();
        out.put(V2State.PENDING.wireName(), rows.pending().stream().mapToLong(rows::size).sum());
        out.put(V2State.ACTIVE.wireName(), rows.size(keys.active()));
        out.put(V2State.SCHEDULED.wireName(), rows.size(keys.schedule()));
        out.put(V2State.DEAD.wireName(), rows.size(keys.dead()));
        out.put(V2State.AWAITING_CHILDREN.wireName(), awaiting);
        out.put("completed", rows.completed());
        return out;
    }
}
