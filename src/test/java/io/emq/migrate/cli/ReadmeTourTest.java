package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README tour's figures agree with each other as the commands print them (issue 11 §6). */
class ReadmeTourTest {
    @Test
    void theMigrateSummaryCountsTheJobsItsTableMoved() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("README.md"));
        int header = lines.indexOf("V1 QUEUE           V2 QUEUE      OUTCOME  PENDING  SCHEDULED  DEAD  AWAITING  IN V2");
        assertTrue(header > 0, "the tour's migrate table");
        long moved = 0;
        int i = header + 1;
        for (; !lines.get(i).startsWith("("); i++) {
            String[] cells = lines.get(i).trim().split("\\s+");
            long queue = 0;
            for (int c = 3; c < 7; c++) {
                queue += Long.parseLong(cells[c]);
            }
            assertEquals(queue, Long.parseLong(cells[7]), "a first run: all the queue holds in v2 is what it wrote: " + lines.get(i));
            moved += queue;
        }
        int queues = i - header - 1;
        for (; !lines.get(i).contains("queues done"); i++) {
            assertTrue(lines.get(i).startsWith("("), "the legend, then the total: " + lines.get(i));
        }
        Matcher m = Pattern.compile("(\\d+) of (\\d+) queues done; (\\d+) jobs moved").matcher(lines.get(i));
        assertTrue(m.find(), lines.get(i));
        assertEquals(queues, Integer.parseInt(m.group(2)), "queues in the table");
        assertEquals(moved, Long.parseLong(m.group(3)), "jobs moved: the table's sum");
    }
}
