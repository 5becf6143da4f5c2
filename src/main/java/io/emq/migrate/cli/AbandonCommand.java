package io.emq.migrate.cli;

import io.emq.migrate.migrate.Abandon;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.cli.Options;

/**
 * {@code emq-migrate abandon --source URI [--target URI] --queue Q}: undo a migration that has not
 * retired its source; removes what it wrote on the target and resumes the v1 queue as it was.
 */
final class AbandonCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue"));
    }

    public int run(Invocation in) {
        String queue = in.queue();
        Endpoint source = in.require(Side.SOURCE);
        Endpoint target = in.targetOrSource();
        Wire sourceWire = Wire.unfenced(in.open(source, Side.SOURCE, 8));
        JournalHeader header = Migrated.journal(in.readableTarget(target), queue).header();
        boolean retired = header.get(JournalHeader.STATE).filter(s -> s == MigrationState.RETIRED).isPresent();
        String began = header.get(JournalHeader.SOURCE).filter(s -> !s.equals(source.describe()))
                .map(s -> " (the migration began from " + s + ")").orElse("");
        if (!retired) { // a retired migration is refused below, by Abandon, without asking
            in.confirm("abandon " + queue, "deletes every job the migration wrote on " + target.describe()
                    + " (v2 producers' jobs in that queue stay)");
        }
        Map<String, Long> counts = Abandon.run(sourceWire, in.writableTarget(target, 8), queue, MigrationOptions.DEFAULT_LEASE);
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queue", queue);
            doc.put("abandoned", true);
            doc.put("counts", new TreeMap<>(counts));
            Json.print(doc, in.out());
        } else {
            in.out().println("abandoned " + queue + ": " + Table.counts(counts) + (counts.containsKey("v1-retired-by-another")
                    ? "; the v1 queue at " + source.describe() + " was retired by another migration (its token on meta), whose"
                    + " target holds its jobs now: it was left as it is"
                    : counts.containsKey("v1-not-paused-here")
                    ? "; the v1 queue at " + source.describe() + began + " showed no pause of this migration (no token of its journal on"
                    + " meta, its add counter not frozen) and was left as it is: if the migration paused it on another server,"
                    + " give it back there by hand (MIGRATION.md, rollback)"
                    : "; the v1 queue is as it was before the migration"));
        }
        return ExitCodes.OK;
    }
}
