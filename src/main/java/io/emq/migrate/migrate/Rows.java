package io.emq.migrate.migrate;

import io.emq.migrate.wire.EmqWireException;
import io.emq.migrate.wire.ScriptCall;

/** Sends a {@code migrate_write_jobs} call; a row the v2 runtime claimed meanwhile refuses the queue. */
final class Rows {
    private Rows() {
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
