package io.emq.migrate.migrate;

import io.emq.migrate.wire.ServerState;
import java.time.Duration;

/**
 * Before v1 gives up what v2 holds, the target's replicas hold it too. A target with replicas acknowledges a write
 * before its replicas have it; a failover then promotes a replica that may be short of the last rows written, and
 * a job whose v1 copy retirement deleted would be in neither queue. So before the pause (where the bulk of the copy
 * is waited for, v1 still serving), before the tombstone and before a job copied again after it is deleted, the
 * server that holds the queue's v2 keys (in a cluster, the master serving their slot) is asked how many replicas it
 * has online ({@code INFO replication}), and each must acknowledge every write it took so far within
 * {@link #TIMEOUT}: the journal records how many ({@link JournalHeader#REPLICAS_AWAITED}, a write fenced by the
 * lease) and {@code WAIT} follows on the same connection. Fewer acknowledgements refuse the queue
 * ({@code replicas-behind}) before anything more of v1 is deleted; a re-run resumes the step. A target without
 * replicas, or whose {@code INFO} the user may not run (the run's first note says so), is not waited for.
 */
final class ReplicaAcks {
    /** How long the target's replicas have to acknowledge v2's writes (a replica keeps up within milliseconds). */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private ReplicaAcks() {
    }

    /** Waits for the target's online replicas to hold every write it took; else refuses, {@code v1} telling what v1 is left as. */
    static void await(QueueMigration m, String v1) {
        byte[] key = Utf8.bytes(m.journal.key());
        int online = ServerState.onlineReplicas(m.targetWire.client(), key).orElse(0);
        if (online == 0) {
            return;
        }
        long acknowledged = m.targetWire.writeAndWait(m.journal.recordCall(new JournalHeader.Write()
                .set(JournalHeader.REPLICAS_AWAITED, (long) online)), online, TIMEOUT);
        if (acknowledged < online) {
            throw new MigrationRefused(MigrationRefused.Kind.REPLICAS_BEHIND, "the target server holding " + m.keys.base() + "*"
                    + " has " + online + " replica" + (online == 1 ? "" : "s") + " online and " + acknowledged + " acknowledged v2's"
                    + " writes within " + TIMEOUT.toSeconds() + " s (WAIT): a failover could promote a replica short of rows"
                    + " whose v1 jobs retirement would delete; " + v1 + "; bring the replicas up to date (INFO replication on the"
                    + " target shows each one's lag), or detach a replica that cannot keep up, then run migrate again: the step resumes");
        }
    }
}
