package io.emq.migrate.cli;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.migrate.SourceServer;
import io.emq.migrate.migrate.StepCatalog;
import io.emq.migrate.migrate.StepStatus;
import io.emq.migrate.migrate.Verifier;
import io.emq.migrate.v1.Discovery;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.v1.plan.Planner;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.commons.cli.Options;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code emq-migrate verify --source URI --target URI --queue Q [--json]}: re-checks a migrated queue
 * with reads only: counts per structure, a digest per job (payload bytes, attempts, state), every
 * written key parses; and, while the v1 source still exists, every v1 job has its row; once it is retired, that v1
 * lists no job there (a writer that does not INCR the add counter may add some after the tombstone).
 */
final class VerifyCommand implements Command {
    public void options(Options options) {
        options.addOption(null, "accept-anomalies", false, "as given to migrate: orphan hashes were migrated")
                .addOption(Cli.valued("queue", "Q", "the v2 queue"));
    }

    public int run(Invocation in) {
        String queue = in.queue();
        Optional<Endpoint> source = in.endpoint(Side.SOURCE);
        Wire wire = in.readableTarget(in.require(Side.TARGET));
        Journal journal = Migrated.journal(wire, queue);
        MigrationOptions migrated = MigrationOptions.defaults().withAcceptAnomalies(in.has("accept-anomalies"));
        Optional<QueueSnapshot> snapshot = Optional.empty();
        boolean retired = journal.header().get(JournalHeader.STATE).map(s -> s == MigrationState.RETIRED).orElse(false);
        StaleCopy.Check stale = new StaleCopy(in).of(journal);
        if (stale.stale()) {
            throw CliException.refused(stale.refusal().get());
        }
        stale.unchecked().ifPresent(why -> in.note("emq-migrate verify: not checked whether another migration retired the v1 queue"
                + " since this one stopped (its copy would then be stale): " + why));
        if (source.isPresent() && journal.header().get(JournalHeader.V1_PREFIX).isPresent()) {
            UnifiedJedis client = in.open(source.get(), Side.SOURCE, 8);
            refuseOtherData(client, source.get(), journal);
            QueueSnapshot v1 = snapshot(client, journal);
            if (!retired) {
                snapshot = Optional.of(v1);
            } else if (v1.retired()) { // jobs a writer added since the retirement: v2 lacks them, and nothing serves them
                Planner.stranded(v1, Optional.of(queue)).ifPresent(stranded -> {
                    throw CliException.refused("queue " + v1.queue().display() + " is refused: " + stranded);
                });
            } else { // listed again without the tombstone: a restored backup serves them beside v2
                Planner.restored(v1, queue).ifPresent(restored -> {
                    throw CliException.refused("queue " + v1.queue().display() + " is refused: " + restored);
                });
            }
        }
        Verifier verifier = new Verifier(wire, queue);
        Verifier.Report report = verifier.verify(snapshot, migrated);
        Optional<String> unfinished = unfinished(journal);
        Optional<Long> completed = retired && report.onlyRowsGone() ? Optional.of(verifier.completedSinceMigration()) : Optional.empty();
        boolean served = completed.filter(m -> report.rowsMissing() <= m).isPresent();
        print(report, unfinished, completed, served, snapshot.isPresent(), retired, in.json(), in.out());
        return (report.passed() || served) && unfinished.isEmpty() ? ExitCodes.OK : ExitCodes.REFUSED;
    }

    /**
     * What a retired queue whose only problems are rows gone ({@link Verifier.Report#onlyRowsGone}) says of them, with
     * the jobs its v2 queue completed since the migration: served, when those are no fewer than the rows gone.
     */
    private static String gone(Verifier.Report r, long completed) {
        return Sizes.count(r.rowsMissing()) + " rows the migration wrote are gone, and the v2 queue completed "
                + Sizes.count(completed) + " jobs since its migration (beyond v1's completed jobs it counted in)"
                + (r.rowsMissing() <= completed ? ": served, as a drain or a consumer does; every row it still holds matches the"
                + " journal (verify checks the copy as migrated: once v2 serves it, drain's verdict is the check)"
                : ": fewer than are gone");
    }

