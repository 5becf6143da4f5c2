package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {
    /**
     * Half of the work, a wait of several intervals, the rest. The interval is long beside the moment between
     * the start and the first advance, so no line is printed before it (a 20 ms interval was once passed there
     * on a loaded machine, and the first line read 0/10).
     */
    private static String run(boolean terminal) throws InterruptedException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = Progress.start("drain orders", 10, "jobs", out, terminal, Duration.ofMillis(200))) {
            p.advance(5);
            Thread.sleep(500);
            p.advance(5);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void plainLinesWhenNotATerminal() throws Exception {
        String text = run(false);
        List<String> lines = text.lines().toList();
        assertTrue(lines.size() >= 2, text);
        assertTrue(lines.get(0).startsWith("drain orders: 5/10 jobs (50%), "), text);
        assertTrue(lines.get(0).contains(" jobs/s, ETA "), text);
        assertTrue(lines.get(lines.size() - 1).startsWith("drain orders: 10/10 jobs (100%)")
                && lines.get(lines.size() - 1).endsWith("(done)"), text);
        assertTrue(!text.contains("\r"), "no carriage returns in plain mode");
    }

    @Test
    void aBarRedrawnInPlaceOnATerminal() throws Exception {
        String text = run(true);
        assertTrue(text.contains("\rdrain orders [###############···············] 5/10 jobs (50%)"), text);
        assertTrue(text.endsWith("\n") && text.contains("[##############################] 10/10 jobs (100%)"), text);
    }

    @Test
    void moreDoneThanExpectedNeverReadsAsTwoOfOne() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = Progress.start("drain q", 1, "jobs", out, false, Duration.ofHours(1))) {
            p.advance(2);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("drain q: 2/2 jobs (100%)"), text);
    }

    @Test
    void aTotalGivenAsAnUpperBoundEndsAtAllOfItOnceComplete() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = Progress.start("scan", 50_005, "keys", out, false, Duration.ofHours(1))) {
            p.advance(2); // the keys under the prefix, of a database of 50,005
            p.complete();
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("scan: 2/2 keys (100%), ") && text.strip().endsWith("s (done)"), text);
        assertTrue(!text.contains("ETA"), text);
    }

    @Test
    void theLastLineTellsTheTimeTakenNotAnEta() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = Progress.start("drain q", 10, "jobs", out, false, Duration.ofHours(1))) {
            p.advance(5); // stopped halfway (interrupted)
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("drain q: 5/10 jobs (50%), ") && !text.contains("ETA"), text);
    }

    @Test
    void etaReadsLikeAClock() {
        assertEquals("42s", Progress.eta(42));
        assertEquals("2m05s", Progress.eta(125));
        assertEquals("1h01m", Progress.eta(3660));
    }
}
