package io.emq.migrate.migrate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** V11: the proof before anything is destroyed; see {@link Verifier}. A failure stops the queue at running. */
final class VerifyStep implements Step {
    @Override
    public Map<String, Long> apply(QueueMigration m) {
        Verifier.Report report = new Verifier(m.targetWire, m.target).verify(Optional.of(m.refreshSnapshot()), m.options);
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
