package io.emq.migrate.cli;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as operators write them: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT30S}. */
final class Durations {
    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    private Durations() {
    }

    /** The duration {@code text} spells; empty for anything else, or one too long to hold. */
    static Optional<Duration> parse(String text) {
        Matcher m = SHORT.matcher(text.trim());
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                return Optional.of(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                });
            } catch (NumberFormatException | ArithmeticException tooLong) {
                return Optional.empty();
            }
        }
        try {
            return Optional.of(Duration.parse(text.trim()));
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
