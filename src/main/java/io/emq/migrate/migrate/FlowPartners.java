package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The queues a queue's flows link it with on a target: those whose branded ids its migration's v2 data names, and those
 * whose migration's v2 data names its own (each journal records the queues it names: {@link Journal#LINKED_PREFIX}). A
 * parent in one queue and its children in another link both ways.
 */
public final class FlowPartners {
    private FlowPartners() {
    }

    /**
     * Each partner of {@code journal}'s queue with its migration's state; empty when its journal is gone ({@code forget}
     * deleted it, which only a retired one can be). Reads every journal's link to the queue and state (a key scan of the
     * journals, one {@code HMGET} each, pipelined).
     */
    public static Map<String, Optional<MigrationState>> of(Wire target, Journal journal) {
        String queue = journal.queue();
        List<String> others = Journals.queues(target).stream().filter(q -> !q.equals(queue)).toList();
        List<List<byte[]>> read = target.hmget(others.stream().map(q -> Utf8.bytes(Keys.migrationJournal(q))).toList(),
                List.of(Utf8.bytes(Journal.LINKED_PREFIX + queue), Utf8.bytes(JournalHeader.STATE.name())));
        Map<String, Optional<MigrationState>> states = new TreeMap<>();
        Map<String, Optional<MigrationState>> partners = new TreeMap<>();
        for (int i = 0; i < others.size(); i++) {
            byte[] state = read.get(i).get(1);
            Optional<MigrationState> known = Optional.of(state == null ? MigrationState.RUNNING
                    : MigrationState.of(Replies.asText(state)).orElse(MigrationState.RUNNING));
            states.put(others.get(i), known);
            if (read.get(i).get(0) != null) {
                partners.put(others.get(i), known);
            }
        }
        journal.linkedQueues().forEach(q -> partners.put(q, states.getOrDefault(q, Optional.empty())));
        return partners;
    }

    /** A partner as messages name it: the queue and its migration's state. */
    public static String described(Map.Entry<String, Optional<MigrationState>> partner) {
        return partner.getKey() + " (" + partner.getValue().map(MigrationState::wireName).orElse("forgotten after its retirement") + ")";
    }
}
