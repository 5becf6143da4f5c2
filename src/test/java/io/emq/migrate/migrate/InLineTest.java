package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobLayout;
import io.emq.migrate.v1.V1State;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * What the pass before read is held exactly: by id byte for byte, v2 state and attempts; a job it never
 * read, or that only an earlier pass read, is not held.
 */
class InLineTest {
    private static final int JOBS = 5000;

    private static JobFacts job(String id, V1State state, long attempts) {
        return job(id, state, attempts, state == V1State.DELAYED ? 1_000 : -1);
    }

    private static JobFacts job(String id, V1State state, long attempts, long dueAt) {
        return new JobFacts(Bytes.utf8(id), state, 0, 0, 0, JobLayout.NODE, "n", 0, 0, 0, dueAt, false, attempts, 0, 0, "", true, 0,
                null, null, -1);
    }

    private static JobFacts job(int n) {
        return job(Integer.toString(n), n % 2 == 0 ? V1State.WAIT : V1State.DELAYED, n % 3);
    }

    @Test
    void aJobIsHeldOnlyInTheV2StateAndWithTheAttemptsThePassBeforeReadItWith() {
        InLine in = new InLine(JOBS, JOBS * 4L);
        in.nextPass();
        for (int n = 1; n <= JOBS; n++) {
            assertFalse(in.read(job(n)), "the first pass reads job " + n + " first");
        }
        in.nextPass();
        for (int n = 1; n <= JOBS; n++) {
            if (n != 4 && n != 7) {
                assertTrue(in.read(job(n)), "job " + n);
            }
        }
        assertTrue(in.read(job("4", V1State.PAUSED, 1)), "paused becomes pending, as wait does");
        assertFalse(in.read(job("7", V1State.FAILED, 1)), "another v2 state");
        assertFalse(in.read(job("", V1State.WAIT, 0)), "never read");
        in.nextPass();
        assertTrue(in.read(job("7", V1State.FAILED, 1)), "held as the pass before read it");
        assertFalse(in.read(job("4", V1State.DELAYED, 1)), "another v2 state");
        assertFalse(in.read(job("9", V1State.DELAYED, 2)), "other attempts");
        assertFalse(in.read(job("50001", V1State.DELAYED, 0)), "never read");
        in.nextPass();
        assertTrue(in.read(job("7", V1State.FAILED, 1)), "read by the pass before");
        assertFalse(in.read(job(10)), "only an earlier pass read it: the pass before did not, so it holds no more");
    }

    /**
     * A pass reading in the order the pass before read finds each record right after the one before, across
     * chunks and past a record with a chunk of its own; any other id there (one never read, one read out of
     * order, one sharing a prefix) is still told by its own bytes.
     */
    @Test
    void aPassInThePassBeforesOrderIsToldByEachRecordsOwnBytes() {
        int jobs = 60_000;
        String wide = "w".repeat(InLine.CHUNK + 10);
        InLine in = new InLine(0, 0);
        in.nextPass();
        for (int n = 1; n <= jobs; n++) {
            assertFalse(in.read(job(n)), "job " + n);
            if (n == jobs / 2) {
                assertFalse(in.read(job(wide, V1State.WAIT, 0)), "a record with a chunk of its own");
            }
        }
        in.nextPass();
        for (int n = 1; n <= jobs; n++) {
            assertTrue(in.read(job(n)), "job " + n + " in the same order");
            if (n == jobs / 2) {
                assertTrue(in.read(job(wide, V1State.PAUSED, 0)), "the wide one");
                assertFalse(in.read(job(wide + "x", V1State.WAIT, 0)), "a longer id after it is another job");
            }
            if (n % 1000 == 0) {
                assertFalse(in.read(job(Integer.toString(n + 1).substring(1), V1State.WAIT, 0)), "a prefix of the next id");
                assertFalse(in.read(job(n + 1 + "x", V1State.WAIT, 0)), "the next id and more");
            }
        }
        in.nextPass();
        assertTrue(in.read(job(jobs)), "the last one, out of order");
        assertTrue(in.read(job(1)), "the first one after it");
        assertFalse(in.read(job(Integer.toString(2), V1State.FAILED, 2)), "the one after, in another state");
        assertTrue(in.read(job(3)), "and the one after that");
    }

