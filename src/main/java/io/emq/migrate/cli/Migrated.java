package io.emq.migrate.cli;

import io.emq.migrate.migrate.HistoryRow;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
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
     * The queue's journal when a migration of it applied a step (and was not abandoned); otherwise
     * refused (exit 3), having written nothing. A migration refused at its first step leaves a
     * journal with a header and no applied step: that queue was never migrated either.
     */
    static Journal journal(Wire target, String queue) {
        return journal(target, queue, false);
    }

    /**
     * As {@link #journal}, for {@code repair} and {@code abandon}: a journal whose only rows are failed steps will do. A
     * first step that failed may have paused and fenced the v2 queue, and its failed row stops every later run until
     * {@code repair} clears it.
     */
    static Journal withHistory(Wire target, String queue) {
        return journal(target, queue, true);
    }

    private static Journal journal(Wire target, String queue, boolean failedStepsDo) {
        Journal journal = new Journal(target, queue);
        Optional<MigrationState> state = journal.header().get(JournalHeader.STATE);
        if (state.filter(s -> s == MigrationState.ABANDONED).isPresent()) {
            throw CliException.refused("the migration of queue " + queue + " was abandoned on this target; `info`"
                    + " lists the queues that are migrated");
        }
        List<HistoryRow> rows = journal.history().rows();
        if (failedStepsDo ? rows.isEmpty() : state.isEmpty() || rows.stream().noneMatch(HistoryRow::success)) {
            throw CliException.refused(journal.exists() ? "queue " + queue + " was never migrated on this target (a migration of"
                    + " it began, and stopped or was refused before its first step was done); `info` lists those that were"
                    : "queue " + queue + " has no migration journal on this target (never migrated here, or `forget` deleted"
                    + " it after its cutover); `info` lists those that have one");
        }
        return journal;
    }
}
