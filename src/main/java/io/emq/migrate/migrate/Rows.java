package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.ScriptCall;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends a {@code migrate_write_jobs} call; a row the v2 runtime claimed meanwhile refuses the queue. Reads what rows the
 * journal does not know of hold ({@link #unjournaled}).
 */
final class Rows {
    /** What is read of a row the journal does not know of. */
    private static final List<byte[]> UNJOURNALED_FIELDS = List.of(Utf8.bytes("state"), Utf8.bytes("attempts"), Utf8.bytes("parent"));

    /** A row as read: its state, its attempts (-1 for none or no number) and whether it names a flow parent. */
    record Held(String state, long attempts, boolean child) {
        boolean flow() {
            return child || state.equals(V2State.AWAITING_CHILDREN.wireName());
        }

        /** As an expectation of what the row holds (no digests): the guard of its rewrite or removal. */
        Expectation asExpected() {
            return new Expectation(state, attempts, "", "", "", -1);
        }
    }

    private Rows() {
    }

    /**
     * The rows of these ids that v2 holds (one pipeline of {@code HMGET}), as read: rows of this migration the journal
     * does not know of ({@link QueueMigration#unjournaledRows}), whose rewrite or removal is guarded by the attempts
     * read (a row the v2 runtime claimed is active, which the write refuses: out-of-line).
     */
    static Map<BrandedId, Held> unjournaled(QueueMigration m, List<BrandedId> ids) {
        Map<BrandedId, Held> held = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return held;
        }
        RowKeys rowKeys = new RowKeys(m.keys);
        List<List<byte[]>> read = m.targetWire.hmget(ids.stream().map(rowKeys::of).toList(), UNJOURNALED_FIELDS);
        for (int i = 0; i < ids.size(); i++) {
            List<byte[]> row = read.get(i);
            if (row.get(0) != null) {
                held.put(ids.get(i), new Held(Replies.asText(row.get(0)), attempts(row.get(1)), row.get(2) != null));
            }
        }
        return held;
    }

    /** A row's attempts as read; -1 for none or no number (its rewrite or removal is then refused: out-of-line, the row kept). */
    private static long attempts(byte[] read) {
        String text = read == null ? "" : Replies.asText(read);
        return text.matches("\\d{1,18}") ? Long.parseLong(text) : -1;
    }

    static void write(QueueMigration m, ScriptCall<Void> call) {
        try {
            m.targetWire.eval(call);
        } catch (EmqWireException.State outOfLine) {
            throw new MigrationRefused(MigrationRefused.Kind.OUT_OF_LINE, "the v2 queue " + m.target + " can no longer be brought in line"
                    + " with its v1 source: the v2 runtime claimed or finished jobs the source still changes ("
                    + outOfLine.detail() + "); nothing more was written. Run `emq-migrate abandon` to go back to v1 as"
                    + " it is (v2 keeps nothing of the migration), then migrate again");
        }
    }
}
