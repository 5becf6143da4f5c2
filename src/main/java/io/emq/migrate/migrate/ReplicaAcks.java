package io.emq.migrate.migrate;

import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.ServerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Before v1 gives up what v2 holds, the target's replicas hold it too. A target with replicas acknowledges a write
 * before its replicas have it; a failover then promotes a replica that may be short of the last rows written, and
 * a job whose v1 copy retirement deleted would be in neither queue. So before the pause (where the bulk of the copy
 * is waited for, v1 still serving), before the tombstone and before a job copied again after it is deleted, each
 * server that holds the queue's v2 keys or its journal (in a cluster, the masters serving their two slots) is asked
 * how many replicas it has online ({@code INFO replication}), and each must acknowledge every write that server took
 * so far within {@link #TIMEOUT}: a write fenced by the lease goes first (the journal records how many replicas,
 * {@link JournalHeader#REPLICAS_AWAITED}; the queue's meta is claimed again, which changes nothing) and {@code WAIT}
 * follows on the same connection (for a user that may not run it, the replicas' acknowledged offsets in {@code INFO
 * replication} are read until they reach the server's). Fewer acknowledgements refuse the queue
 * ({@code replicas-behind}) before anything more of v1 is deleted; a re-run resumes the step. A server without replicas, or whose {@code INFO} the user may not
 * run (the run's first note says so), is not waited for.
 *
 * <p>Nor does a server that keeps an append-only file ({@code INFO persistence}: {@code aof_enabled}) write it to disk at
 * once (with {@code appendfsync everysec}, its default, about a second later): a crash of the machine loses the last
 * writes, rows whose v1 jobs retirement would delete. So each such server is waited for too: {@code WAITAOF 1 0} after a
 * fenced write on the same connection (Redis 7.2, Valkey), refusing the queue ({@code not-on-disk}) when it did not
 * write within {@link #TIMEOUT}; a server without {@code WAITAOF} is given {@link #EVERYSEC}, as long as
 * {@code everysec} may take ({@code appendfsync no} leaves it to the system, which nothing here can wait for).
 */
final class ReplicaAcks {
    /** How long the target's replicas have to acknowledge v2's writes (a replica keeps up within milliseconds). */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** How long {@code appendfsync everysec} may take to write what a server took to disk: a second, twice that when a sync runs late. */
    static final Duration EVERYSEC = Duration.ofSeconds(2);

    private ReplicaAcks() {
    }

    /** Waits for the online replicas of the servers holding the queue's journal and v2 keys; else refuses, {@code v1} telling what v1 is left as. */
    static void await(QueueMigration m, String v1) {
        byte[] journal = Utf8.bytes(m.journal.key());
        byte[] meta = Utf8.bytes(m.keys.meta());
        List<byte[]> servers = m.targetWire.sameServer(journal, meta) ? List.of(journal) : List.of(journal, meta);
        List<Integer> online = new ArrayList<>();
        for (byte[] key : servers) {
            online.add(ServerState.onlineReplicas(m.targetWire.client(), key).orElse(0));
        }
        long awaited = online.stream().mapToInt(Integer::intValue).sum();
        if (awaited > 0) {
            // recorded whether or not the journal's server has replicas (WAIT 0 answers at once)
            acknowledged(m, fencedWrite(m, 0, awaited), online.get(0), m.journal.key(), v1);
            if (online.size() > 1 && online.get(1) > 0) {
                acknowledged(m, fencedWrite(m, 1, awaited), online.get(1), m.keys.base() + "*", v1);
            }
        }
        for (int i = 0; i < servers.size(); i++) {
            if (ServerState.appendOnly(m.targetWire.client(), servers.get(i)).orElse(false)) {
                onDisk(m, fencedWrite(m, i, awaited), i == 0 ? m.journal.key() : m.keys.base() + "*", v1);
            }
        }
    }

    /**
     * The fenced write a server is waited on after: on the journal's (the first), the number of replicas awaited
     * journaled; on the queue's v2 keys' (in a cluster, another master), its meta claimed again, which changes nothing.
     */
    private static ScriptCall<?> fencedWrite(QueueMigration m, int server, long awaited) {
        return server == 0 ? m.journal.recordCall(new JournalHeader.Write().set(JournalHeader.REPLICAS_AWAITED, awaited))
                : TargetFence.claimCall(m.keys, m.journal);
    }

    /** Waits until the server {@code write} goes to has written it, and every write before, to its append-only file. */
    private static void onDisk(QueueMigration m, ScriptCall<?> write, String holding, String v1) {
        Optional<Boolean> synced = m.targetWire.writeAndWaitAof(write, TIMEOUT);
        if (synced.isEmpty()) {
            Sleep.millis(EVERYSEC.toMillis()); // no WAITAOF (before Redis 7.2): as long as appendfsync everysec may take
        } else if (!synced.get()) {
            throw new MigrationRefused(MigrationRefused.Kind.NOT_ON_DISK, "the target server holding " + holding + " did not write"
                    + " v2's writes to its append-only file within " + TIMEOUT.toSeconds() + " s (WAITAOF): a crash could lose rows whose"
                    + " v1 jobs retirement would delete; " + v1 + "; look at its disk (INFO persistence: aof_last_write_status,"
                    + " aof_delayed_fsync), then run migrate again: the step resumes");
        }
        m.checkpoints.hit("v2 on disk");
    }

    private static void acknowledged(QueueMigration m, ScriptCall<?> write, int online, String holding, String v1) {
        long acknowledged = m.targetWire.writeAndWait(write, online, TIMEOUT);
        boolean byOffsets = acknowledged < 0; // the user may not run WAIT: the replicas' offsets tell the same, a second later
        if (byOffsets) {
            acknowledged = ServerState.replicasAtOffset(m.targetWire.client(), write.keys().get(0), TIMEOUT).orElse(false) ? online : 0;
        }
        if (acknowledged < online) {
            throw new MigrationRefused(MigrationRefused.Kind.REPLICAS_BEHIND, "the target server holding " + holding + " has "
                    + online + " replica" + (online == 1 ? "" : "s") + " online and " + acknowledged + " acknowledged v2's writes"
                    + " within " + TIMEOUT.toSeconds() + " s (" + (byOffsets ? "their offsets in INFO replication: the user may not"
                    + " run WAIT" : "WAIT") + "): a failover could promote a replica short of rows whose v1"
                    + " jobs retirement would delete; " + v1 + "; bring the replicas up to date (INFO replication on the target"
                    + " shows each one's lag), or detach a replica that cannot keep up, then run migrate again: the step resumes");
        }
    }
}
