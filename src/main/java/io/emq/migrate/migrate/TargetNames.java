package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.plan.V2Names;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * What a target holds under a v2 queue name, with reads only ({@code HMGET}, {@code EXISTS}): a
 * migration journal (unless abandoned) and the v1 queue it records, or a v2 queue's own keys.
 */
public final class TargetNames {
    private TargetNames() {
    }

    /** The lookup {@link V2Names} asks of the target. */
    public static Optional<V2Names.Holder> holder(Wire target, String name) {
        return holders(target, List.of(name)).get(name);
    }

    /** What the target holds under each of these names, read in pipelines (a run of many queues asks once). */
    public static Map<String, Optional<V2Names.Holder>> holders(Wire target, Collection<String> names) {
        Map<String, Optional<V2Names.Holder>> out = new HashMap<>();
        Migratable.inBatches(names, Migrator.PER_PIPELINE, some -> {
            List<List<byte[]>> journals = target.hmget(some.stream().map(name -> Utf8.bytes(Keys.migrationJournal(name))).toList(),
                    List.of(Utf8.bytes(JournalHeader.V1_QUEUE.name()), Utf8.bytes(JournalHeader.STATE.name())));
            List<Long> queueKeys = target.existing(some.stream().map(TargetNames::queueKeys).toList());
            for (int i = 0; i < some.size(); i++) {
                out.put(some.get(i), holder(journals.get(i).stream().<String>map(v -> v == null ? null : Replies.asText(v)).toList(), queueKeys.get(i)));
            }
        });
        return out;
    }

    /**
     * For a v1 queue of {@code source} (named {@code sourceName}, as {@link Migrator} names it), the v2 name of the
     * migration on the target that holds it among the journals {@code named}, neither abandoned nor retired: one that
     * began from the same server ({@link SourceAddress#sameServer}) or from the same data ({@link SourceServer#shares}).
     * Their headers are read once, in pipelines; each queue's answer is then looked up.
     */
    public static Function<QueueRef, Optional<String>> migratingAs(Wire target, Wire source, String sourceName, Collection<String> named) {
        return migratingAs(target, SourceServer.of(source, sourceName), named);
    }

    static Function<QueueRef, Optional<String>> migratingAs(Wire target, SourceServer sourceServer, Collection<String> named) {
        Map<String, List<Unfinished>> byV1Queue = new HashMap<>();
        List<byte[]> fields = Stream.of(JournalHeader.V1_QUEUE, JournalHeader.STATE, JournalHeader.SOURCE, JournalHeader.SOURCE_REPLID)
                .map(f -> Utf8.bytes(f.name())).toList();
        Migratable.inBatches(List.copyOf(named), Migrator.PER_PIPELINE, names -> {
            List<List<byte[]>> headers = target.hmget(names.stream().map(name -> Utf8.bytes(Keys.migrationJournal(name))).toList(), fields);
            for (int i = 0; i < names.size(); i++) {
                List<Optional<String>> h = headers.get(i).stream().map(v -> Optional.ofNullable(v).map(Replies::asText)).toList();
                boolean underWay = h.get(1).flatMap(JournalHeader.STATE.parse())
                        .filter(s -> s != MigrationState.ABANDONED && s != MigrationState.RETIRED).isPresent();
                if (underWay && h.get(0).isPresent()) {
                    byV1Queue.computeIfAbsent(h.get(0).get(), q -> new ArrayList<>()).add(new Unfinished(names.get(i), h.get(2), h.get(3)));
                }
            }
        });
        return q -> byV1Queue.getOrDefault(q.display(), List.of()).stream()
                .filter(u -> u.source().map(s -> SourceAddress.of(s).sameServer(SourceAddress.of(sourceServer.name()))).orElse(false)
                        || sourceServer.shares(q, u.replicationId()))
                .map(Unfinished::v2Name).findFirst();
    }

    /** A migration under way on the target: its v2 name, and the source server and replication id its journal records. */
    private record Unfinished(String v2Name, Optional<String> source, Optional<String> replicationId) {
    }

    private static List<byte[]> queueKeys(String name) {
        Keys keys = Keys.queue(name);
        return Stream.of(keys.meta(), keys.pending(), keys.active(), keys.schedule(), keys.dead()).map(Utf8::bytes).toList();
    }

    private static Optional<V2Names.Holder> holder(List<String> journal, long queueKeys) {
        Optional<String> v1 = Optional.ofNullable(journal.get(0));
        boolean abandoned = Optional.ofNullable(journal.get(1)).flatMap(JournalHeader.STATE.parse())
                .filter(s -> s == MigrationState.ABANDONED).isPresent();
        if (v1.isPresent() && !abandoned) {
            return Optional.of(new V2Names.Holder.Migration(v1.get()));
        }
        return queueKeys > 0 ? Optional.of(new V2Names.Holder.NativeQueue()) : Optional.empty();
    }
}
