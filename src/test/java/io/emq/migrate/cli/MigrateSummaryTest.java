package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.v1.fixture.FixtureLoader;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * migrate's summary tells what this run wrote and what each queue's migration holds in v2 over all its runs, so a
 * re-run (which writes only what changed) does not read as "nothing migrated"; its total counts only the queues that
 * ended well: a refused queue's copy is named apart (operator walk F12).
 */
class MigrateSummaryTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void aRefusedQueuesCopyIsNotMovedAndAReRunShowsWhatV2Holds() throws Exception {
        new FixtureLoader(SERVER.client()).load(FixtureLoader.resource("node-5.65.1")); // orders: a job under a live lock
        String[] migrate = {"migrate", "--source", SERVER.uri(), "--all", "--drop-cron-schedulers", "--yes"};
        CliRun first = CliRun.of(migrate);
        assertEquals(ExitCodes.REFUSED, first.code(), first.all());
        assertTrue(row("bull:orders", "refused", "11 3 2 0 16").matcher(first.out()).find(), first.out());
        assertTrue(first.out().contains("3 of 4 queues done; 8 jobs moved in "), "the refused queue's 16 rows are not moved: "
                + first.out());
        assertTrue(first.out().contains("not counted, a copy until their migration finishes (a re-run resumes it, `abandon`"
                + " removes it): bull:orders (refused, 16 in v2)"), first.out());

        SERVER.client().del("bull:orders:10:lock"); // the v1 worker stopped
        CliRun again = CliRun.of(migrate);
        assertEquals(0, again.code(), again.all());
        assertTrue(row("bull:emails", "retired", "0 0 0 0 5").matcher(again.out()).find(), "retired before: " + again.out());
        assertTrue(row("bull:orders", "retired", "1 0 0 0 17").matcher(again.out()).find(), "the held job: " + again.out());
        assertTrue(again.out().contains("IN V2: the jobs the queue's migration wrote into v2 over all its runs"), again.out());
        assertTrue(again.out().contains("4 of 4 queues done; 1 jobs moved in "), again.out());

        CliRun json = CliRun.of("migrate", "--source", SERVER.uri(), "--all", "--drop-cron-schedulers", "--yes", "--json");
        Map<String, JsonNode> queues = json.queuesByV1();
        assertEquals(17, queues.get("bull:orders").path("inV2").asLong(), json.out());
        assertEquals(0, queues.get("bull:orders").path("jobs").asLong(), "this run wrote nothing: " + json.out());
    }

    /**
     * A queue migrated while v1 served writes a job again each time a pass finds v1 moved it (taken, finished, retried):
     * the run's total of jobs moved is then more than the queues hold in v2, and the total says so instead of reading
     * as jobs doubled (a probe's live run: 21,356 moved, 20,269 in v2).
     */
    @Test
    void aTotalAboveWhatV2HoldsSaysTheRestAreWritesAgainOfJobsV1Moved() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        MigrateCommand.summary(java.util.List.of(
                result("bull:a", Map.of("pending", 1_200L), 1_200, 1_000),
                result("bull:b", Map.of("pending", 300L), 300, 300)), new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        String out = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(out.contains("2 of 2 queues done; 1,500 jobs moved in 1000 ms (1500 jobs/s), 200 of them writes of jobs v1"
                + " moved while it served (written again, or finished by v1 and taken back out): the queues hold 1,300 in v2"), out);

        bytes.reset();
        MigrateCommand.summary(java.util.List.of(result("bull:b", Map.of("pending", 300L), 300, 300)),
                new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        out = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(out.contains("1 of 1 queues done; 300 jobs moved in 1000 ms (300 jobs/s)\n"), "nothing written twice: " + out);
    }

    /** Many queues re-synced without the feed for one reason (a run's feed watches its first 64): one line, not one a queue. */
    @Test
    void queuesWithoutTheFeedForOneReasonShareOneLine() {
        java.util.List<io.emq.migrate.migrate.MigrationResult> results = new java.util.ArrayList<>();
        for (int i = 1; i <= 70; i++) {
            results.add(result("bull:t" + i, Map.of("pending", 1L), 1, 1, java.util.Optional.of(i <= 64 ? "why not" : "another")));
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        MigrateCommand.summary(results, new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        String out = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(2, out.lines().filter(l -> l.contains("re-synced without the change feed")).count(), out);
        assertTrue(out.contains("bull:t1, bull:t2, bull:t3, bull:t4, bull:t5 and 59 more queues: re-synced without the change"
                + " feed (why not): each pass read every job again"), out);
        assertTrue(out.contains("bull:t65, bull:t66, bull:t67, bull:t68, bull:t69 and 1 more queue: re-synced without the change"
                + " feed (another)"), out);
    }

    private static io.emq.migrate.migrate.MigrationResult result(String v1, Map<String, Long> moved, long jobs, long inV2) {
        return result(v1, moved, jobs, inV2, java.util.Optional.empty());
    }

    private static io.emq.migrate.migrate.MigrationResult result(String v1, Map<String, Long> moved, long jobs, long inV2,
                                                                 java.util.Optional<String> withoutFeed) {
        return new io.emq.migrate.migrate.MigrationResult(v1, v1.substring(5), io.emq.migrate.migrate.MigrationResult.Outcome.RETIRED,
                moved, java.util.Optional.empty(), "", 1_000, jobs, java.util.Optional.empty(), java.util.Optional.empty(),
                withoutFeed, java.util.Optional.of(inV2));
    }

    /** A table row: the queue, its outcome, then the counts (this run's per state, then in v2), as the table aligns them. */
    private static Pattern row(String v1, String outcome, String counts) {
        return Pattern.compile("(?m)^" + Pattern.quote(v1) + "\\s+\\S+\\s+" + outcome + "\\s+" + counts.replace(" ", "\\s+") + "$");
    }
}
