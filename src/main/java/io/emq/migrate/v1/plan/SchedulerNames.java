package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.Names;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.Scheduler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * The v2 registration name of a v1 {@code every} scheduler. A v2 name matches [A-Za-z0-9._-]{1,255}: a v1 id that does
 * keeps its name; any other id gets its characters outside that set replaced by '_', then '.' and the CRC32 of its bytes
 * in hex, so {@code a:b} and the id {@code a_b} stay two registrations ({@code a_b.<crc>} and {@code a_b}). Two ids of a
 * queue that still meet on one name (ids made to, or a CRC32 collision) are refused ({@link #clash}): written, the second
 * would replace the first.
 */
public final class SchedulerNames {
    private static final int SUFFIX = 9; // '.' and eight hex digits

    private SchedulerNames() {
    }

    public static String v2Name(Bytes sid) {
        String text = sid.display();
        if (Names.isDedupId(text)) {
            return text;
        }
        String kept = text.replaceAll("[^A-Za-z0-9._-]", "_");
        CRC32 crc = new CRC32();
        crc.update(sid.raw());
        return kept.substring(0, Math.min(Names.DEDUP_MAX - SUFFIX, kept.length())) + "." + String.format("%08x", crc.getValue());
    }

    /** Why the {@code every} schedulers among {@code schedulers} cannot all be registered in v2: two ids on one name. */
    public static Optional<String> clash(Collection<Scheduler> schedulers) {
        Map<String, List<Bytes>> byName = new LinkedHashMap<>();
        for (Scheduler s : schedulers) {
            if (s.kind() == Scheduler.Kind.EVERY) {
                byName.computeIfAbsent(v2Name(s.id()), n -> new ArrayList<>()).add(s.id());
            }
        }
        return byName.entrySet().stream().filter(e -> e.getValue().size() > 1).findFirst().map(e -> "the schedulers "
                + e.getValue().stream().map(Bytes::display).map(id -> "'" + id + "'").reduce((a, b) -> a + " and " + b).orElseThrow()
                + " would both be registered in v2 as '" + e.getKey() + "', the second replacing the first: remove one in v1"
                + " (Queue.removeJobScheduler) and add it again under another id, then migrate again");
    }
}
