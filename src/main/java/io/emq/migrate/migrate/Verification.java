package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The proof a migration needs before it may destroy anything ({@link Verifier}): every journaled row
 * checked against the digest taken from the v1 bytes it was written from, and, once v1 is paused, the
 * number of journaled rows against the number of v1 jobs that get one in the source as last read (the
 * re-sync just before brought v2 in line with it; a live read has no exact count). The whole proof runs
 * while v1 is live (V110); then only the rows later passes wrote are checked, when this run proved the
 * rest: those of V120's catch-up while v1 still serves, then those of the pass under the pause (the v2
 * queue is paused: its rows change only by the migration's writes).
 * Marks the journal verified; a failure refuses ({@code verification}).
 */
final class Verification {
    private Verification() {
    }

    static Map<String, Long> prove(QueueMigration m) {
        Verifier.Report report = new Verifier(m.targetWire, m.target, m.targetKeys).verify(Optional.empty(), m.options);
        Map<String, Long> counts = proven(m, report, report.jobsChecked());
        counts.put("keys-checked", report.keysChecked());
        m.provenThisRun = true;
        return counts;
    }

    /**
     * The proof of the rows the passes since the last proof wrote (those V120 runs while v1 still serves,
     * then the one under the pause), when this run proved the others; else the whole proof. {@code journaled}:
     * how many expectations the journal holds, when the caller read it after the last write to them; else read here.
     */
    static Map<String, Long> proveWritten(QueueMigration m, List<BrandedId> written, OptionalLong journaled) {
        if (!m.provenThisRun) {
            return prove(m);
        }
        Verifier.Report report = new Verifier(m.targetWire, m.target, m.targetKeys).verifyRows(written);
        return proven(m, report, journaled.orElseGet(() -> m.journal.expectations().count()));
    }

    private static Map<String, Long> proven(QueueMigration m, Verifier.Report report, long journaled) {
        if (!m.v1Live()) {
            long rows = Migratable.rowCount(m.snapshot(), m.rule());
            if (report.passed() && journaled < rows) {
                throw new MigrationRefused(MigrationRefused.Kind.VERIFICATION, "verification of " + m.target + " failed: the journal holds "
                        + journaled + " migrated rows, the v1 source " + rows + " (nothing was deleted)");
            }
        }
        if (!report.passed()) {
            throw new MigrationRefused(MigrationRefused.Kind.VERIFICATION, "verification of " + m.target + " failed with "
                    + report.problemCount() + " problems (nothing was deleted)" + (report.rowsMissing() == 0 ? "" : ". "
                    + report.rowsMissing() + " row(s) the journal expects are gone from the target: the v2 queue served them (a"
                    + " `drain --resume` or a consumer of the v2 queue on this target) or they were deleted (a target restarted"
                    + " without persistence, an eviction), while v1 still holds their jobs; `repair` does not bring them back:"
                    + " if v2 ran them, decide which side keeps those jobs (MIGRATION.md §9, a copy served before its migration"
                    + " finished); if they were lost, `abandon` and migrate again") + ": " + String.join("; ", report.problems()));
        }
        m.checkpoints.hit("verified, not yet recorded");
        if (!m.provenThisRun) {
            // recorded by this run's whole proof already: nothing in a run moves the state back
            m.journal.record(JournalHeader.STATE, MigrationState.VERIFIED);
        }
        Map<String, Long> counts = new LinkedHashMap<>(report.expected());
        counts.put("jobs-checked", report.jobsChecked());
        return counts;
    }
}
