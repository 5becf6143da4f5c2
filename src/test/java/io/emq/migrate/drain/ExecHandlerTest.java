package io.emq.migrate.drain;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.runtime.ConsumerListener;
import io.emq.migrate.runtime.ConsumerStats;
import io.emq.migrate.runtime.Jobs;
import io.emq.migrate.testing.RealServerExtension;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class ExecHandlerTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    @Test
    void completesOnExitZeroAndRetriesOtherwiseWithThePayloadOnStdin(@TempDir Path dir) throws Exception {
        Wire wire = Wire.open(SERVER.client());
        Jobs jobs = Jobs.on(wire, "exec");
        List<byte[]> payloads = List.of("{\"n\":1}".getBytes(StandardCharsets.UTF_8),
                "zwei ünicode\n".getBytes(StandardCharsets.UTF_8));
        List<String> ids = jobs.enqueueAll(payloads).stream().map(a -> a.id()).toList();
        String command = "cat > \"" + dir + "/$EMQ_JOB_ID.$EMQ_ATTEMPTS\"; "
                + "if [ \"$EMQ_ATTEMPTS\" = 1 ]; then echo \"first try of $EMQ_JOB_ID fails\" >&2; exit 7; fi";
        ConsumerStats stats = new Drain(wire, "exec").run(DrainOptions.defaults(), new ExecHandler(command),
                new ConsumerListener() { }).stats().orElseThrow();
        assertEquals(4, stats.claimed());
        assertEquals(2, stats.retried());
        assertEquals(2, stats.completed());
        for (int i = 0; i < ids.size(); i++) {
            assertArrayEquals(payloads.get(i), Files.readAllBytes(dir.resolve(ids.get(i) + ".1")));
            assertArrayEquals(payloads.get(i), Files.readAllBytes(dir.resolve(ids.get(i) + ".2")));
        }
        assertEquals(0, jobs.counts().pending() + jobs.counts().scheduled());
    }

    @Test
    void aFailureCarriesTheLastLineOfStandardError() {
        ExecHandler handler = new ExecHandler("echo one >&2; echo 'two: why' >&2; exit 4");
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> handler.handle(new io.emq.migrate.runtime.Delivery("q", "JOB00000000001", new byte[0], 1, 0, 1, "")));
        assertEquals("exit 4: two: why", e.getMessage());
    }

    /**
     * A command that never reads its payload (a megabyte: more than a pipe holds) is judged by its exit status alone; one
     * that writes far more to standard error than is kept still fails with its last line.
     */
    @Test
    void aCommandThatIgnoresItsInputOrFloodsStandardErrorIsJudgedByItsExit() throws Exception {
        io.emq.migrate.runtime.Delivery big = new io.emq.migrate.runtime.Delivery("q", "JOB00000000001", new byte[1 << 20], 1, 0, 1, "");
        new ExecHandler("exit 0").handle(big);
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> new ExecHandler("i=0; while [ $i -lt 2000 ]; do echo \"noise line $i\" >&2; i=$((i+1)); done;"
                        + " echo 'the reason' >&2; exit 3").handle(big));
        assertEquals("exit 3: the reason", e.getMessage());
    }
}
