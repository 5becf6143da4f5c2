package io.emq.migrate.migrate;

import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The queues of a run that end before they begin, because a migration retired them ({@link #ended}). Which of them need
 * a read is told by their metas, read for every queue of the run in pipelines ({@link #toRead}); the migrator reads
 * those few at once, so that they share the source's key scans: a re-run of many retired queues (a queue per tenant)
 * scans the source a few times, not once a queue.
 */
final class RetiredQueues {
    private static final List<byte[]> VERSION = List.of(Utf8.bytes("version"));

    private final TargetNames.Recorded recorded;

    RetiredQueues(TargetNames.Recorded recorded) {
        this.recorded = recorded;
    }

    /**
     * The queues of {@code named} (v1 queue to its v2 name) that may end before they begin: v1's meta holds the
     * tombstone, or the journal here says the queue's migration under that name retired it (v1 may have been restored
     * from a backup). A queue a migration on the target is still retiring, or whose meta is no hash (the run refuses it,
     * {@code damaged-meta}), is not one.
     */
    List<QueueRef> toRead(Wire source, Map<QueueRef, String> named) {
        List<QueueRef> out = new ArrayList<>();
        List<QueueRef> probed = named.keySet().stream().filter(q -> recorded.migratingAs(q).isEmpty()).toList();
        Migratable.inBatches(probed, Migrator.PER_PIPELINE, some -> {
            List<String> types = source.types(metas(some));
            List<QueueRef> hashes = new ArrayList<>();
            for (int i = 0; i < some.size(); i++) {
                if (types.get(i).equals("hash")) {
                    hashes.add(some.get(i));
                } else if (types.get(i).equals("none") && retiredHere(some.get(i), named.get(some.get(i)))) {
                    out.add(some.get(i));
                }
            }
            List<List<byte[]>> versions = source.hmget(metas(hashes), VERSION);
            for (int i = 0; i < hashes.size(); i++) {
                QueueRef q = hashes.get(i);
                if (QueueSnapshot.TOMBSTONE.equals(Replies.asText(versions.get(i).get(0))) || retiredHere(q, named.get(q))) {
                    out.add(q);
                }
            }
        });
        return out;
    }

    private boolean retiredHere(QueueRef q, String v2Name) {
        return recorded.migratedAs(q).equals(Optional.of(v2Name));
    }

    private static List<byte[]> metas(List<QueueRef> queues) {
        return queues.stream().map(q -> q.key(QueueStructure.META).raw()).toList();
    }

    /**
     * How the run of a queue {@link #toRead} ends, from {@code snap} (the queue as v1 holds it now, payloads not
     * read), before it writes anything. For a queue that holds the tombstone: refused ({@code stranded}) when v1 lists
     * jobs there or holds job hashes ({@link Planner#stranded}), else retired, as {@code plan} reads it, when the target
     * keeps no journal of it under {@code v2Name} (forgotten, retired under another name, or into another target:
     * nothing is left to migrate). For one without the tombstone that lists jobs while its journal here says it
     * retired: refused ({@code v1-restored}, {@link Planner#restored}: a v1 server restored from a backup). Empty
     * otherwise: the queue runs (the run of a retired journal ends so). The result names the v2 queue the journal here
     * names (a queue retired under another {@code --rename} went there), else {@code v2Name}.
     */
    Optional<MigrationResult> ended(QueueSnapshot snap, String v2Name) {
        QueueRef q = snap.queue();
        if (!snap.retired()) {
            return Optional.of(v2Name).filter(n -> retiredHere(q, n)).flatMap(n -> Planner.restored(snap, n)).map(reason -> MigrationResult.notRun(q.display(), v2Name,
                    MigrationResult.Outcome.REFUSED, Optional.of(MigrationRefused.Kind.V1_RESTORED),
                    "queue " + q.display() + " is refused: " + reason + "; nothing was written"));
        }
        Optional<String> journaled = recorded.migratedAs(q);
        String into = journaled.orElse(v2Name); // a queue retired under another --rename went there
        Optional<String> stranded = Planner.stranded(snap, Optional.of(into));
        if (stranded.isEmpty() && journaled.equals(Optional.of(v2Name))) {
            return Optional.empty();
        }
        return Optional.of(MigrationResult.notRun(q.display(), into, stranded.isPresent() ? MigrationResult.Outcome.REFUSED
                : MigrationResult.Outcome.RETIRED, stranded.map(s -> MigrationRefused.Kind.STRANDED),
                stranded.map(s -> "queue " + q.display() + " is refused: " + s).orElse("a migration retired it already (its meta"
                + " holds the tombstone " + SourceFence.TOMBSTONE + ")" + journaled.map(n -> ", into v2 queue '" + n + "' here")
                .orElse(", and this target keeps no journal of it (forgotten, or it went into another target, whose `info`"
                + " tells)")) + "; nothing was written"));
    }
}
