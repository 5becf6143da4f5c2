package io.emq.migrate.migrate;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The token a migration's pause or an abandon leaves on a v1 queue's meta ({@code migrating-token}) when it
 * takes the queue: {@code <journal uid>:<fencing token>} ({@link JournalLease#sourceToken}). A token
 * supersedes one of the same journal with a lower fencing token, whose lease lapsed: that one may no longer
 * touch the queue. A token of another journal (a migration into another target, an abandoned one) supersedes
 * nothing: a pause takes such a queue over (but while that journal holds its pause window open), and retirement
 * refuses a queue such a token took from it. The rules {@code migrate_v1_fence.lua} applies too.
 */
record SourceToken(String journal, long fence) {
    private static final Pattern TEXT = Pattern.compile("(.*):(\\d{1,18})");

    /** The token {@code text} spells; empty for anything else (a field written by hand), which then supersedes nothing. */
    static Optional<SourceToken> parse(String text) {
        Matcher m = text == null ? null : TEXT.matcher(text);
        return m != null && m.matches() ? Optional.of(new SourceToken(m.group(1), Long.parseLong(m.group(2)))) : Optional.empty();
    }

    boolean supersedes(SourceToken other) {
        return journal.equals(other.journal) && fence > other.fence;
    }

    boolean ofAnotherJournal(SourceToken other) {
        return !journal.equals(other.journal);
    }
}
