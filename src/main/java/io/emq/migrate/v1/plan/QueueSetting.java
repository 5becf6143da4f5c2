package io.emq.migrate.v1.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One v1 queue setting in {@code meta} that the v2 runtime's gates also read: the global
 * concurrency ({@code concurrency}, v2 {@code meta.concurrency}) and the global rate limit
 * ({@code max} jobs per {@code duration} ms, v2 {@code meta.max} and {@code meta.duration}). Each is
 * carried into the v2 {@code meta} under the same field, or dropped with the reason.
 *
 * @param v1Value the v1 {@code meta} field's value as text
 * @param carried whether the migration writes it into the v2 {@code meta}
 * @param note    where it goes, or why it is dropped
 */
public record QueueSetting(String field, String v1Value, boolean carried, String note) {
    /** The {@code meta} fields a setting may be, in the order {@link #of} lists them. */
    public static final List<String> FIELDS = List.of("concurrency", "max", "duration");
    /** A count v1 and the v2 gates both read as a positive integer (at most 2^53-1, exact in Lua). */
    private static final Pattern POSITIVE = Pattern.compile("[1-9][0-9]{0,15}");
    private static final long MAX_EXACT = (1L << 53) - 1;

    /** The settings a v1 {@code meta} holds, in the order concurrency, max, duration (absent ones left out). */
    public static List<QueueSetting> of(Map<String, String> meta) {
        List<QueueSetting> out = new ArrayList<>();
        Optional.ofNullable(meta.get("concurrency")).ifPresent(v -> out.add(positive("concurrency", v,
                "the global concurrency")));
        String max = meta.get("max");
        String duration = meta.get("duration");
        if (max != null && duration != null) {
            QueueSetting m = positive("max", max, "jobs per duration");
            QueueSetting d = positive("duration", duration, "the rate-limit window in ms");
            boolean both = m.carried() && d.carried();
            out.add(both ? m : dropped("max", max, pairReason(m, d)));
            out.add(both ? d : dropped("duration", duration, pairReason(m, d)));
        } else if (max != null) {
            out.add(dropped("max", max, "a rate limit needs both max and duration; duration is not set"));
        } else if (duration != null) {
            out.add(dropped("duration", duration, "a rate limit needs both max and duration; max is not set"));
        }
        return out;
    }

    /** What becomes of it, for the report: {@code carried to <where>} or {@code dropped: <why>}. */
    public String inV2() {
        return (carried ? "carried to " : "dropped: ") + note;
    }

    private static String pairReason(QueueSetting max, QueueSetting duration) {
        return (max.carried() ? duration.note() : max.note()) + "; max and duration go together";
    }

    private static QueueSetting positive(String field, String value, String meaning) {
        if (!POSITIVE.matcher(value).matches() || Long.parseLong(value) > MAX_EXACT) {
            return dropped(field, value, field + " '" + value + "' is not a positive integer");
        }
        return new QueueSetting(field, value, true, "meta." + field + " (" + meaning
                + "), unless the v2 queue already sets its own");
    }

    private static QueueSetting dropped(String field, String value, String reason) {
        return new QueueSetting(field, value, false, reason);
    }
}
