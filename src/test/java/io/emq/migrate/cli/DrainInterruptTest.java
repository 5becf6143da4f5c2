package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.testing.RealServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stopping a drain of a migrated queue with Ctrl-C (SIGINT) part-way: it claims nothing more, finishes the jobs it holds
 * (none is left active), says on standard error how many it completed and how many are left, and exits 130; a drain run
 * again continues at once and judges every job served exactly once across the two.
 */
class DrainInterruptTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static final int JOBS = 3_000;

    @Test
    void anInterruptedDrainFinishesTheJobsItHoldsSaysWhereItStoppedAndTheNextDrainContinuesToAPass() throws Exception {
        V1QueueGenerator.addWaiting(SERVER.client(), "dint", 1, JOBS, 20);
        CliRun migrated = CliRun.of("migrate", "--yes", "--source", SERVER.uri(), "--queue", "dint");
        assertEquals(0, migrated.code(), migrated.all());
        // a handler that takes its time, so the drain is under way (some jobs completed, a batch held) at its first
        // progress line; the jobs completed by then and the held batch are served by the validate handler's ledger too
        SignalledRun run = SignalledRun.of("drain dint: ", "INT", "drain", "--target", SERVER.uri(), "--queue", "dint",
                "--handler", "exec sleep 0.05");
        String err = run.err();
        assertEquals(130, run.code(), err);
        assertEquals(0, SERVER.client().zcard("emq:{dint}:active"), "the jobs it held were finished: " + err);
        long left = SERVER.client().zcard("emq:{dint}:pending");
        assertTrue(left > 0 && left < JOBS, left + " left: " + err);
        assertTrue(err.contains("emq-migrate drain: interrupted; queue 'dint': " + Sizes.count(JOBS - left) + " jobs completed"
                + " by this drain (it claimed nothing more and finished the jobs it held), " + Sizes.count(left) + " left; run"
                + " drain again and it continues (the jobs this drain served are recorded in the journal"), err);

        CliRun dryRun = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "dint", "--dry-run");
        assertEquals(0, dryRun.code(), "the jobs it served are not missing: " + dryRun.all());
        assertTrue(dryRun.out().matches("(?s).*served by earlier drains stopped part-way +- +" + (JOBS - left) + "\\b.*"),
                dryRun.all());

        CliRun next = CliRun.of("drain", "--target", SERVER.uri(), "--queue", "dint");
        assertEquals(0, next.code(), next.all());
        assertTrue(next.out().contains("verdict: PASS"), next.all());
        assertTrue(next.out().matches("(?s).*served by earlier drains stopped part-way +- +" + (JOBS - left) + "\\b.*"), next.all());
        assertEquals(0, SERVER.client().zcard("emq:{dint}:pending"));
        assertEquals(Integer.toString(JOBS), SERVER.client().hget("emq:{dint}:metrics:completed", "count"), "each job completed once");
    }
}
