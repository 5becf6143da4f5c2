package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ScriptReply;
import java.util.ArrayList;
import java.util.List;

/**
 * One call about the journals of many queues ({@code migrate_journals}; every journal is in the
 * {@code {emq}} slot, so this works on a cluster too): their lease renewals, or a history row into
 * each; every journal is fenced by its own lease's token, and the reply tells each one's outcome (a
 * lost lease as {@link io.emq.migrate.wire.EmqWireException.Lock}) in the order given.
 */
final class ManyJournals {
    private ManyJournals() {
    }

    /** Renews the leases of these journals for {@code leaseMs}. */
    static ScriptCall<List<ScriptReply<Long>>> renewal(List<Journal> journals, long leaseMs) {
        return call("renew", Long.toString(leaseMs), journals, new ArrayList<>());
    }

    /** Records {@code rows.get(i)} in the step history of {@code journals.get(i)}. */
    static ScriptCall<List<ScriptReply<Long>>> historyRows(List<Journal> journals, List<HistoryRow> rows) {
        List<byte[]> fields = new ArrayList<>(2 * rows.size());
        for (HistoryRow row : rows) {
            fields.add(Utf8.bytes(StepHistory.field(row)));
            fields.add(Utf8.bytes(StepHistory.json(row)));
        }
        return call("set", "", journals, fields);
    }

    private static ScriptCall<List<ScriptReply<Long>>> call(String op, String leaseMs, List<Journal> journals, List<byte[]> after) {
        List<byte[]> keys = new ArrayList<>(journals.size());
        List<byte[]> args = new ArrayList<>(2 + journals.size() + after.size());
        args.add(Utf8.bytes(op));
        args.add(Utf8.bytes(leaseMs));
        for (Journal journal : journals) {
            keys.add(Utf8.bytes(journal.key()));
            args.add(Utf8.bytes(journal.token()));
        }
        args.addAll(after);
        return new ScriptCall<>(Script.MIGRATE_JOURNALS, keys, args, Replies.outcomes(Replies::asLong));
    }
}
