package io.emq.migrate.drain;

import io.emq.migrate.keyspace.Keys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Jobs per v2 state of one queue, as the reports chart them before and after; plain reads only. */
final class QueueCounts {
    static final List<String> STATES = List.of("pending", "active", "scheduled", "dead", "awaiting_children", "completed");

    private QueueCounts() {
    }

    /** Set sizes, the completed metric, and the journaled flow parents still awaiting their children. */
    static Map<String, Long> read(MigratedJobs migrated, Rows rows) {
        Keys keys = rows.keys();
        List<String> parents = migrated.all().entrySet().stream()
                .filter(e -> e.getValue().state().equals("awaiting_children")).map(Map.Entry::getKey).toList();
        long awaiting = rows.fields(parents, "state").values().stream()
                .filter(f -> "awaiting_children".equals(Rows.text(f.get(0)))).count();
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("pending", rows.pending().stream().mapToLong(rows::size).sum());
        out.put("active", rows.size(keys.active()));
        out.put("scheduled", rows.size(keys.schedule()));
        out.put("dead", rows.size(keys.dead()));
        out.put("awaiting_children", awaiting);
        out.put("completed", rows.completed());
        return out;
    }
}
