package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.Journals;
import io.emq.migrate.migrate.StepStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;

/**
 * {@code emq-migrate validate --target URI [--queue Q]}: recorded step checksums against this release's migrations/. Reads
 * only. It validates the queues migrated on the target ({@link Migrated#applied}); a journal with no applied step (its
 * runs refused at the first step, or its migration abandoned) records no checksum, and is named as not counted.
 */
final class ValidateCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "one v2 queue (default: every queue migrated on the target)"));
    }

    public int run(Invocation in) {
        Migrated.Selection selected = Migrated.select(in, false);
        List<String> queues = new ArrayList<>();
        List<String> notCounted = new ArrayList<>();
        for (String q : selected.queues()) {
            (Migrated.applied(new Journal(selected.target(), q)) ? queues : notCounted).add(q);
        }
        List<Map<String, Object>> differing = new ArrayList<>();
        for (String q : queues) {
            for (StepStatus s : Journals.invalid(selected.target(), q)) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("queue", q);
                row.put("version", s.version());
                row.put("description", s.description());
                row.put("status", s.status().wireName());
                row.put("recordedChecksum", s.row().map(r -> r.checksum()).orElse(null));
                differing.add(row);
            }
        }
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queues", queues);
            doc.put("notCounted", notCounted);
            doc.put("valid", differing.isEmpty());
            doc.put("differing", differing);
            Json.print(doc, in.out());
        } else {
            for (Map<String, Object> row : differing) {
                in.out().printf("%s V%s %s: %s (recorded checksum %s)%n", row.get("queue"), row.get("version"),
                        row.get("description"), row.get("status"), row.get("recordedChecksum"));
            }
            in.out().println((queues.isEmpty() ? (notCounted.isEmpty() ? "no migration journals" : "no migrated queue")
                    + " on this target: nothing to validate"
                    : differing.isEmpty() ? "validated " + queues.size() + " queue" + (queues.size() == 1 ? "" : "s")
                    + ": every applied step matches migrations/"
                    : differing.size() + (differing.size() == 1 ? " step differs" : " steps differ")
                    + " from migrations/: if the change is intended, run `emq-migrate repair`")
                    + (notCounted.isEmpty() ? "" : "; not counted, no step applied (refused at the first step, or abandoned; see"
                    + " `info`): " + String.join(", ", notCounted)));
        }
        return differing.isEmpty() ? ExitCodes.OK : ExitCodes.REFUSED;
    }
}
