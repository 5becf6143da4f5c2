package io.emq.migrate.cli;

import io.emq.migrate.migrate.FlowPartners;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.wire.Wire;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.Options;

/**
 * {@code emq-migrate forget --target URI --queue Q}: deletes the journal of a retired queue, once nothing needs it
 * (drain validated the cutover): it holds the id mapping and what was expected of every job, about 390 bytes a job,
 * on the target for good otherwise. {@code lookup}, {@code verify} and {@code drain} then know the queue no more;
 * its v2 queue is untouched. Only a retired journal: before that it is what a re-run and {@code abandon} need. The
 * state is read again in the script that unlinks the journal ({@link Journal#unlinkIfRetired}), so a journal no
 * longer retired by then is kept; the target needs no {@code @transaction} for it. Nor while a queue its flows link it
 * with ({@link FlowPartners}) is still migrating: that migration looks up this queue's branded ids in the journal.
 */
final class ForgetCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "the v2 queue"));
    }

    public int run(Invocation in) {
        String queue = in.queue();
        Wire wire = in.writableTarget(in.require(Side.TARGET), 2);
        Journal journal = Migrated.journal(wire, queue);
        MigrationState state = journal.header().get(JournalHeader.STATE).orElseThrow();
        if (state != MigrationState.RETIRED) {
            throw CliException.refused("the migration of " + queue + " is " + state.wireName() + ", not retired: its journal is what a"
                    + " re-run and `abandon` need; forget it once `migrate` retired the queue");
        }
        List<String> underWay = FlowPartners.of(wire, journal).entrySet().stream()
                .filter(p -> p.getValue().filter(s -> s != MigrationState.RETIRED && s != MigrationState.ABANDONED).isPresent())
                .map(FlowPartners::described).toList();
        if (!underWay.isEmpty()) {
            throw CliException.refused("the flows of " + queue + " link its jobs with those of " + String.join(", ", underWay)
                    + ", whose migration is under way and looks up " + queue + "'s branded ids in this journal: forget it once"
                    + " that migration retired (or was abandoned)");
        }
        in.confirm("forget " + queue, "deletes the journal " + journal.key() + ": `lookup`, `verify` and `drain` know the queue no"
                + " more (the v2 queue is untouched)");
        long fields = journal.unlinkIfRetired().orElseThrow(() -> CliException.refused("the journal " + journal.key()
                + " is no longer retired (a run wrote it, or it is gone, since it was read): it is kept; see `emq-migrate info`"));
        if (in.json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("queue", queue);
            doc.put("forgotten", true);
            doc.put("journalFields", fields);
            Json.print(doc, in.out());
        } else {
            in.out().println("forgot the journal of " + queue + " (" + journal.key() + ", " + fields + " fields); the v2 queue is untouched");
        }
        return ExitCodes.OK;
    }
}
