package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.testing.Monitor;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The copy (V30) and the log copy (V90) of a queue whose key scan (V10) met no logs list or flow key ask
 * the source nothing about them, and the first copy asks the journal no expectation: a log pushed after
 * the scan, before or after the copy read its job, is still copied (the catch-up copies the job again),
 * and a re-run after a crash in the copy still guards the rows the journal expected.
 */
class ScannedExtrasTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "extras";
    static final int JOBS = 300; // two batches of the copy
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    private final Set<String> added = new TreeSet<>();

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, JOBS, 100);
        LongStream.rangeClosed(1, JOBS).forEach(n -> added.add(Long.toString(n)));
    }

    private UnifiedJedis client() {
        return SERVER.client();
    }

    private List<MigrationResult> migrate(Checkpoints.Observer observer) {
        return MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed(observer), List.of("bull"));
    }

    @Test
    void logsPushedAfterTheScanBeforeOrAfterTheCopyReadTheirJobAreCopied() {
        boolean[] pushedInCopy = {false};
        MigrationResult r = migrate((version, where) -> {
            if (version == 10 && where.equals("read checked")) {
                client().rpush("bull:" + QUEUE + ":5:logs", "after the scan, before the copy");
            }
            if (version == 30 && where.equals("rows written") && !pushedInCopy[0]) {
                pushedInCopy[0] = true;
                client().rpush("bull:" + QUEUE + ":290:logs", "while the copy runs");
            }
            if (version == 80) {
                client().rpush("bull:" + QUEUE + ":7:logs", "after the copy");
            }
        }).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true), r.toString());
        assertEquals(List.of("after the scan, before the copy"), LiveV1.v2Logs(SERVER.client(), QUEUE, "5"));
        assertEquals(List.of("while the copy runs"), LiveV1.v2Logs(SERVER.client(), QUEUE, "290"));
        assertEquals(List.of("after the copy"), LiveV1.v2Logs(SERVER.client(), QUEUE, "7"));
        assertEquals(List.of(), LiveV1.v2Logs(SERVER.client(), QUEUE, "6"));
    }

    @Test
    void theCopyOfAQueueWithoutLogsAsksNeitherForLogsNorForExpectations() throws Exception {
        List<String> commands = new CopyOnWriteArrayList<>();
        MigrationResult r;
        try (Monitor monitor = new Monitor(SERVER.node(SERVER.nodes().get(0)), commands::add);
             Jedis marker = SERVER.node(SERVER.nodes().get(0))) {
            Thread.sleep(200);
            r = migrate((version, where) -> marker.echo("checkpoint " + version)).get(0);
            Monitor.awaitShown(marker, commands, "migrated");
        }
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        int from = lastIndexOf(commands, "\"checkpoint 20\"");
        int to = commands.indexOf(commands.stream().filter(c -> c.contains("\"checkpoint 100\"")).findFirst().orElseThrow());
        List<String> copy = new ArrayList<>(commands.subList(from, to)); // V30 to V90
        assertEquals(JOBS, copy.stream().filter(c -> c.matches(".*\"HGETALL\" \"bull:" + QUEUE + ":\\d+\".*")).count(),
                "every job read in the window: " + copy.size() + " commands");
        assertEquals(0, copy.stream().filter(c -> c.contains(":logs\"") && !c.contains(" lua]")).count(),
                "no logs key asked of the source");
        assertEquals(0, copy.stream().filter(c -> c.contains("\"HMGET\"") && c.contains("\"r:")).count(),
                "no expectation asked of the journal");
    }

    /**
     * A queue whose scan met logs lists (of jobs 10 and 200): the copy reads those two jobs by the script and the others
     * plainly, asking no job whether it has logs or flow keys, and the log copy asks for those two jobs' logs only; logs
     * pushed later are still copied.
     */
    @Test
    void theCopyOfAQueueWithLogsListsReadsTheJobsTheScanMetOneOfByTheScriptAndAsksNoOther() throws Exception {
        client().rpush("bull:" + QUEUE + ":10:logs", "before the scan");
        client().rpush("bull:" + QUEUE + ":200:logs", "before the scan too");
        List<String> commands = new CopyOnWriteArrayList<>();
        MigrationResult r;
        try (Monitor monitor = new Monitor(SERVER.node(SERVER.nodes().get(0)), commands::add);
             Jedis marker = SERVER.node(SERVER.nodes().get(0))) {
            Thread.sleep(200);
            r = migrate((version, where) -> {
                marker.echo("checkpoint " + version);
                if (version == 10 && where.equals("read checked")) {
                    client().rpush("bull:" + QUEUE + ":5:logs", "after the scan, before the copy");
                }
                if (version == 80) {
                    client().rpush("bull:" + QUEUE + ":7:logs", "after the copy");
                }
            }).get(0);
            Monitor.awaitShown(marker, commands, "migrated");
        }
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.problems(client(), QUEUE, added, Set.of(), true), r.toString());
        assertEquals(List.of("before the scan"), LiveV1.v2Logs(SERVER.client(), QUEUE, "10"));
        assertEquals(List.of("before the scan too"), LiveV1.v2Logs(SERVER.client(), QUEUE, "200"));
        assertEquals(List.of("after the scan, before the copy"), LiveV1.v2Logs(SERVER.client(), QUEUE, "5"));
        assertEquals(List.of("after the copy"), LiveV1.v2Logs(SERVER.client(), QUEUE, "7"));
        assertEquals(List.of(), LiveV1.v2Logs(SERVER.client(), QUEUE, "6"));
        int from = lastIndexOf(commands, "\"checkpoint 20\"");
        int to = commands.indexOf(commands.stream().filter(c -> c.contains("\"checkpoint 100\"")).findFirst().orElseThrow());
        List<String> copy = new ArrayList<>(commands.subList(from, to)); // V30 to V90
        assertEquals(0, copy.stream().filter(c -> c.contains("\"EXISTS\"") && c.contains(":dependencies\"") && !c.contains(" lua]")).count(),
                "no job asked whether it has logs or flow keys: " + copy.stream().filter(c -> c.contains("\"EXISTS\"")).filter(c -> !c.contains(" lua]")).limit(3).toList());
        assertEquals(JOBS - 2, copy.stream().filter(c -> !c.contains(" lua]") && c.matches(".*\"HGETALL\" \"bull:" + QUEUE + ":\\d+\".*")).count(),
                "every job but the two read plainly");
        Set<String> logsAsked = new TreeSet<>(); // the jobs whose logs key a command of the copy names (the test's pushes aside)
        copy.stream().filter(c -> !c.contains(" lua]") && !c.contains("\"RPUSH\" \"bull:")).forEach(c -> {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"bull:" + QUEUE + ":(\\d+):logs\"").matcher(c);
            while (m.find()) {
                logsAsked.add(m.group(1));
            }
        });
        assertEquals(Set.of("10", "200"), logsAsked, "the copy and the log copy ask for the logs of no job but the two the scan met");
    }

    private static int lastIndexOf(List<String> commands, String text) {
        for (int i = commands.size() - 1; i >= 0; i--) {
            if (commands.get(i).contains(text)) {
                return i;
            }
        }
        throw new AssertionError("no " + text);
    }

    @Test
    void aReRunAfterACrashInTheCopyStillGuardsTheRowsTheJournalExpected() {
        MigrationResult crashed = migrate((version, where) -> {
            if (version == 30 && where.equals("expectations recorded")) {
                throw new IllegalStateException("crash after the first batch");
            }
        }).get(0);
        assertFalse(crashed.ok(), crashed.toString());
        BrandedId one = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of("1".getBytes())).get(0).orElseThrow();
        Keys keys = Keys.queue(QUEUE);
        assertTrue(client().exists(keys.job(one)), "job 1 was copied before the crash");
        client().del(keys.job(one)); // as if the v2 runtime had finished it
        client().zrem(keys.pending(), one.toString());
        Journals.repair(Wire.open(client()), QUEUE, OPTIONS.lease());

        MigrationResult rerun = migrate((version, where) -> { }).get(0);
        assertFalse(rerun.ok(), "a row the journal expected and the runtime finished is never written again: " + rerun);
        assertTrue(rerun.toString().contains("out-of-line " + one), rerun.toString());
        assertFalse(client().exists(keys.job(one)), "not resurrected");
        assertEquals(JOBS, client().llen("bull:" + QUEUE + ":wait"), "v1 intact");
    }
}
