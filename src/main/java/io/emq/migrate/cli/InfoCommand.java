package io.emq.migrate.cli;

import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.migrate.StepCatalog;
import io.emq.migrate.migrate.StepStatus;
import io.emq.migrate.migrate.UnwrittenJournal;
import io.emq.migrate.payload.PayloadPolicy;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.commons.cli.Options;

/** {@code emq-migrate info --target URI [--queue Q]}: each queue's state and steps, like {@code flyway info}. Reads only. */
final class InfoCommand implements Command {
    public void options(Options options) {
        options.addOption(Cli.valued("queue", "Q", "one v2 queue (default: every queue with a journal)"));
    }

    public int run(Invocation in) {
        Migrated.Selection selected = Migrated.select(in, true);
        List<Map<String, Object>> docs = new ArrayList<>();
        StaleCopy staleCopies = new StaleCopy(in);
        for (String q : selected.queues()) {
            Journal journal = new Journal(selected.target(), q);
            List<StepStatus> steps = StepStatus.of(StepCatalog.load(), journal.history().rows());
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("name", q);
            doc.put("state", journal.header().get(JournalHeader.STATE).map(MigrationState::wireName).orElse("none"));
            doc.put("source", journal.header().get(JournalHeader.V1_QUEUE).orElse(null));
            doc.put("sourceServer", journal.header().get(JournalHeader.SOURCE).orElse(null));
            doc.put("policy", journal.header().get(JournalHeader.POLICY).map(PayloadPolicy::wireName).orElse(null));
            doc.put("hwm", journal.ids().highWaterMark());
            doc.put("orderDrift", journal.header().get(JournalHeader.ORDER_DRIFT).orElse(null));
            Optional<Journal.LeaseHeld> lease = journal.leaseHeld();
            doc.put("leaseOwner", lease.map(Journal.LeaseHeld::owner).orElse(null));
            doc.put("leaseUntilMs", lease.map(Journal.LeaseHeld::untilMs).orElse(null));
            doc.put("wroteNothing", UnwrittenJournal.left(selected.target(), journal));
            StaleCopy.Check stale = staleCopies.of(journal);
            doc.put("staleCopy", stale.unchecked().isPresent() ? null : stale.stale());
            doc.put("staleCopyUnchecked", stale.unchecked().orElse(null));
            doc.put("staleCopyRefusal", stale.refusal().orElse(null));
            doc.put("steps", steps.stream().map(InfoCommand::step).toList());
            docs.add(doc);
            if (!in.json()) {
                print(doc, steps, in.out());
            }
        }
        if (in.json()) {
            Json.print(Map.of("queues", docs), in.out());
        } else if (docs.isEmpty()) {
            in.out().println("no migration journals on this target: no queue was migrated here yet");
        }
        return ExitCodes.OK;
    }

    private static Map<String, Object> step(StepStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", s.version());
        m.put("description", s.description());
        m.put("summary", s.summary());
        m.put("status", s.status().wireName());
        s.row().ifPresent(r -> {
            m.put("installedOn", r.installedOn());
            m.put("installedBy", r.installedBy());
            m.put("executionMs", r.executionMs());
            m.put("checksum", r.checksum());
            m.put("counts", new TreeMap<>(r.counts()));
            if (r.error() != null) {
                m.put("error", r.error());
            }
        });
        return m;
    }

    private static void print(Map<String, Object> doc, List<StepStatus> steps, PrintStream out) {
        out.printf("queue %s  state %s  source %s on %s  payload %s  ids minted %s%n", doc.get("name"), doc.get("state"),
                shown(doc.get("source")), shown(doc.get("sourceServer")), shown(doc.get("policy")), doc.get("hwm"));
        if (doc.get("wroteNothing").equals(true)) {
            out.println("no step applied: " + Migrated.unwritten());
        } else if (doc.get("state").equals(MigrationState.PLANNED.wireName()) || doc.get("state").equals(MigrationState.RUNNING.wireName())) {
            out.println(doc.get("leaseOwner") instanceof String owner ? "lease held by " + owner + " until " + java.time.Instant
                    .ofEpochMilli((Long) doc.get("leaseUntilMs")) + " (server time): a run is under way, or one stopped and its"
                    + " lease lapses then" : "no run holds its lease: the last run stopped (refused, failed or interrupted);"
                    + " `migrate` again resumes it, `abandon` gives v1 back");
        }
        if (doc.get("staleCopyRefusal") instanceof String refusal) {
            out.println("STALE COPY: " + refusal);
        } else if (doc.get("staleCopyUnchecked") instanceof String why) {
            out.println("not checked whether another migration retired the v1 queue since this one stopped: " + why);
        }
        Table t = new Table("VERSION", "DESCRIPTION", "STATUS", "INSTALLED ON", "MS", "COUNTS");
        for (StepStatus s : steps) {
            t.row("V" + s.version(), s.description(), s.status().wireName(), s.row().map(r -> r.installedOn()).orElse(null),
                    s.row().map(r -> r.executionMs()).orElse(null),
                    s.row().map(r -> r.error() != null ? r.error() : Table.counts(r.counts())).orElse(null));
        }
        t.print(out);
        if (doc.get("orderDrift") instanceof String drift && !drift.isEmpty()) {
            out.println("v2 holds jobs v1 moved while it served in another order than v1's: " + drift);
        }
        out.println();
    }

    /** A header field as the text report shows it: {@code -} for one the journal has not recorded (a run stopped before). */
    private static Object shown(Object value) {
        return value == null ? "-" : value;
    }
}
