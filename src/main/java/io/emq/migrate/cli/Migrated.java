package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journal;
import io.emq.migrate.wire.Wire;

/** The journal of a queue that was migrated on the target, or the refusal that says it was not. */
final class Migrated {
    private Migrated() {
    }

    /**
     * The queue's journal when a migration of it started writing (it has a state other than
     * abandoned); otherwise refused (exit 3), having written nothing.
     */
    static Journal journal(Wire target, String queue) {
        Journal journal = new Journal(target, queue);
        Journal.State state = journal.state().orElseThrow(() -> CliException.refused("queue " + queue
                + " was never migrated on this target" + (journal.exists()
                ? " (a migration of it was refused before it wrote anything)" : "") + "; `info` lists those that were"));
        if (state == Journal.State.ABANDONED) {
            throw CliException.refused("the migration of queue " + queue + " was abandoned on this target; `info`"
                    + " lists the queues that are migrated");
        }
        return journal;
    }
}
