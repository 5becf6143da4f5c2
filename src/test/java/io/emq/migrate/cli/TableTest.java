package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A table's columns align on what is printed: a control character in a cell is escaped before the widths are taken. */
class TableTest {
    @Test
    void aCellWithAControlCharacterKeepsTheColumnsInLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Table("QUEUE", "JOBS").row("esc\u001bname", 1).row("plain", 22)
                .print(new PrintStream(Printable.escaping(bytes), true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(List.of("QUEUE          JOBS", "esc\\u001bname  1", "plain          22"), lines);
    }
}
