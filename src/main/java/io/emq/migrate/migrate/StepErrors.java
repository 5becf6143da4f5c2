package io.emq.migrate.migrate;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a step's error reads in its report and its history row: what the server (or the client) said, without a Java
 * class name; a refusal of the user's ACL ({@code NOPERM}) also names the rule it lacks (MIGRATION.md, least privilege).
 */
final class StepErrors {
    /** The command a {@code NOPERM} reply names (Redis 6.2 to 7.2 word it so). */
    private static final Pattern COMMAND = Pattern.compile("permissions to run the '([^']+)' command");

    private StepErrors() {
    }

    static String of(RuntimeException e) {
        String said = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return said.contains("NOPERM") ? said + "; " + needed(said) : said;
    }

    /** The rule a {@code NOPERM} reply says the user lacks, as MIGRATION.md §10 grants it. */
    private static String needed(String said) {
        Matcher command = COMMAND.matcher(said);
        String rule = command.find() ? rule(command.group(1).toLowerCase(Locale.ROOT))
                : said.contains("channel") ? "&__redis__:invalidate"
                : "a key pattern over the queue's keys (~PREFIX:* on the source, ~emq:* ~{emq}:* on the target)";
        return "grant that server's ACL user " + rule + " (MIGRATION.md, least privilege)";
    }

    private static String rule(String command) {
        return switch (command) {
            case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "script|load", "script|exists" -> "+@scripting";
            case "watch", "unwatch", "multi", "exec", "discard" -> "+@transaction";
            default -> "+" + command;
        };
    }
}