    /**
     * Why the queue's copy is not yet one a verification may call verified, in an operator's words: its migration has
     * not reached verified (in flight, or stopped before: killed, refused, failed), so the rows found are only those
     * copied so far; empty once it did.
     */
    private static Optional<String> unfinished(Journal journal) {
        Optional<MigrationState> state = journal.header().get(JournalHeader.STATE);
        if (state.isPresent() && state.get() != MigrationState.PLANNED && state.get() != MigrationState.RUNNING) {
            return Optional.empty();
        }
        String next = StepStatus.of(StepCatalog.load(), journal.history().rows()).stream()
                .filter(s -> s.status() != StepStatus.Status.SUCCESS).findFirst()
                .map(s -> "; step V" + s.version() + " (" + s.description() + ") is " + s.status().wireName()).orElse("");
        return Optional.of("its migration has not verified yet (journal state " + state.map(MigrationState::wireName).orElse("none")
                + next + "), so only the jobs copied so far were checked: run migrate again to finish it");
    }

    /**
     * Refuses a {@code --source} that neither is the v1 server the migration began from nor holds its data (its master,
     * a replica, the replica that replaced it, in the same database: {@link SourceServer#holdsDataOf}): another server's
     * queue of the same name, compared with this migration's copy, would read as jobs lost.
     */
    private static void refuseOtherData(UnifiedJedis client, Endpoint source, Journal journal) {
        JournalHeader header = journal.header();
        QueueRef queue = QueueRef.of(header.get(JournalHeader.V1_PREFIX).orElseThrow(), header.get(JournalHeader.V1_NAME).orElseThrow());
        Optional<String> began = header.get(JournalHeader.SOURCE);
        if (began.isPresent() && !SourceServer.of(Wire.unfenced(client), source.describe()).holdsDataOf(queue, began,
                header.get(JournalHeader.SOURCE_REPLID))) {
            throw CliException.refused("--source names " + source.describe() + ", which is neither the v1 server the migration of '"
                    + journal.queue() + "' began from (" + began.get() + ") nor one holding its data (its master or a replica,"
                    + " in the same database): verify compares v1 with that server; give --source " + began.get()
                    + ", or none to check the copy alone");
        }
    }

    private static QueueSnapshot snapshot(UnifiedJedis client, Journal journal) {
        String prefix = journal.header().get(JournalHeader.V1_PREFIX).orElseThrow();
        QueueRef queue = QueueRef.of(prefix, journal.header().get(JournalHeader.V1_NAME).orElseThrow());
        List<QueueRef> all = new Discovery(client).discover(List.of(prefix)).queues();
        return new QueueSnapshotReader(client, new QueueBases(all)).read(queue);
    }

    /** {@code served}: the only problems are rows gone, no more than the jobs {@code completed} since the migration. */
    private static void print(Verifier.Report r, Optional<String> unfinished, Optional<Long> completed, boolean served,
                              boolean sourceChecked, boolean retired, boolean json, PrintStream out) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("name", r.queue());
            doc.put("passed", (r.passed() || served) && unfinished.isEmpty());
            doc.put("servedSinceMigration", completed.map(m -> gone(r, m)).orElse(null));
            doc.put("unfinished", unfinished.orElse(null));
            doc.put("expected", new TreeMap<>(r.expected()));
            doc.put("found", new TreeMap<>(r.found()));
            doc.put("jobsChecked", r.jobsChecked());
            doc.put("keysChecked", r.keysChecked());
            doc.put("sourceChecked", sourceChecked);
            doc.put("problems", r.problems());
            doc.put("problemCount", r.problemCount());
            Json.print(doc, out);
            return;
        }
        Table t = new Table("STRUCTURE", "JOURNAL", "FOUND");
        for (String s : V2State.MIGRATED.stream().map(V2State::wireName).toList()) {
            t.row(s, r.expected().getOrDefault(s, 0L), r.found().getOrDefault(s, r.expected().getOrDefault(s, 0L)));
        }
        t.print(out);
        out.printf("%d jobs checked (state, attempts, payload digest, listing and its score), %d keys parsed; source %s%n", r.jobsChecked(),
                r.keysChecked(), sourceChecked ? "compared" : retired ? "retired (not compared)" : "not given");
        if (served) {
            out.println("VERIFIED " + r.queue() + ": " + gone(r, completed.get()));
            return;
        }
        r.problems().forEach(p -> out.println("  PROBLEM " + p));
        if (!r.passed()) {
            out.println("FAILED " + r.queue() + ": " + r.problemCount() + " problems" + unfinished.map(why -> "; " + why).orElse("")
                    + completed.map(m -> "; " + gone(r, m)).orElse(""));
        } else {
            out.println(unfinished.map(why -> "UNFINISHED " + r.queue() + ": " + why).orElse("VERIFIED " + r.queue()));
        }
    }
}
