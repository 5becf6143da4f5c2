package io.emq.migrate.migrate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * V110: the proof before anything is destroyed; see {@link Verifier}. Every journaled row is checked
 * against the digest taken from the v1 bytes it was written from, and the number of journaled rows
 * against the number of v1 jobs that get one (the catch-up just before proved the source unchanged
 * since). A failure stops the queue at running.
 */
final class VerifyStep implements Step {
    @Override
    public Map<String, Long> apply(QueueMigration m) {
        Verifier.Report report = new Verifier(m.targetWire, m.target).verify(Optional.empty(), m.options);
        long rows = m.snapshot().jobsInRankOrder().stream().filter(j -> Migratable.getsRow(j, m.options)).count();
        if (report.passed() && report.jobsChecked() < rows) {
            throw new MigrationRefused("verification", "verification of " + m.target + " failed: the journal holds "
                    + report.jobsChecked() + " migrated rows, the v1 source " + rows + " (nothing was deleted)");
        }
        if (!report.passed()) {
            throw new MigrationRefused("verification", "verification of " + m.target + " failed with "
                    + report.problemCount() + " problems (nothing was deleted): " + String.join("; ", report.problems()));
        }
        m.checkpoints.hit("verified, not yet recorded");
        m.journal.set(Journal.STATE, Journal.State.VERIFIED.wireName());
        Map<String, Long> counts = new LinkedHashMap<>(report.expected());
        counts.put("jobs-checked", report.jobsChecked());
        counts.put("keys-checked", report.keysChecked());
        return counts;
    }
}
