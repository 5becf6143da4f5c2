package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.JobLayout;
import io.emq.migrate.v1.V1State;
import org.junit.jupiter.api.Test;

/** What the last pass read is held exactly: by id byte for byte, v2 state and attempts; a job it never read is not held. */
class InLineTest {
    private static JobFacts job(String id, V1State state, long attempts) {
        return new JobFacts(Bytes.utf8(id), state, 0, 0, 0, JobLayout.NODE, "n", 0, 0, 0, 0, false, attempts, 0, 0, "", true, 0,
                null, null, -1);
    }

    @Test
    void aJobIsHeldOnlyInTheV2StateAndWithTheAttemptsTheLastPassReadItWith() {
        InLine in = new InLine();
        int jobs = 5000;
        for (int n = 1; n <= jobs; n++) {
            in.add(job(Integer.toString(n), n % 2 == 0 ? V1State.WAIT : V1State.DELAYED, n % 3));
        }
        in.add(job("7", V1State.FAILED, 1));
        for (int n = 1; n <= jobs; n++) {
            if (n != 7) {
                assertTrue(in.holds(job(Integer.toString(n), n % 2 == 0 ? V1State.WAIT : V1State.DELAYED, n % 3)), "job " + n);
            }
        }
        assertTrue(in.holds(job("4", V1State.PAUSED, 1)), "paused becomes pending, as wait does");
        assertTrue(in.holds(job("7", V1State.FAILED, 1)), "a job read twice holds what was read last");
        assertFalse(in.holds(job("7", V1State.DELAYED, 1)));
        assertFalse(in.holds(job("4", V1State.DELAYED, 1)), "another v2 state");
        assertFalse(in.holds(job("4", V1State.WAIT, 2)), "other attempts");
        assertFalse(in.holds(job("50001", V1State.DELAYED, 0)), "never read");
        assertFalse(in.holds(job("", V1State.WAIT, 0)), "never read");
    }
}
