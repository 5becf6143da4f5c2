package io.emq.migrate.cli;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.migrate.Abandon;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.commons.cli.Options;

/**
 * {@code emq-migrate abandon --source URI [--target URI] --queue Q [--queue Q2 ...]}: undo migrations that have not
 * retired their source; removes what each wrote on the target and resumes its v1 queue as it was. Queues whose flows
 * link them (a parent in one, its children in another) are abandoned together, in one command. The journal of a
 * migration whose runs were refused before they wrote anything but it is deleted, both queues left as they are.
 */
final class AbandonCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue (again for each queue abandoned with it)"));
    }

    public int run(Invocation in) {
        List<String> queues = in.queues();
        Endpoint source = in.require(Side.SOURCE);
        Endpoint target = in.targetOrSource();
        Wire sourceWire = Wire.unfenced(in.open(source, Side.SOURCE, 8));
        Map<String, JournalHeader> headers = new LinkedHashMap<>();
        for (String queue : queues) {
            headers.put(queue, Migrated.toAbandon(in.readableTarget(target), queue).header());
        }
        List<String> unretired = queues.stream().filter(q -> headers.get(q).get(JournalHeader.STATE)
                .filter(s -> s == MigrationState.RETIRED).isEmpty()).toList();
        if (!unretired.isEmpty()) { // a retired migration is refused below, by Abandon, without asking
            in.confirm("abandon " + String.join(", ", unretired), "deletes every job the migration" + (unretired.size() > 1 ? "s" : "")
                    + " wrote on " + target.describe() + " (v2 producers' jobs in " + (unretired.size() > 1 ? "those queues" : "that queue")
                    + " stay)");
        }
        Wire targetWire = in.writableTarget(target, 8);
        for (String queue : queues) {
            Set<String> alongside = new HashSet<>(queues);
            alongside.remove(queue);
            Map<String, Long> counts = Abandon.run(sourceWire, targetWire, queue, alongside, MigrationOptions.DEFAULT_LEASE);
            print(in, source, queue, headers.get(queue), counts);
        }
        return ExitCodes.OK;
    }

    private static void print(Invocation in, Endpoint source, String queue, JournalHeader header, Map<String, Long> counts) {
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queue", queue);
            doc.put("abandoned", true);
            doc.put("counts", new TreeMap<>(counts));
            Json.print(doc, in.out());
            return;
        }
        if (counts.containsKey(Abandon.JOURNAL_DELETED)) {
            in.out().println("abandoned " + queue + ": its journal " + Keys.migrationJournal(queue) + " ("
                    + counts.get(Abandon.JOURNAL_DELETED) + " fields) was deleted: its runs were refused at the first step before"
                    + " they wrote anything else, so the v1 queue and the v2 queue are as they were");
            return;
        }
        String began = header.get(JournalHeader.SOURCE).filter(s -> !s.equals(source.describe()))
                .map(s -> " (the migration began from " + s + ")").orElse("");
        in.out().println("abandoned " + queue + ": " + Table.counts(counts) + (counts.containsKey("v1-retired-by-another")
                ? "; the v1 queue at " + source.describe() + " was retired by another migration (its token on meta), whose"
                + " target holds its jobs now: it was left as it is"
                : counts.containsKey("v1-not-paused-here")
                ? "; the v1 queue at " + source.describe() + began + " showed no pause of this migration (no token of its journal on"
                + " meta, its add counter not frozen) and was left as it is: if the migration paused it on another server,"
                + " give it back there by hand (MIGRATION.md, rollback)"
                : "; the v1 queue is as it was before the migration")
                + (counts.containsKey("served-on-v2") ? "; the v2 queue had served " + counts.get("served-on-v2") + " of its jobs"
                + " (completed, or still active: a `drain --resume` or a consumer on the target) that the v1 queue holds and serves"
                + " too: they run twice unless you remove them from v1 by hand" : ""));
    }
}
