package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.plan.V2Names;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
     * The migrations of v1 queues of {@code source} (named {@code sourceName}, as {@link Migrator} names it) that the
     * journals {@code named} on the target record, not abandoned: each began from the same server
     * ({@link SourceAddress#sameServer}) or from the same data ({@link SourceServer#shares}). Their headers are read
     * once, in pipelines; each queue's answer is then looked up.
     */
    public static Recorded recorded(Wire target, Wire source, String sourceName, Collection<String> named) {
        return recorded(target, SourceServer.of(source, sourceName), named);
    }

    static Recorded recorded(Wire target, SourceServer sourceServer, Collection<String> named) {
        Map<String, List<Migration>> byV1Queue = new HashMap<>();
        List<byte[]> fields = Stream.concat(Stream.of(JournalHeader.V1_QUEUE, JournalHeader.STATE, JournalHeader.SOURCE,
                JournalHeader.SOURCE_REPLID).map(JournalHeader.Field::name), Stream.of(Abandon.LOCK_UID)).map(Utf8::bytes).toList();
        Migratable.inBatches(List.copyOf(named), Migrator.PER_PIPELINE, names -> {
            List<List<byte[]>> headers = target.hmget(names.stream().map(name -> Utf8.bytes(Keys.migrationJournal(name))).toList(), fields);
            for (int i = 0; i < names.size(); i++) {
                List<Optional<String>> h = headers.get(i).stream().map(v -> Optional.ofNullable(v).map(Replies::asText)).toList();
                Optional<MigrationState> state = h.get(1).flatMap(JournalHeader.STATE.parse()).filter(s -> s != MigrationState.ABANDONED);
                if (state.isPresent() && h.get(0).isPresent()) {
                    byV1Queue.computeIfAbsent(h.get(0).get(), q -> new ArrayList<>())
                            .add(new Migration(names.get(i), state.get(), h.get(2), h.get(3), h.get(4).filter(u -> !u.isEmpty())));
                }
            }
        });
        return new Recorded(byV1Queue, sourceServer);
    }

    /** The migrations the target's journals record, by v1 queue ({@link #recorded}). */
    public static final class Recorded implements V2Names.Journaled {
        private final Map<String, List<Migration>> byV1Queue;
        private final SourceServer sourceServer;

        private Recorded(Map<String, List<Migration>> byV1Queue, SourceServer sourceServer) {
            this.byV1Queue = byV1Queue;
            this.sourceServer = sourceServer;
        }

        /** The v2 name of the migration of {@code q} under way: neither retired nor abandoned. */
        @Override
        public Optional<String> migratingAs(QueueRef q) {
            return of(q).filter(m -> m.state() != MigrationState.RETIRED).map(Migration::v2Name).findFirst();
        }

        /**
         * Why a run of {@code snap}'s queue is refused when the migration here holds it (under way) while another
         * journal's migration retired it ({@link QueueMigration#retiredByAnother}): the tombstone on v1's meta with a token
         * not of this journal's.
         */
        @Override
        public Optional<String> retiredByAnother(QueueSnapshot snap) {
            Optional<SourceToken> token = SourceToken.parse(snap.meta().get("migrating-token"));
            return of(snap.queue()).filter(m -> m.state() != MigrationState.RETIRED).findFirst()
                    .filter(m -> snap.retired() && token.isPresent() && m.uid().isPresent()
                            && token.get().ofAnotherJournal(new SourceToken(m.uid().get(), 0)))
                    .map(m -> QueueMigration.retiredByAnother(snap.queue(), "the migration with token " + token.get().journal()
                            + ":" + token.get().fence(), m.v2Name()));
        }

        @Override
        public Optional<String> retiredAs(QueueRef q) {
            return of(q).filter(m -> m.state() == MigrationState.RETIRED).map(Migration::v2Name).findFirst();
        }

        /**
         * The v2 name of the migration of {@code q}, under way or retired: its journal holds the branded ids of the queue's
         * jobs, which a flow job of another queue links to (the queue may have been renamed by an earlier run's
         * {@code --rename}, and its v1 jobs deleted by retirement).
         */
        public Optional<String> migratedAs(QueueRef q) {
            return of(q).map(Migration::v2Name).findFirst();
        }

        @Override
        public Optional<String> otherSource(QueueRef q, String v2Name) {
            return byV1Queue.getOrDefault(q.display(), List.of()).stream()
                    .filter(m -> m.v2Name().equals(v2Name) && m.source().isPresent() && !fromThisSource(q, m))
                    .map(m -> V2Names.otherSource(v2Name, q, m.source().get(), sourceServer.name(), m.state() == MigrationState.RETIRED))
                    .findFirst();
        }

        private Stream<Migration> of(QueueRef q) {
            return byV1Queue.getOrDefault(q.display(), List.of()).stream().filter(m -> fromThisSource(q, m));
        }

        /** Whether a migration of {@code q} began from this run's source server, or one holding its data. */
        private boolean fromThisSource(QueueRef q, Migration m) {
            return sourceServer.holdsDataOf(q, m.source(), m.replicationId());
        }
    }

    /**
     * A migration the target records: its v2 name, state, the source server and replication id its journal records, and
     * the journal's uid (none before a run took its lease).
     */
    private record Migration(String v2Name, MigrationState state, Optional<String> source, Optional<String> replicationId,
                             Optional<String> uid) {
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
