package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.wire.Wire;

/**
 * The journal a migration leaves when its runs were refused at its first step (V10: what the plan refuses in the v1
 * queue it read, or before that read a damaged v1 meta, a tombstone, another migration's pause window) before they
 * wrote anything but the journal: it records no step (applied or failed), no minted id, and the v2 queue holds no fence
 * of it (a refusal lets the fence go). v1 was never touched and v2 holds nothing of it; {@code abandon} deletes it
 * ({@link Abandon}), and a later {@code migrate} begins anew. A run stopped inside its first step after it paused the
 * v2 queue leaves the fence, and a journal an earlier migration was abandoned in keeps its high-water mark: neither is one.
 */
public final class UnwrittenJournal {
    private UnwrittenJournal() {
    }

    /** Whether {@code journal} is such a journal and no run holds its lease (one under way may write yet). */
    public static boolean left(Wire target, Journal journal) {
        return journal.leaseHeld().isEmpty() && wroteNothing(target, journal);
    }

    /** The step such a journal's runs were refused at, as messages name it ({@code V10 fence source}). */
    public static String firstStep() {
        StepDefinition first = StepCatalog.load().steps().get(0);
        return "V" + first.version() + " " + first.description();
    }

    /** Whether {@code journal} is such a journal, its lease aside (for {@link Abandon}, which holds it). */
    static boolean wroteNothing(Wire target, Journal journal) {
        return journal.exists()
                && journal.header().get(JournalHeader.STATE).filter(s -> s != MigrationState.PLANNED && s != MigrationState.RUNNING).isEmpty()
                && journal.history().rows().isEmpty() && journal.ids().highWaterMark() == 0
                && !TargetFence.held(target, Keys.queue(journal.queue()));
    }

    /**
     * Deletes the journal, under the lease the caller holds: every field in one call fenced by its token, so the key goes
     * with the last. The number of fields it held.
     */
    static long delete(Journal journal) {
        return journal.forget(journal.fieldsStartingWith(""));
    }
}
