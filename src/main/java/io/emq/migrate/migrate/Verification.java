package io.emq.migrate.migrate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The proof a migration needs before it may destroy anything ({@link Verifier}): every journaled row
 * checked against the digest taken from the v1 bytes it was written from, and, once v1 is paused, the
 * number of journaled rows against the number of v1 jobs that get one in the source as last read (the
 * re-sync just before brought v2 in line with it; a live read has no exact count). The whole proof runs
 * while v1 is live (V110); under the pause only the rows the last pass wrote are checked again, when
 * this run proved the rest (the v2 queue is paused: its rows change only by the migration's writes).
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

    /** The proof of the rows a pass under the pause wrote, when this run proved the others; else the whole proof. */
    static Map<String, Long> proveWritten(QueueMigration m, Resync.Pass pass) {
        if (!m.provenThisRun) {
            return prove(m);
        }
        Verifier.Report report = new Verifier(m.targetWire, m.target, m.targetKeys).verifyRows(pass.written());
        return proven(m, report, m.journal.expectations().count());
    }

    private static Map<String, Long> proven(QueueMigration m, Verifier.Report report, long journaled) {
        if (!m.v1Live()) {
            long rows = m.snapshot().jobsInRankOrder().stream().filter(j -> Migratable.getsRow(j, m.options)).count();
            if (report.passed() && journaled < rows) {
                throw new MigrationRefused(MigrationRefused.Kind.VERIFICATION, "verification of " + m.target + " failed: the journal holds "
                        + journaled + " migrated rows, the v1 source " + rows + " (nothing was deleted)");
            }
        }
        if (!report.passed()) {
            throw new MigrationRefused(MigrationRefused.Kind.VERIFICATION, "verification of " + m.target + " failed with "
                    + report.problemCount() + " problems (nothing was deleted): " + String.join("; ", report.problems()));
        }
        m.checkpoints.hit("verified, not yet recorded");
        m.journal.record(JournalHeader.STATE, MigrationState.VERIFIED);
        Map<String, Long> counts = new LinkedHashMap<>(report.expected());
        counts.put("jobs-checked", report.jobsChecked());
        return counts;
    }
}
