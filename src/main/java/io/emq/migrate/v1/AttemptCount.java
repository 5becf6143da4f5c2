package io.emq.migrate.v1;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One v1 attempts counter ({@code ats}, {@code atm} or the legacy {@code attemptsMade}) read as the
 * v2 row can hold it: an integer from 0 to {@link #LIMIT}, the largest count a v2 claim can still
 * increment with the result exact in Lua's numbers (2^53 - 1). A field outside that range, or not an
 * integer, is clamped into it (negative and unreadable text to 0, fractions down, anything larger to
 * {@link #LIMIT}) and carries the {@link #problem} the plan reports as {@code bad-attempts}.
 *
 * @param problem why the field was clamped (empty when it was a count already)
 */
public record AttemptCount(long value, Optional<String> problem) {
    public static final long LIMIT = (1L << 53) - 2;
    private static final BigDecimal MAX = BigDecimal.valueOf(LIMIT);

    /** The counter in field {@code field} with raw value {@code raw}. */
    static AttemptCount of(String field, byte[] raw) {
        String text = Bytes.isUtf8(raw) ? new String(raw, StandardCharsets.UTF_8) : null;
        BigDecimal number;
        try {
            number = text == null ? null : new BigDecimal(text);
        } catch (NumberFormatException notANumber) {
            number = null;
        }
        String shown = field + " '" + Bytes.of(raw).display() + "'";
        if (number == null) {
            return new AttemptCount(0, Optional.of(shown + " is not a number; migrated as 0"));
        }
        if (number.signum() < 0) {
            return new AttemptCount(0, Optional.of(shown + " is negative; migrated as 0"));
        }
        if (number.compareTo(MAX) > 0) {
            return new AttemptCount(LIMIT, Optional.of(shown + " is above 2^53-2, the most a v2 claim can count from;"
                    + " migrated as " + LIMIT));
        }
        long whole = number.setScale(0, RoundingMode.FLOOR).longValueExact();
        if (number.compareTo(BigDecimal.valueOf(whole)) != 0) {
            return new AttemptCount(whole, Optional.of(shown + " is not a whole number; migrated as " + whole));
        }
        return new AttemptCount(whole, Optional.empty());
    }
}
