package io.emq.migrate.wire;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one wording of what to do about a refusal of the user's ACL ({@code NOPERM}): the rule the user lacks, read from
 * the server's words, as MIGRATION.md (least privilege) grants it. For a step's error and for a command stopped outside
 * any step alike.
 */
public final class AclAdvice {
    /** The command a {@code NOPERM} reply names (Redis 6.2 to 7.2 word it so). */
    private static final Pattern COMMAND = Pattern.compile("permissions to run the '([^']+)' command");
    /** How Redis 7.0 begins a refusal of the user's ACL inside a script. */
    private static final String IN_A_SCRIPT = "The user executing the script can't";

    private AclAdvice() {
    }

    /**
     * What to grant, when {@code said} (a server's error text) is a {@code NOPERM} refusal, or one inside a script as
     * Redis 7.0 words it ({@code The user executing the script can't ...}, naming no command); empty otherwise.
     */
    public static Optional<String> of(String said) {
        if (said.contains(IN_A_SCRIPT)) {
            return Optional.of("grant that server's ACL user " + (said.contains("access at least one of the keys")
                    ? "a key pattern over the queue's keys (~PREFIX:* on the source, ~emq:* ~{emq}:* on the target)"
                    : said.contains("channel") ? "the channels the v2 runtime publishes on (&emq:*)"
                    : "the rules a script of the migration runs commands under: the server does not name the command; on the"
                    + " source +@read +@write +@scripting (a user that may only read can plan, not migrate), on the target"
                    + " +@read +@write +@scripting") + " (MIGRATION.md, least privilege)");
        }
        if (!said.contains("NOPERM")) {
            return Optional.empty();
        }
        Matcher command = COMMAND.matcher(said);
        String rule = command.find() ? rule(command.group(1).toLowerCase(Locale.ROOT))
                : said.contains("channel") ? "&__redis__:invalidate"
                : "a key pattern over the queue's keys (~PREFIX:* on the source, ~emq:* ~{emq}:* on the target)";
        return Optional.of("grant that server's ACL user " + rule + " (MIGRATION.md, least privilege)");
    }

    private static String rule(String command) {
        return switch (command) {
            case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "script|load", "script|exists" -> "+@scripting";
            case "watch", "unwatch", "multi", "exec", "discard" -> "+@transaction";
            default -> "+" + command;
        };
    }
}