    /** Ids of every length a record's varint takes (one to three bytes), sharing prefixes, beside short ones. */
    @Test
    void idsOfAnyLengthAreHeldByTheirWholeBytes() {
        int[] lengths = {0, 1, 127, 128, 129, 16383, 16384, 20000};
        InLine in = new InLine(0, 0);
        in.nextPass();
        for (int length : lengths) {
            assertFalse(in.read(job("x".repeat(length), V1State.WAIT, length % 5)), "length " + length);
            assertFalse(in.read(job(length)), "job " + length);
        }
        in.nextPass();
        for (int length : lengths) {
            assertTrue(in.read(job("x".repeat(length), V1State.PAUSED, length % 5)), "length " + length);
            assertFalse(in.read(job("x".repeat(length) + "y", V1State.WAIT, length % 5)), "a longer id is another job");
            assertTrue(in.read(job(length)), "job " + length);
        }
        for (int n = 1; n <= JOBS; n++) {
            assertFalse(in.read(job("x".repeat(n % 300) + n, V1State.WAIT, 0)), "never read");
        }
        in.nextPass();
        for (int length : lengths) {
            assertFalse(in.read(job("x".repeat(length), V1State.WAIT, length % 5 + 1)), "other attempts, length " + length);
        }
        for (int n = 1; n <= JOBS; n++) {
            assertTrue(in.read(job("x".repeat(n % 300) + n, V1State.WAIT, 0)), "job " + n + " after the table grew");
        }
    }

    /** Records past several chunks of records and of slots, one longer than a chunk among them (an array of its own). */
    @Test
    void recordsAcrossChunksAndOneLongerThanAChunkAreHeld() {
        int many = 3 * InLine.CHUNK / 12; // about three chunks of records of 12 to 14 bytes
        String longId = "y".repeat(InLine.CHUNK + 3);
        InLine in = new InLine(0, 0);
        for (int pass = 1; pass <= 2; pass++) {
            in.nextPass();
            for (int n = 0; n < many; n++) {
                assertTrue(pass == 2 == in.read(job("job-" + (1_000_000 + n), V1State.WAIT, n % 4)), "pass " + pass + ", job " + n);
                if (n == many / 2) {
                    assertTrue(pass == 2 == in.read(job(longId, V1State.WAIT, 3)), "pass " + pass + ", the long id");
                }
            }
        }
        in.nextPass();
        assertTrue(in.read(job(longId, V1State.PAUSED, 3)));
        assertFalse(in.read(job(longId + "y", V1State.WAIT, 3)), "a longer id is another job");
        assertFalse(in.read(job("job-" + (1_000_000 + many - 1), V1State.WAIT, 0)), "other attempts");
    }

    @Test
    void aJobWithMoreAttemptsThanARecordHoldsIsNeverHeld() {
        InLine in = new InLine(0, 0);
        for (int pass = 1; pass <= 3; pass++) {
            in.nextPass();
            assertFalse(in.read(job("many", V1State.WAIT, InLine.MAX_ATTEMPTS + 1)), "pass " + pass);
            assertFalse(in.read(job("negative", V1State.WAIT, -1)), "pass " + pass);
            assertTrue(pass == 1 ^ in.read(job("most", V1State.WAIT, InLine.MAX_ATTEMPTS)), "pass " + pass);
        }
    }

    private static String digest(int n) {
        return String.format("%016x", n * 0x9E3779B97F4A7C15L);
    }

    /**
     * A table with digests (passes without the change feed) holds a job only with the digest, v2 state and attempts the
     * pass before read it with, or a write recorded; a job the pass wrote ({@code unsure}), a digest that is not one,
     * and an expectation the pass would not take as in line hold nothing. Past several chunks and a grown table.
     */
    @Test
    void aTableWithDigestsHoldsAJobOnlyWithTheDigestReadOrRecordedBefore() {
        int many = 3 * InLine.CHUNK / 20;
        InLine in = InLine.withDigests(0, 0);
        for (int n = 1; n <= many; n++) {
            JobFacts job = job(n);
            in.wrote(job, new Expectation(job.state().becomes().orElseThrow().wireName(), job.attempts(), "", digest(n), "", job.dueAt()));
        }
        JobFacts movedBefore = job("moved", V1State.DELAYED, 0);
        in.wrote(movedBefore, new Expectation(V2State.SCHEDULED.wireName(), 0, "", digest(0), "", 999));
        JobFacts other = job("other", V1State.WAIT, 2);
        in.wrote(other, new Expectation(V2State.SCHEDULED.wireName(), 2, "", digest(0), "", 1000));
        JobFacts older = job("older", V1State.WAIT, 2);
        in.wrote(older, new Expectation(V2State.PENDING.wireName(), 2, "", "", "", -1));
        in.nextPass();
        for (int n = 1; n <= many; n++) {
            assertTrue(in.read(job(n), digest(n)), "job " + n + " as the copy recorded it");
        }
        assertFalse(in.read(other, digest(0)), "recorded in another v2 state than the pass reads it in");
        assertFalse(in.read(older, digest(0)), "recorded with no digest");
        assertFalse(in.read(movedBefore, digest(0)), "recorded at another due time than the pass reads it at");
        in.unsure(job(7));
        assertFalse(in.read(job(8), digest(9)), "read with another digest");
        assertFalse(in.read(job("new", V1State.WAIT, 0), "not-a-digest"), "never read");
        in.nextPass();
        assertFalse(in.read(job(7), digest(7)), "the pass before wrote it");
        assertTrue(in.read(job(8), digest(9)), "as the pass before read it");
        assertFalse(in.read(job(9), digest(8)), "another digest");
        assertFalse(in.read(job("9", V1State.FAILED, 0), digest(9)), "another v2 state");
        assertFalse(in.read(job("new", V1State.WAIT, 0), "not-a-digest"), "a digest that is not one is never held");
        assertTrue(in.read(job(many), digest(many)));
        in.nextPass();
        assertFalse(in.read(job(many - 1), digest(many - 1)), "only an earlier pass read it");
        assertTrue(in.read(job(7), digest(7)), "as the pass before read it");
    }

