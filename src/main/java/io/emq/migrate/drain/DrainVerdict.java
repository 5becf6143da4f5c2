package io.emq.migrate.drain;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.migrate.Expectation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges a finished drain against the journal. Every migrated job that was pending, or scheduled
 * and claimed (promoted when due) or gone from the schedule, must have been claimed and completed
 * exactly once; migrated pending jobs must have been claimed in branded id order (= the migrated
 * serve order) by each worker, within each lane when the drain claimed through the lanes; each first claim must carry the journaled v1 data digest and
 * attempts one above the v1 count; every settlement superseded by a re-claim must have been
 * refused. A job an earlier drain stopped part-way served, as the journal records ({@link
 * io.emq.migrate.migrate.DrainedJobs}), counts as claimed and completed once as expected by that drain; serve order is
 * judged within this drain. Scheduled jobs still waiting, dead jobs and flow parents are reported as figures.
 */
final class DrainVerdict {
    private final MigratedJobs migrated;
    private final DrainLedger ledger;
    private final Set<String> servedBefore;
    private final Rows rows;
    private final Problems problems;

    DrainVerdict(MigratedJobs migrated, DrainLedger ledger, Set<String> servedBefore, Rows rows, Problems problems) {
        this.migrated = migrated;
        this.ledger = ledger;
        this.servedBefore = servedBefore;
        this.rows = rows;
        this.problems = problems;
    }

    List<Check> judge(int workers, boolean lanes) {
        Map<String, DrainLedger.Entry> seen = ledger.entries();
        List<String> toDrain = new ArrayList<>();
        List<String> unclaimedScheduled = new ArrayList<>();
        migrated.all().forEach((id, e) -> {
            if (e.is(V2State.PENDING)) {
                toDrain.add(id);
            } else if (e.is(V2State.SCHEDULED)) {
                (seen.containsKey(id) ? toDrain : unclaimedScheduled).add(id);
            }
        });
        Map<String, Double> stillScheduled = rows.scores(rows.keys().schedule(), unclaimedScheduled);
        unclaimedScheduled.stream().filter(id -> !stillScheduled.containsKey(id)).forEach(toDrain::add);
        toDrain.sort(Comparator.naturalOrder());

        long claimed = 0;
        long completedOnce = 0;
        long digestOk = 0;
        long attemptsOk = 0;
        long superseded = 0;
        long refused = 0;
        long earlier = 0;
        for (String id : toDrain) {
            Expectation want = migrated.expected(id).orElseThrow();
            DrainLedger.Entry e = seen.get(id);
            boolean before = servedBefore.contains(id);
            if (e == null && before) {
                earlier++;
                continue;
            }
            if (e == null) {
                problems.add(() -> describe(id, want) + ": never claimed (its row is "
                        + (rows.fields(List.of(id), "state").get(id).get(0) == null ? "gone" : "still there") + ")");
                continue;
            }
            claimed++;
            superseded += e.claims - 1;
            refused += e.refused;
            int completions = e.completions + (before ? 1 : 0);
            if (completions == 1) {
                completedOnce++;
            } else {
                problems.add(() -> describe(id, want) + ": completed " + completions + " times"
                        + (before ? " (once by an earlier drain, stopped part-way)" : ""));
            }
            if (e.first.digestProblem().isEmpty()) {
                digestOk++;
            } else {
                problems.add(() -> describe(id, want) + ": " + e.first.digestProblem().get());
            }
            if (e.first.attempts() == want.attempts() + 1) {
                attemptsOk++;
            } else {
                problems.add(() -> describe(id, want) + ": first claim read attempts " + e.first.attempts()
                        + ", expected " + (want.attempts() + 1) + " (v1 attempts " + want.attempts() + " + 1)");
            }
        }
        long outOfOrder = outOfOrder(seen);

        List<Check> checks = new ArrayList<>();
        checks.add(Check.of("migrated jobs claimed", toDrain.size(), claimed + earlier));
        checks.add(Check.of("completed exactly once", toDrain.size(), completedOnce + earlier));
        String order = (workers == 1 ? "claimed in migrated serve order" : "claimed in serve order, per worker")
                + (lanes ? (workers == 1 ? ", per lane" : " and lane") : "");
        checks.add(new Check(order,
                "0 out of order", outOfOrder + " out of order", outOfOrder == 0 ? Check.Outcome.PASS : Check.Outcome.FAIL));
        checks.add(Check.of("payload carries the v1 data (sha256)", claimed + earlier, digestOk + earlier));
        checks.add(Check.of("attempts continue the v1 count", claimed + earlier, attemptsOk + earlier));
        checks.add(Check.of("stale settlements refused", superseded, refused));
        checks.addAll(servedBefore(earlier));
        checks.add(Check.info("fresh v2 jobs (not migrated) completed", ledger.freshClaimed.sum(), ledger.freshCompleted.sum()));
        checks.add(new Check("scheduled for later, not waited for", "-", Long.toString(stillScheduled.size()),
                Check.Outcome.INFO));
        checks.addAll(leftAlone(migrated, rows));
        return checks;
    }

