package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.junit.jupiter.api.Test;

/**
 * README's command table names every option a command declares of its own (`help COMMAND` shows them): an operator reads
 * the table, not the help of each command (operator walk F12: `plan --preview N` was missing). The shared options (the
 * servers', --json, --quiet, --yes, --wire-version...) are described below the table once.
 */
class ReadmeCommandTableTest {
    @Test
    void everyCommandsOwnOptionsAreInItsRow() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("README.md"));
        List<String> missing = new ArrayList<>();
        for (Command command : Cli.COMMANDS.values()) {
            String row = lines.stream().filter(l -> l.startsWith("| `" + command.name() + " ") || l.startsWith("| `" + command.name() + "`")
                    || l.startsWith("| `help [COMMAND]`, `" + command.name() + "`")).findFirst().orElse("");
            if (row.isEmpty()) {
                missing.add(command.name() + " (no row)");
                continue;
            }
            Options own = new Options();
            command.options(own);
            for (Option o : own.getOptions()) {
                if (!row.contains("--" + o.getLongOpt())) {
                    missing.add(command.name() + " --" + o.getLongOpt());
                }
            }
        }
        assertEquals(List.of(), missing, "options of a command its README row does not name");
    }
}
