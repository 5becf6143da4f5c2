package io.emq.migrate.v1.plan;

import io.emq.migrate.keyspace.Names;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The v2 name each v1 queue of a source migrates under (its own name, or the one {@code --rename
 * OLD=NEW} gives; OLD is a queue name, or {@code P:Q} for the queue under one prefix, which wins),
 * and what stands in its way. A v2 name belongs to one v1 queue: a rename onto a
 * name another v1 queue of the source migrates under (by its own name or a rename), or onto a v2
 * queue the target already holds, is refused; two v1 queues of one name under different prefixes
 * are refused until one is renamed; a name whose migration journal on the target records another
 * v1 queue is refused for every queue. A rename whose OLD names no v1 queue is refused ({@link #unknownRenames}). A v1 queue whose
 * migration on the target under one v2 name is neither retired nor abandoned is refused under any other
 * ({@link #migratingElsewhere}): two copies of its jobs would each be served.
 * Pure: what the target holds is asked of {@code target} and {@code migratingAs}.
 */
public final class V2Names {
    /** What the target's migration journals (not abandoned) record of the v1 queues of the run's source. */
    public interface Journaled {
        /** Nothing: a target without journals. */
        Journaled NONE = new Journaled() {
            @Override
            public Optional<String> migratingAs(QueueRef q) {
                return Optional.empty();
            }

            @Override
            public Optional<String> otherSource(QueueRef q, String v2Name) {
                return Optional.empty();
            }
        };

        /** The v2 name under which a migration of {@code q} from this source, neither retired nor abandoned, holds it. */
        Optional<String> migratingAs(QueueRef q);

        /**
         * Why a run of {@code snap}'s queue is refused: another migration retired it (into another target, or begun again
         * after an abandon) while a migration of it here is under way; none for {@link #NONE}.
         */
        default Optional<String> retiredByAnother(QueueSnapshot snap) {
            return Optional.empty();
        }

        /** The v2 name under which a migration of {@code q} retired it (none: {@link #NONE} knows no journal). */
        default Optional<String> retiredAs(QueueRef q) {
            return Optional.empty();
        }

        /**
         * Why a run of {@code q} into {@code v2Name} is refused when the migration under that name of a v1 queue named as
         * {@code q} began from another server: neither this run's source nor one holding its data (its master, a replica,
         * the replica that replaced it); see {@link #otherSource(String, QueueRef, String, String)}.
         */
        Optional<String> otherSource(QueueRef q, String v2Name);
    }

    /** What the target holds under a v2 name. */
    public sealed interface Holder {
        /** A migration journal, not abandoned, of v1 queue {@code v1Queue} ({@code P:Q}). */
        record Migration(String v1Queue) implements Holder {
        }

        /** A v2 queue's keys without a migration journal: a queue v2 producers made. */
        record NativeQueue() implements Holder {
        }
    }

    private final List<QueueRef> queues;
    private final Map<String, String> renames;
    private final Function<String, Optional<Holder>> target;
    private final Journaled journaled;
    /** The queues by the v2 name each would take, valid or not (so a conflict is found without a walk over all). */
    private final Map<String, List<QueueRef>> byCandidate;

    /**
     * @param queues  every v1 queue discovered under the run's prefixes
     * @param renames v1 name -> v2 name, as given
     * @param target  what the target holds under a v2 name
     * @param journaled what the target's migration journals record of the source's queues
     */
    public V2Names(List<QueueRef> queues, Map<String, String> renames, Function<String, Optional<Holder>> target,
                   Journaled journaled) {
        this.queues = List.copyOf(queues);
        this.renames = Map.copyOf(renames);
        this.target = target;
        this.journaled = journaled;
        this.byCandidate = this.queues.stream().collect(Collectors.groupingBy(this::candidate));
    }

    /** Names as the renames give them, nothing else consulted: for steps of a run whose names were checked. */
    public static V2Names unchecked(Map<String, String> renames) {
        return new V2Names(List.of(), renames, name -> Optional.empty(), Journaled.NONE);
    }

    /** Whether a migration of {@code q} on the target, neither retired nor abandoned, holds it (it may be retiring it). */
    public boolean migrating(QueueRef q) {
        return journaled.migratingAs(q).isPresent();
    }

    /** The v2 name under which a migration of {@code q} on the target retired it. */
    public Optional<String> retiredAs(QueueRef q) {
        return journaled.retiredAs(q);
    }

    /** Why the migration of {@code snap}'s queue on the target is refused: another migration retired the queue ({@link Journaled#retiredByAnother}). */
    public Optional<String> retiredByAnother(QueueSnapshot snap) {
        return journaled.retiredByAnother(snap);
    }

    /** The OLD of each rename that names none of the v1 {@code queues} (a queue name, or {@code P:Q}), sorted. */
    public static List<String> unknownRenames(List<QueueRef> queues, Map<String, String> renames) {
        return renames.keySet().stream().filter(old -> queues.stream().noneMatch(q -> q.name().display().equals(old)
                || q.display().equals(old))).sorted().toList();
    }

    /**
     * The v2 name the queue migrates under: its {@code --rename}, else its own name, when valid; else, without a rename, the
     * name a migration that retired it went into (BullMQ's cluster names {@code {q}} are renamed to migrate); else empty.
     */
    public Optional<String> v2Name(QueueRef q) {
        String name = candidate(q);
        if (Names.isQueueName(name)) {
            return Optional.of(name);
        }
        return rename(q).isEmpty() ? journaled.retiredAs(q) : Optional.empty(); // a queue retired under a --rename went there
    }

    /** The name a {@code --rename} gives the queue, valid or not; empty when it is not renamed. */
    public Optional<String> rename(QueueRef q) {
        return Optional.ofNullable(renames.get(q.display())).or(() -> Optional.ofNullable(renames.get(q.name().display())));
    }

    private String candidate(QueueRef q) {
        return rename(q).orElse(q.name().display());
    }

    private boolean renamed(QueueRef q) {
        return rename(q).isPresent();
    }

    /** Why the queue cannot have its v2 name, or empty when it can. */
    public Optional<String> conflict(QueueRef q) {
        Optional<String> v2 = v2Name(q);
        if (v2.isEmpty()) {
            return Optional.empty(); // the invalid name is refused on its own
        }
        String name = v2.get();
        String asked = renamed(q) ? "--rename " + q.display() + "=" + name + ": " : "";
        for (QueueRef other : byCandidate.getOrDefault(name, List.of())) {
            if (other.equals(q)) {
                continue;
            }
            if (renamed(q)) {
                return Optional.of(asked + "v2 name '" + name + "' is also the v2 name of v1 queue " + other.display()
                        + (renamed(other) ? " (renamed)" : "") + "; choose a name no other queue migrates under");
            }
            if (!renamed(other)) {
                return Optional.of("v1 queue " + other.display() + " also migrates as v2 queue '" + name
                        + "'; give one of them another name with --rename PREFIX:QUEUE=NEW");
            }
        }
        Optional<Holder> holder = target.apply(name);
        if (holder.isPresent() && holder.get() instanceof Holder.Migration m && !m.v1Queue().equals(q.display())) {
            return Optional.of(asked + "v2 queue '" + name + "' on the target holds the migration of v1 queue "
                    + m.v1Queue() + "; choose another name with --rename");
        }
        if (holder.isPresent() && holder.get() instanceof Holder.NativeQueue && renamed(q)) {
            return Optional.of(asked + "v2 queue '" + name + "' already exists on the target; a rename never merges"
                    + " into an existing queue, choose a new name");
        }
        return Optional.empty();
    }

    /**
     * Why the queue cannot migrate under its v2 name while a migration on the target holds it under another, neither
     * retired nor abandoned (its jobs would be copied twice, and each copy served), or empty when none does.
     */
    public Optional<String> migratingElsewhere(QueueRef q) {
        Optional<String> v2 = v2Name(q);
        if (v2.isEmpty()) {
            return Optional.empty(); // the invalid name is refused on its own
        }
        return journaled.migratingAs(q).filter(other -> !other.equals(v2.get())).map(other -> (renamed(q) ? "--rename " + q.display()
                + "=" + v2.get() + ": " : "") + "v1 queue " + q.display() + " is being migrated on the target as v2 queue '" + other
                + "' (neither retired nor abandoned), and a second migration as '" + v2.get() + "' would copy its jobs twice;"
                + " finish that one (migrate " + q.display() + (other.equals(q.name().display()) ? " without --rename"
                : " with " + RenameArgument.suggested(q.display(), other)) + "), or undo it first with `emq-migrate abandon --queue " + other + "`");
    }

    /**
     * Why a run of {@code q} is refused when its v2 name's migration began from another server ({@link Journaled#otherSource}):
     * resuming it would bring v2 in line with another server's queue and retire it.
     */
    public Optional<String> otherSource(QueueRef q) {
        return v2Name(q).flatMap(v2 -> journaled.otherSource(q, v2));
    }

    /**
     * The refusal's reason: the migration of {@code v2Name} began from {@code q} on {@code began}, and this run names
     * {@code sourceName}; {@code retired}: that migration finished (its v2 queue serves that server's jobs).
     */
    public static String otherSource(String v2Name, QueueRef q, String began, String sourceName, boolean retired) {
        return "the migration of '" + v2Name + "' began from the v1 queue " + q.display() + " on " + began + ", and this run names "
                + sourceName + ", which is neither that server, nor its master or replica, nor the replica that replaced it: "
                + (retired ? "that migration is retired, its v2 queue serving that server's jobs; migrate this server's queue under"
                + " another name (" + RenameArgument.suggested(q.name().display(), "NEW") + ")"
                : "re-run with --source " + began + "; if the queue was moved to that server some other way, `emq-migrate"
                + " abandon` (it deletes only what the migration wrote on the target), then migrate again from there");
    }
}