    /** The row telling how many jobs drains stopped part-way served ({@link io.emq.migrate.migrate.DrainedJobs}); none when none. */
    static List<Check> servedBefore(long earlier) {
        return earlier == 0 ? List.of()
                : List.of(new Check("served by earlier drains stopped part-way", "-", Long.toString(earlier), Check.Outcome.INFO));
    }

    /** Figures for the migrated jobs no drain serves: dead jobs, and flow parents waiting for children. */
    static List<Check> leftAlone(MigratedJobs migrated, Rows rows) {
        List<String> dead = new ArrayList<>();
        List<String> parents = new ArrayList<>();
        migrated.all().forEach((id, e) -> {
            if (e.is(V2State.DEAD)) {
                dead.add(id);
            } else if (e.is(V2State.AWAITING_CHILDREN)) {
                parents.add(id);
            }
        });
        long inDead = rows.scores(rows.keys().dead(), dead).size();
        long awaiting = rows.fields(parents, "state").values().stream()
                .filter(f -> V2State.AWAITING_CHILDREN.wireName().equals(Rows.text(f.get(0)))).count();
        return List.of(Check.info("dead jobs left in the dead set", dead.size(), inDead),
                Check.info("flow parents awaiting children", parents.size(), awaiting));
    }

    /**
     * Descents in the branded ids of the first claims of migrated pending jobs by each worker from each
     * lane (the flat pending set is lane {@code ""}); 0 when in serve order.
     */
    private long outOfOrder(Map<String, DrainLedger.Entry> seen) {
        List<Map.Entry<String, DrainLedger.FirstClaim>> firsts = new ArrayList<>();
        seen.forEach((id, e) -> {
            if (migrated.expected(id).map(x -> x.is(V2State.PENDING)).orElse(false)) {
                firsts.add(Map.entry(id, e.first));
            }
        });
        firsts.sort(Comparator.comparingLong(f -> f.getValue().seq()));
        Map<String, String> last = new HashMap<>();
        long n = 0;
        for (Map.Entry<String, DrainLedger.FirstClaim> f : firsts) {
            String id = f.getKey();
            int worker = f.getValue().worker();
            String lane = f.getValue().lane();
            String server = worker + "/" + lane;
            String before = last.get(server);
            if (before != null && id.compareTo(before) < 0) {
                n++;
                problems.add(() -> describe(id, migrated.expected(id).orElseThrow()) + ": claimed after " + before
                        + " (v1 " + migrated.v1Id(before) + ") by worker " + worker + (lane.isEmpty() ? "" : " from lane " + lane)
                        + ", but the migrated serve order puts it first: one of the two was served out of turn");
            }
            last.put(server, id);
        }
        return n;
    }

    private String describe(String id, Expectation want) {
        return id + " (v1 " + migrated.v1Id(id) + ", " + want.state() + ")";
    }
}
