package io.emq.migrate.v1;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The small fields of a job hash ({@code deferredFailure}: BullMQ's {@code defa}, set on a parent a failed child fails at
 * its next fetch; {@code onFailure}: a flow child's option from its {@code parent} field, null for a job with no parent), as read by {@code HMGET} in the order of
 * {@code QueueSnapshotReader.FactsBatch.FIELDS}, decoded leniently: a field that does not parse
 * reads as absent, except the attempts counters, which are clamped into what v2 can count and
 * report why ({@link AttemptCount}).
 */
record JobHashFields(String name, long timestamp, long delay, long priority, JobOptions opts, String optsProblem,
                     AttemptCount ats, AttemptCount atm, AttemptCount attemptsMadeLegacy, long finishedOn, Bytes parentKey,
                     Bytes repeatJobKey, boolean legacyCounters, Bytes deferredFailure, ParentOnFailure onFailure) {
    private static final long NOT_PLAIN = Long.MIN_VALUE;

    static JobHashFields of(List<byte[]> f) {
        JobOptions opts = JobOptions.of(f.get(4));
        return new JobHashFields(text(f.get(0)), num(f.get(1), 0), num(f.get(2), 0), num(f.get(3), 0), opts, optsProblem(f.get(4)),
                counter("ats", f.get(5)), counter("atm", f.get(6)), counter("attemptsMade", f.get(7)), num(f.get(8), -1),
                f.get(9) == null ? null : Bytes.of(f.get(9)), f.get(10) == null ? null : Bytes.of(f.get(10)),
                f.get(7) != null || f.get(11) != null, f.get(12) == null ? null : Bytes.of(f.get(12)),
                f.get(9) == null ? null : ParentOnFailure.of(f.get(13)));
    }

    JobLayout layout() {
        if (opts.elixir()) {
            return JobLayout.ELIXIR;
        }
        return legacyCounters && ats == null && atm == null ? JobLayout.LEGACY : JobLayout.NODE;
    }

    /** Why the opts are carried as a string or base64 rather than spliced into the envelope as JSON; empty when they are spliced or absent. */
    Optional<String> optsNotSpliced() {
        return Optional.ofNullable(optsProblem);
    }

    private static String optsProblem(byte[] raw) {
        if (raw == null || PayloadDigest.isJson(raw)) {
            return null;
        }
        boolean utf8 = Bytes.isUtf8(raw);
        return PayloadDigest.whyNotSpliced("opts", raw.length, utf8 && PayloadDigest.nestsTooDeep(raw), utf8);
    }

    /** Attempts started: {@code ats}, else {@code atm}, else {@code attemptsMade}, else 0 (the contract's rule). */
    long attemptsStarted() {
        return ats != null ? ats.value() : attemptsMade();
    }

    long attemptsMade() {
        return atm != null ? atm.value() : attemptsMadeLegacy != null ? attemptsMadeLegacy.value() : 0;
    }

    /** Why attempts counters were clamped (see {@link AttemptCount}), or empty when every counter present is a count. */
    Optional<String> counterProblems() {
        if (clean(ats) && clean(atm) && clean(attemptsMadeLegacy)) {
            return Optional.empty(); // nearly every job: no stream built
        }
        return Optional.of(Stream.of(ats, atm, attemptsMadeLegacy)
                .filter(c -> !clean(c))
                .map(c -> c.problem().get())
                .collect(Collectors.joining("; ")));
    }

    private static boolean clean(AttemptCount c) {
        return c == null || c.problem().isEmpty();
    }

    private static String text(byte[] raw) {
        return raw == null ? null : Bytes.adopt(raw).display();
    }

    private static long num(byte[] raw, long otherwise) {
        if (raw == null) {
            return otherwise;
        }
        long plain = plainInteger(raw);
        return plain != NOT_PLAIN ? plain : QueueSnapshotReader.parseLong(number(raw), otherwise);
    }

    /**
     * The value of 1 to 18 ASCII digits after an optional {@code -} (what nearly every numeric field
     * holds), read without making a string; else {@link #NOT_PLAIN}, and the field is parsed as text.
     */
    static long plainInteger(byte[] raw) {
        int from = raw.length > 0 && raw[0] == '-' ? 1 : 0;
        if (raw.length == from || raw.length - from > 18) {
            return NOT_PLAIN;
        }
        long value = 0;
        for (int i = from; i < raw.length; i++) {
            int digit = raw[i] - '0';
            if (digit < 0 || digit > 9) {
                return NOT_PLAIN;
            }
            value = value * 10 + digit;
        }
        return from == 1 ? -value : value;
    }

    private static AttemptCount counter(String field, byte[] raw) {
        return raw == null ? null : AttemptCount.of(field, raw);
    }

    /** The text of a numeric field; bytes that are not UTF-8 are no number (their display form would not parse either). */
    private static String number(byte[] raw) {
        return Bytes.isUtf8(raw) ? new String(raw, java.nio.charset.StandardCharsets.UTF_8) : "";
    }
}