    /**
     * A job read delayed is held only at the due time it was read at, with or without digests; one first read with no
     * due time has no room for one: it is never held while delayed, and held again once it is not.
     */
    @Test
    void aDelayedJobIsHeldOnlyAtTheDueTimeThePassBeforeReadItAt() {
        for (InLine in : List.of(new InLine(0, 0), InLine.withDigests(0, 0))) {
            Predicate<JobFacts> read = job -> in.digests() ? in.read(job, digest(1)) : in.read(job);
            in.nextPass();
            for (int n = 1; n <= JOBS; n++) {
                assertFalse(read.test(job(Integer.toString(n), V1State.DELAYED, 0, 1_000 + n)));
            }
            assertFalse(read.test(job("waiting", V1State.WAIT, 0)));
            in.nextPass();
            for (int n = 1; n <= JOBS; n++) {
                assertEquals(n != 17, read.test(job(Integer.toString(n), V1State.DELAYED, 0, n == 17 ? 5_000 : 1_000 + n)), "job " + n);
            }
            assertFalse(read.test(job("waiting", V1State.DELAYED, 0)), "first read waiting, now delayed");
            in.nextPass();
            assertTrue(read.test(job("17", V1State.DELAYED, 0, 5_000)), "at the due time the pass before read");
            assertFalse(read.test(job("waiting", V1State.DELAYED, 0)), "no room for its due time: never held while delayed");
            assertFalse(read.test(job("1", V1State.WAIT, 0)), "promoted");
            in.nextPass();
            assertFalse(read.test(job("waiting", V1State.DELAYED, 0)), "never held while delayed");
            assertTrue(read.test(job("1", V1State.WAIT, 0)), "read without a due time, as the pass before read it");
            assertFalse(read.test(job("2", V1State.DELAYED, 0, 1_002)), "only an earlier pass read it");
        }
    }

    /**
     * A try of the copy after a lost connection skips what an earlier one wrote: {@code holds} tells a job this pass
     * recorded as written in line with what it reads now, and changes nothing; not a job never written, written in
     * another v2 state, with other attempts or at another due time, one the pass is unsure of, or one only the pass before wrote.
     */
    @Test
    void holdsTellsTheJobsThisPassWroteAsTheyAreWithoutChangingAnything() {
        for (InLine in : List.of(new InLine(0, 0), InLine.withDigests(0, 0))) {
            assertTrue(in.isEmpty());
            for (int n = 1; n <= JOBS; n++) {
                JobFacts job = job(n);
                in.wrote(job, new Expectation(job.state().becomes().orElseThrow().wireName(), job.attempts(), "", digest(n), "", job.dueAt()));
            }
            JobFacts other = job("other", V1State.WAIT, 2);
            in.wrote(other, new Expectation(V2State.SCHEDULED.wireName(), 2, "", digest(0), "", 1000));
            assertFalse(in.isEmpty());
            for (int n = 1; n <= JOBS; n++) {
                assertTrue(in.holds(job(n)), "job " + n);
                assertTrue(in.holds(job(n)), "job " + n + " still: holds changes nothing");
            }
            assertFalse(in.holds(other), "written in another v2 state than the copy read it in");
            assertFalse(in.holds(job("never", V1State.WAIT, 0)), "never written");
            assertFalse(in.holds(job("3", V1State.DELAYED, 1)), "other attempts");
            assertFalse(in.holds(job("3", V1State.DELAYED, 0, 5_000)), "another due time");
            assertFalse(in.holds(job("2", V1State.FAILED, 2)), "another v2 state");
            in.unsure(job(4));
            assertFalse(in.holds(job(4)), "the pass is unsure of it");
            in.nextPass();
            assertFalse(in.holds(job(6)), "only the pass before wrote it");
        }
    }

    /** A table with digests is kept only within a quarter of the heap: a million jobs under 256 MiB, not ten million under 512. */
    @Test
    void digestsFitAQuarterOfTheHeap() {
        assertTrue(InLine.digestsFit(1_000_000, 6_888_896, 256L << 20));
        assertFalse(InLine.digestsFit(10_000_000, 68_888_897, 512L << 20));
        assertTrue(InLine.digestsFit(0, 0, 0));
    }
}
