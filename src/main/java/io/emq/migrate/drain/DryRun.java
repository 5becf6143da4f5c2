package io.emq.migrate.drain;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.migrate.Expectation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The drain's dry run: browses {@code pending} in serve order and the {@code schedule}, with reads
 * only, and checks them against the journal: every migrated pending or scheduled job is queued,
 * pending is in branded id order (a score other than 0 would serve a job out of turn), and each
 * migrated row carries the journaled v1 data digest and attempts. A job a drain stopped part-way served, as the journal
 * records ({@link io.emq.migrate.migrate.DrainedJobs}), is expected queued no more, and counted apart.
 */
final class DryRun {
    private static final int PAGE = 500;

    private final MigratedJobs migrated;
    private final Rows rows;
    private final Problems problems;
    private final Set<String> servedBefore;
    private final Set<String> queued = new HashSet<>();
    private long fresh;
    private long digestOk;
    private long attemptsOk;

    DryRun(MigratedJobs migrated, Rows rows, Set<String> servedBefore, Problems problems) {
        this.migrated = migrated;
        this.rows = rows;
        this.servedBefore = servedBefore;
        this.problems = problems;
    }

    List<Check> judge() {
        long outOfOrder = 0;
        for (String pending : rows.pending()) { // serve order holds within each lane
            outOfOrder += browse(pending, true);
        }
        long scheduledQueued = queued.size();
        browse(rows.keys().schedule(), false);
        scheduledQueued = queued.size() - scheduledQueued;
        long[] earlier = {0};
        migrated.all().forEach((id, e) -> {
            if ((e.is(V2State.PENDING) || e.is(V2State.SCHEDULED)) && !queued.contains(id)) {
                if (servedBefore.contains(id)) {
                    earlier[0]++;
                } else {
                    problems.add(() -> describe(id, e) + ": in neither pending nor schedule");
                }
            }
        });
        long expectedQueued = migrated.count(V2State.PENDING) + migrated.count(V2State.SCHEDULED) - earlier[0];
        List<Check> checks = new ArrayList<>();
        checks.add(Check.of("migrated jobs queued (pending or scheduled)", expectedQueued, queued.size()));
        checks.addAll(DrainVerdict.servedBefore(earlier[0]));
        checks.add(new Check("pending in migrated serve order", "0 out of order", outOfOrder + " out of order",
                outOfOrder == 0 ? Check.Outcome.PASS : Check.Outcome.FAIL));
        checks.add(Check.of("payload carries the v1 data (sha256)", queued.size(), digestOk));
        checks.add(Check.of("attempts as migrated (nothing claimed yet)", queued.size(), attemptsOk));
        checks.add(new Check("fresh v2 jobs (not migrated) queued", "-", Long.toString(fresh), Check.Outcome.INFO));
        checks.add(Check.info("migrated jobs in the schedule", migrated.count(V2State.SCHEDULED), scheduledQueued));
        checks.addAll(DrainVerdict.leftAlone(migrated, rows));
        return checks;
    }

    /** Checks every member of one set, page by page; returns the descents in id order when asked to look. */
    private long browse(String setKey, boolean ordered) {
        long descents = 0;
        String last = null;
        for (long from = 0; ; from += PAGE) {
            List<Map.Entry<byte[], Double>> page = rows.page(setKey, from, PAGE);
            List<String> journaled = new ArrayList<>();
            for (Map.Entry<byte[], Double> member : page) {
                String id = Rows.text(member.getKey());
                double score = member.getValue();
                if (ordered && last != null && id.compareTo(last) < 0) {
                    descents++;
                    String before = last;
                    problems.add(() -> id + " (v1 " + migrated.v1Id(id) + ") is served after " + before
                            + ": pending score " + score + " puts it out of the migrated serve order");
                }
                last = id;
                if (migrated.expected(id).isPresent()) {
                    journaled.add(id);
                } else {
                    fresh++;
                }
            }
            check(journaled);
            if (page.size() < PAGE) {
                return descents;
            }
        }
    }

    private void check(List<String> ids) {
        Map<String, List<byte[]>> fields = rows.fields(ids, "payload", "attempts");
        for (String id : ids) {
            Expectation want = migrated.expected(id).orElseThrow();
            queued.add(id);
            List<byte[]> f = fields.get(id);
            Optional<String> digest = f.get(0) == null ? Optional.of("row has no payload")
                    : migrated.digestProblem(want, f.get(0));
            if (digest.isEmpty()) {
                digestOk++;
            } else {
                problems.add(() -> describe(id, want) + ": " + digest.get());
            }
            String attempts = Rows.text(f.get(1));
            if (Long.toString(want.attempts()).equals(attempts)) {
                attemptsOk++;
            } else {
                problems.add(() -> describe(id, want) + ": attempts " + attempts + ", migrated with " + want.attempts());
            }
        }
    }

    private String describe(String id, Expectation want) {
        return id + " (v1 " + migrated.v1Id(id) + ", " + want.state() + ")";
    }
}
