package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.JobSub;
import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * V120 retires the jobs the change feed tells unwritten since the last pass with WATCH, drain, then
 * MULTI/UNLINK/EXEC ({@link UnlinkUnwritten}); a job edited after that pass (by a v1 client that ignores
 * the pause and the tombstone) at any instant before its keys go is still copied again, never lost:
 * between the pass and the tombstone, after the tombstone, and between its WATCH and its EXEC; a job
 * with no logs is watched by its hash alone, and a log pushed between its WATCH and its EXEC is copied.
 */
class UnlinkUnwrittenTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    static final String QUEUE = "unlinked";
    /** More than one round of {@link UnlinkUnwritten}, and more than one batch of the digest check. */
    static final int JOBS = 1200;
    static final MigrationOptions OPTIONS = MigrationOptions.defaults().withLease(Duration.ofSeconds(2));

    @BeforeEach
    void generate() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, JOBS, 100);
    }

    private UnifiedJedis client() {
        return SERVER.client();
    }

    private MigrationResult migrate(Checkpoints.Observer observer) {
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed(observer), List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(client(), QUEUE, JOBS), r.toString());
        assertEquals(Set.of("bull:" + QUEUE + ":meta", "bull:" + QUEUE + ":id"), client().keys("bull:" + QUEUE + ":*"));
        return r;
    }

    /** The V120 row's counts. */
    private Map<String, Long> retired() {
        return new Journal(Wire.open(client()), QUEUE).history().rows().stream().filter(row -> row.version() == 120)
                .findFirst().orElseThrow().counts();
    }

    private void edit(int job) {
        client().hset("bull:" + QUEUE + ":" + job, "data", "{\"edited\":" + job + "}");
        client().rpush("bull:" + QUEUE + ":" + job + ":logs", "edited " + job);
    }

    private void assertCopiedAgain(int job) {
        Keys keys = Keys.queue(QUEUE);
        BrandedId id = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(Integer.toString(job).getBytes())).get(0).orElseThrow();
        byte[] payload = client().hget(keys.job(id).getBytes(), "payload".getBytes());
        assertEquals("{\"edited\":" + job + "}", new String(PayloadPolicy.ENVELOPE.v1Data(payload).orElseThrow()), "job " + job);
        assertEquals(List.of("edited " + job), client().lrange(keys.job(id, JobSub.LOGS), 0, -1), "job " + job);
    }

    /** A queue of a few jobs is retired on the feed's word over one connection of its own, not {@link UnlinkUnwritten#CONNECTIONS}. */
    @Test
    void aSmallQueueIsUnlinkedOverOneConnection() {
        client().flushAll();
        V1QueueGenerator.addWaiting(client(), "small", 1, 4, 100);
        long[] received = new long[2];
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("v2 resumed")) {
                received[0] = connectionsReceived();
            }
            if (version == 120 && where.equals("jobs watched")) {
                received[1] = connectionsReceived();
            }
        }), List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(client(), "small", 4), r.toString());
        assertTrue(received[1] > 0, "the jobs were watched on the feed's word");
        assertEquals(1, received[1] - received[0], "connections opened to unlink 4 jobs");
    }

    private long connectionsReceived() {
        return client().info("stats").lines().filter(l -> l.startsWith("total_connections_received:"))
                .map(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim())).findFirst().orElseThrow();
    }

    @Test
    void aQuietSourceHasEveryJobUnlinkedOnTheFeedsWord() {
        migrate((version, where) -> { });
        assertEquals((long) JOBS, retired().get("unlinked"), retired().toString());
        assertEquals((long) JOBS, retired().get("jobs"), "each job's hash went (none has logs): " + retired());
    }

    @Test
    void jobsEditedAfterThePassBeforeOrAfterTheTombstoneAreCopiedAgain() {
        boolean[] once = {false, false};
        boolean[] paused = {false};
        migrate((version, where) -> {
            paused[0] |= version == 120 && where.equals("v1 paused");
            if (paused[0] && where.equals("pass recorded") && !once[0]) {
                once[0] = true;
                edit(5);
                edit(1100);
            }
            if (version == 120 && where.equals("v2 resumed") && !once[1]) {
                once[1] = true;
                edit(6);
                edit(1101);
            }
        });
        for (int job : List.of(5, 6, 1100, 1101)) {
            assertCopiedAgain(job);
        }
        assertEquals(JOBS - 4L, retired().get("unlinked"), retired().toString());
    }

    @Test
    void aJobEditedBetweenItsWatchAndItsExecIsCopiedAgain() {
        int[] rounds = {0};
        migrate((version, where) -> {
            if (version == 120 && where.equals("jobs watched") && rounds[0]++ == 0) {
                edit(3);
                edit(1150);
            }
        });
        assertCopiedAgain(3);
        assertCopiedAgain(1150);
        assertEquals(JOBS - UnlinkUnwritten.PER_CONNECTION - 1L, retired().get("unlinked"),
                "the share of the connection whose WATCH saw the edit took the digest check, and the job of a later round: " + retired());
    }

    /** Migrates, editing a job's data at the "jobs watched" of each round named (round, from 1, to job); the rounds there were. */
    private int migrateEditingAtRounds(Map<Integer, Integer> jobAtRound) {
        int[] rounds = {0};
        migrate((version, where) -> {
            if (version == 120 && where.equals("jobs watched")) {
                Integer job = jobAtRound.get(++rounds[0]);
                if (job != null) {
                    client().hset("bull:" + QUEUE + ":" + job, "data", "{\"edited\":" + job + "}");
                }
            }
        });
        return rounds[0];
    }

    /**
     * A round with a refused EXEC halves what a connection watches in the next round: a source written
     * meanwhile leaves smaller shares to the digest check.
     */
    @Test
    void aRefusedExecShrinksTheSharesOfTheNextRound() {
        migrateEditingAtRounds(Map.of(1, 3, 2, 600));
        assertEquals(JOBS - UnlinkUnwritten.PER_CONNECTION - UnlinkUnwritten.PER_CONNECTION / 2L, retired().get("unlinked"),
                "job 3's share of the first round, and job 600's half-size share of the second, took the digest check: " + retired());
    }

    /** A round without a refused EXEC doubles what a connection watches back, up to its most. */
    @Test
    void aQuietRoundAfterARefusedExecGrowsTheSharesBack() {
        assertEquals(3, migrateEditingAtRounds(Map.of(1, 3, 3, 1100)), "rounds");
        assertEquals(JOBS - 2L * UnlinkUnwritten.PER_CONNECTION, retired().get("unlinked"),
                "job 3's share of the first round and job 1100's of the third, both whole, took the digest check: " + retired());
    }

    /** Jobs watched with their logs (the fence's read met their logs lists) take three keys each: a connection watches fewer of them. */
    @Test
    void jobsWatchedWithTheirLogsGoFewerToAConnection() {
        for (int job = 1; job <= UnlinkUnwritten.PER_CONNECTION; job++) {
            client().rpush("bull:" + QUEUE + ":" + job + ":logs", "before the fence " + job);
        }
        migrateEditingAtRounds(Map.of(1, 3));
        assertEquals(JOBS - (long) (UnlinkUnwritten.MOST_WATCHED / 3), retired().get("unlinked"),
                "the share of the connection whose WATCH saw the edit, 3 keys a job, took the digest check: " + retired());
        assertLogs(UnlinkUnwritten.PER_CONNECTION, List.of("before the fence " + UnlinkUnwritten.PER_CONNECTION));
    }

    /**
     * A job the fence's read met no logs list of is watched and unlinked by its hash alone though other jobs of the queue
     * have logs lists (those are watched and unlinked with them): its share is as large as in a queue without logs.
     */
    @Test
    void aJobWithoutLogsIsWatchedByItsHashAloneBesideJobsWithLogs() {
        client().rpush("bull:" + QUEUE + ":" + JOBS + ":logs", "before the fence");
        migrateEditingAtRounds(Map.of(1, 3));
        assertEquals(JOBS - (long) UnlinkUnwritten.PER_CONNECTION, retired().get("unlinked"),
                "the share of the connection whose WATCH saw the edit, 2 keys a job, took the digest check: " + retired());
        assertEquals(JOBS + 1L, retired().get("jobs"), "each job's hash, and job " + JOBS + "'s logs with its hash: " + retired());
        assertLogs(JOBS, List.of("before the fence"));
    }

    private void assertLogs(int job, List<String> logs) {
        BrandedId id = new Journal(Wire.open(client()), QUEUE).ids().lookupV1(List.of(Integer.toString(job).getBytes())).get(0).orElseThrow();
        assertEquals(logs, client().lrange(Keys.queue(QUEUE).job(id, JobSub.LOGS), 0, -1), "job " + job);
    }

    /**
     * A job with no logs is watched and unlinked by its hash alone, in a queue without logs or beside a job with a logs
     * list; a log pushed between its WATCH and its EXEC (not watched) is told by the next drain, of the next round or after
     * the last, and copied.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aLogPushedBetweenTheWatchAndTheExecOfAJobWatchedByItsHashAloneIsCopied(boolean anotherHasLogs) {
        if (anotherHasLogs) {
            client().rpush("bull:" + QUEUE + ":600:logs", "before the fence");
        }
        int[] rounds = {0};
        migrate((version, where) -> {
            if (version == 120 && where.equals("jobs watched")) {
                rounds[0]++;
                if (rounds[0] == 1) {
                    client().rpush("bull:" + QUEUE + ":3:logs", "late 3");
                }
                if (rounds[0] == 3) {
                    client().rpush("bull:" + QUEUE + ":" + JOBS + ":logs", "late " + JOBS);
                }
            }
        });
        assertEquals(3, rounds[0], "rounds");
        assertLogs(3, List.of("late 3"));
        assertLogs(JOBS, List.of("late " + JOBS));
        assertLogs(600, anotherHasLogs ? List.of("before the fence") : List.of());
        assertEquals((long) JOBS, retired().get("unlinked"), "both were unlinked on the feed's word: " + retired());
    }

    /**
     * A job with no logs still has its {@code :dependencies} watched (a flow starts there): a child added to
     * it between its WATCH and its EXEC refuses that connection's EXEC, and its share takes the digest
     * check, as for any edit, its hash not deleted unseen.
     */
    @Test
    void aDependencyAddedBetweenTheWatchAndTheExecOfAJobWithNoLogsTakesTheDigestCheck() {
        boolean[] once = {false};
        migrate((version, where) -> {
            if (version == 120 && where.equals("jobs watched") && !once[0]) {
                once[0] = true;
                client().sadd("bull:" + QUEUE + ":3:dependencies", "bull:other:1");
            }
        });
        assertEquals(JOBS - (long) UnlinkUnwritten.PER_CONNECTION, retired().get("unlinked"),
                "the share of the connection whose WATCH saw the dependency took the digest check: " + retired());
    }

    /**
     * A flow key no BullMQ script writes before {@code :dependencies} (here {@code :processed}, written by
     * hand) between the WATCH and the EXEC of a job watched without its logs refuses the queue, the key kept.
     */
    @Test
    void aFlowKeyWrittenBetweenTheWatchAndTheExecOfAJobWithNoLogsRefusesTheQueue() {
        boolean[] once = {false};
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("jobs watched") && !once[0]) {
                once[0] = true;
                client().hset("bull:" + QUEUE + ":3:processed", "bull:other:1", "done");
            }
        }), List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.REFUSED, r.outcome(), r.toString());
        assertTrue(r.toString().contains("a flow key was written to a job of"), r.toString());
        assertEquals(Map.of("bull:other:1", "done"), client().hgetAll("bull:" + QUEUE + ":3:processed"));
    }

    /**
     * A job given a log after the fence's read (told by the feed) is watched and unlinked with its logs,
     * as one the read met: its logs key goes with its hash.
     */
    @Test
    void aJobGivenALogAfterTheFencesReadIsUnlinkedWithItsLogs() {
        boolean[] once = {false};
        migrate((version, where) -> {
            if (version == 110 && !once[0]) {
                once[0] = true;
                client().rpush("bull:" + QUEUE + ":7:logs", "after the fence");
            }
        });
        assertLogs(7, List.of("after the fence"));
        assertEquals((long) JOBS, retired().get("unlinked"), retired().toString());
        assertEquals(JOBS + 1L, retired().get("jobs"), "each job's hash, and job 7's logs with its hash: " + retired());
    }

    /**
     * A round whose every job a drain named watches nothing, but its drain still counts: a job of a
     * later round written before it is copied again, not unlinked.
     */
    @Test
    void aRoundWithNothingToWatchStillKeepsWhatItsDrainTells() {
        client().flushAll();
        int round = UnlinkUnwritten.CONNECTIONS * UnlinkUnwritten.PER_CONNECTION;
        int jobs = 3 * round + 100;
        V1QueueGenerator.addWaiting(client(), QUEUE, 1, jobs, 100);
        int[] rounds = {0};
        MigrationResult r = MigrationHarness.migrate(SERVER, SERVER, OPTIONS, Checkpoints.observed((version, where) -> {
            if (version == 120 && where.equals("jobs watched")) {
                rounds[0]++;
                if (rounds[0] == 1) {
                    for (int job = 2 * round + 1; job <= 3 * round; job++) {
                        client().hset("bull:" + QUEUE + ":" + job, "data", "{\"edited\":" + job + "}");
                    }
                }
                if (rounds[0] == 2) {
                    edit(3 * round + 50);
                }
            }
        }), List.of("bull")).get(0);
        assertEquals(MigrationResult.Outcome.RETIRED, r.outcome(), r.toString());
        assertEquals(List.of(), LiveV1.exactlyOnce(client(), QUEUE, jobs), r.toString());
        assertCopiedAgain(3 * round + 50);
        assertEquals(jobs - round - 1L, retired().get("unlinked"), "the third round's jobs and the edited one took the digest check: " + retired());
    }
}
