package io.emq.migrate.cli;

import io.emq.migrate.migrate.HistoryRow;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.migrate.UnwrittenJournal;
import io.emq.migrate.wire.Wire;
import java.util.List;
import java.util.Optional;

/** The journal of a queue that was migrated on the target, or the refusal that says it was not. */
final class Migrated {
    private Migrated() {
    }

    /** The target a reading command reads ({@code --target}) and the queues it looks at there. */
    record Selection(Wire target, List<String> queues) {
    }

    /**
     * The queue {@code --queue} names (its name checked before any server is reached), else every
     * queue with a journal. A named queue must be migrated ({@link #journal}); with {@code anyJournal},
     * a journal of any state will do (a refused or abandoned migration is shown too).
     */
    static Selection select(Invocation in, boolean anyJournal) {
        Optional<String> named = in.has("queue") ? Optional.of(in.queue()) : Optional.empty();
        Wire target = in.readableTarget(in.require(Side.TARGET));
        if (named.isEmpty()) {
            return new Selection(target, Journals.queues(target));
        }
        if (!anyJournal || !new Journal(target, named.get()).exists()) {
            journal(target, named.get());
        }
        return new Selection(target, List.of(named.get()));
    }

    /**
     * Whether a migration of the journal's queue applied a step and was not abandoned: the queue counts as migrated. A
     * migration refused at its first step leaves a journal with no applied step: that queue was never migrated.
     */
    static boolean applied(Journal journal) {
        Optional<MigrationState> state = journal.header().get(JournalHeader.STATE);
        return state.filter(s -> s != MigrationState.ABANDONED).isPresent() && journal.history().rows().stream().anyMatch(HistoryRow::success);
    }

    /**
     * The queue's journal when a migration of it applied a step (and was not abandoned); otherwise
     * refused (exit 3), having written nothing, saying what the target holds of the queue.
     */
    static Journal journal(Wire target, String queue) {
        Journal journal = new Journal(target, queue);
        if (!applied(journal)) {
            throw notMigrated(target, journal);
        }
        return journal;
    }

    /**
     * As {@link #journal}, for {@code repair}: a journal whose only rows are failed steps will do. A first step that failed
     * may have paused and fenced the v2 queue, and its failed row stops every later run until {@code repair} clears it.
     */
    static Journal withHistory(Wire target, String queue) {
        Journal journal = new Journal(target, queue);
        if (!applied(journal) && (abandoned(journal) || journal.history().rows().isEmpty())) {
            throw notMigrated(target, journal);
        }
        return journal;
    }

    /**
     * The queue's journal for {@code abandon}: any not abandoned, a step applied or not. {@code abandon} deletes one its
     * runs left having written nothing but it ({@link UnwrittenJournal}), and undoes what the others wrote: the fence of
     * a first step that failed or stopped after it paused the v2 queue, or nothing but the header of a run refused at its
     * first step after an earlier migration was abandoned (the journal keeps that migration's high-water mark).
     */
    static Journal toAbandon(Wire target, String queue) {
        Journal journal = new Journal(target, queue);
        if (!journal.exists() || abandoned(journal)) {
            throw notMigrated(target, journal);
        }
        return journal;
    }

    /**
     * What {@code info} and the refusals say of a journal its runs left having written nothing but it: where they were
     * refused, and the ways on.
     */
    static String unwritten() {
        return "its runs were refused (or stopped) at the first step, " + UnwrittenJournal.firstStep() + ", before they wrote"
                + " anything but its journal (v1 untouched, nothing of it on v2): fix the cause and run `migrate` again, or"
                + " `abandon` deletes the journal";
    }

    private static boolean abandoned(Journal journal) {
        return journal.header().get(JournalHeader.STATE).filter(s -> s == MigrationState.ABANDONED).isPresent();
    }

    private static CliException notMigrated(Wire target, Journal journal) {
        String queue = journal.queue();
        if (abandoned(journal)) {
            return CliException.refused("the migration of queue " + queue + " was abandoned on this target; `info`"
                    + " lists the queues that are migrated");
        }
        if (!journal.exists()) {
            return CliException.refused("queue " + queue + " has no migration journal on this target (never migrated here, or"
                    + " `forget` deleted it after its cutover); `info` lists those that have one");
        }
        if (UnwrittenJournal.left(target, journal)) {
            return CliException.refused("queue " + queue + " was never migrated on this target: " + unwritten());
        }
        return CliException.refused("queue " + queue + " was never migrated on this target (a migration of it began, and stopped"
                + " or was refused before its first step was done); `info` lists those that were");
    }
}
