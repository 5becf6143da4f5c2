package io.emq.migrate.cli;

import io.emq.migrate.drain.Check;
import io.emq.migrate.drain.DrainReport;
import io.emq.migrate.runtime.ConsumerStats;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How {@code drain} shows a {@link DrainReport}: text tables, one JSON document, or an HTML page. */
final class DrainOutput {
    private DrainOutput() {
    }

    static void text(DrainReport r, String handler, PrintStream out) {
        if (r.dryRun()) {
            out.println("dry run of " + r.queue() + " against its journal: reads only, nothing claimed");
        }
        r.stats().ifPresent(s -> out.println(summary(r.queue(), s)));
        out.println();
        Table states = new Table("STATE", r.dryRun() ? "JOURNAL" : "BEFORE", r.dryRun() ? "NOW" : "AFTER");
        stateRows(r).forEach(row -> states.row(row.toArray()));
        states.print(out);
        if (!verdictApplies(r, handler)) {
            if (DrainCommand.exitCode(r, handler) != ExitCodes.OK) {
                out.println();
                out.println("the handler failed jobs until they went dead (" + r.stats().map(ConsumerStats::dead).orElse(0L)
                        + " dead): exit 3; the queue's dead zset holds them, each with its last error");
            }
            return;
        }
        out.println();
        Table checks = new Table("CHECK", "EXPECTED", "FOUND", "OK");
        r.checks().forEach(c -> checks.row(c.name(), c.expected(), c.found(), c.ok()));
        checks.print(out);
        if (r.problemCount() > 0) {
            out.println();
            out.println("problems (" + (r.problemCount() > r.problems().size()
                    ? "first " + r.problems().size() + " of " + r.problemCount() : Long.toString(r.problemCount())) + "):");
            r.problems().forEach(p -> out.println("  " + p));
        }
        out.println();
        out.println(verdict(r));
    }

    /** State, before (or "-" where the journal has no figure), after. */
    private static List<List<String>> stateRows(DrainReport r) {
        List<List<String>> rows = new ArrayList<>();
        r.after().forEach((state, n) -> rows.add(List.of(state,
                r.before().containsKey(state) ? Long.toString(r.before().get(state)) : "-", Long.toString(n))));
        return rows;
    }

    static String summary(String queue, ConsumerStats s) {
        return String.format(Locale.ROOT, "drained %s in %d ms: %d claimed, %d completed, %d retried, %d dead,"
                        + " %d stale refused, %d gone (%.0f jobs/s)", queue, s.elapsed().toMillis(), s.claimed(),
                s.completed(), s.retried(), s.dead(), s.staleRefused(), s.gone(), s.jobsPerSecond());
    }

    static String verdict(DrainReport r) {
        if (r.passed()) {
            return r.dryRun() ? "verdict: PASS: every migrated job is queued in serve order with its v1 data and attempts"
                    + " (dry run: nothing was claimed)"
                    : "verdict: PASS: every migrated job was served once, in serve order, with its v1 data and attempts";
        }
        long failed = r.checks().stream().filter(Check::failed).count();
        return "verdict: FAIL: " + failed + " check" + (failed == 1 ? "" : "s") + " did not match the journal";
    }

    /** The verdict judges a validate drain or a dry run; exec and noop drains report figures only. */
    static boolean verdictApplies(DrainReport r, String handler) {
        return r.dryRun() || handler.equals("validate");
    }

    static Map<String, Object> json(DrainReport r, String handler, String target) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", r.queue());
        m.put("target", target);
        m.put("mode", r.dryRun() ? "dry-run" : "drain");
        m.put("handler", r.dryRun() ? null : handler);
        m.put("workers", r.dryRun() ? null : r.workers());
        m.put("before", r.before());
        m.put("after", r.after());
        r.stats().ifPresent(s -> {
            Map<String, Object> st = new LinkedHashMap<>();
            st.put("claimed", s.claimed());
            st.put("completed", s.completed());
            st.put("retried", s.retried());
            st.put("dead", s.dead());
            st.put("staleRefused", s.staleRefused());
            st.put("gone", s.gone());
            st.put("leaseLost", s.leaseLost());
            st.put("errors", s.errors());
            st.put("millis", s.elapsed().toMillis());
            st.put("jobsPerSecond", Math.round(s.jobsPerSecond()));
            m.put("stats", st);
        });
        if (verdictApplies(r, handler)) {
            List<Map<String, Object>> checks = new ArrayList<>();
            for (Check c : r.checks()) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("check", c.name());
                row.put("expected", c.expected());
                row.put("found", c.found());
                row.put("outcome", c.outcome().name().toLowerCase(Locale.ROOT));
                checks.add(row);
            }
            m.put("checks", checks);
            m.put("problems", r.problems());
            m.put("problemCount", r.problemCount());
            m.put("passed", r.passed());
        }
        return m;
    }

    static void html(DrainReport r, String handler, String target, Path file) {
        HtmlReport page = new HtmlReport("emq-migrate drain" + (r.dryRun() ? " --dry-run" : "") + ": " + r.queue());
        page.paragraph("target " + target + (r.dryRun() ? "; dry run, nothing claimed"
                : "; handler " + handler + ", " + r.workers() + " worker" + (r.workers() == 1 ? "" : "s")));
        r.stats().ifPresent(s -> page.paragraph(summary(r.queue(), s)));
        page.section("Jobs per state");
        page.chart(new ArrayList<>(r.before().keySet()), r.beforeLabel(), r.before(), r.afterLabel(), r.after());
        page.table(List.of("STATE", r.beforeLabel(), r.afterLabel()), stateRows(r));
        if (verdictApplies(r, handler)) {
            page.section("Verdict");
            List<List<String>> rows = new ArrayList<>();
            r.checks().forEach(c -> rows.add(List.of(c.name(), c.expected(), c.found(), c.ok())));
            page.table(List.of("CHECK", "EXPECTED", "FOUND", "OK"), rows);
            if (!r.problems().isEmpty()) {
                page.paragraph(r.problemCount() + " problem" + (r.problemCount() == 1 ? "" : "s")
                        + (r.problemCount() > r.problems().size() ? ", the first " + r.problems().size() + ":" : ":"));
                page.preformatted(r.problems());
            }
            page.verdict(verdict(r), r.passed());
        }
        page.write(file);
    }
}
