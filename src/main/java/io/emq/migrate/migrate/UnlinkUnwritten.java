package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Retires the v1 jobs of a tombstoned queue that the change feed tells unwritten since the last re-sync
 * pass, without digesting them: what they hold is what that pass (or one before it) left v2 holding.
 * A round of jobs at a time, spread over up to {@link #CONNECTIONS} connections of its own (one for each
 * {@link #PER_CONNECTION} jobs of the round, opened when a round first needs it: one for a small queue).
 * Each connection {@code WATCH}es the queue's meta and the hashes of its share of the jobs, then asks
 * in the same write whether any of them has logs or a {@code :dependencies} key (the other keys a job's
 * digest reads that a write can create; one {@code EXISTS}); a share with any also {@code WATCH}es
 * those keys of each of its jobs. The tombstone is read; the feed is drained (a write before a WATCH,
 * or before the {@code EXISTS}, shows in the drain; one to a hash after it dirties the WATCH); then each
 * connection runs, for its jobs that no drain since the pass named, {@code MULTI; EVALSHA
 * migrate_v1_source unlink_unwritten; EXEC} (the script deletes the hashes only if none of the jobs has
 * logs or {@code :dependencies} now: absent when the {@code EXISTS} looked and unwritten until the drain,
 * absent again, they hold what the pass read), or, for a share watched whole, {@code MULTI; UNLINK
 * <hash> <logs> ...; EXEC}. A job a drain named, a flow parent (its digest counts its children), every
 * job of a connection whose EXEC was refused (a write after the WATCH) or whose script found logs or
 * {@code :dependencies} made meanwhile, and every job once the feed broke or the server refused WATCH
 * (an ACL without {@code @transaction}), is left to the digest check ({@code retire_jobs}), which
 * copies an edited job again.
 *
 * <p>Sound only while every key written since the last pass's drain is told here: the watch must be
 * intact since this run's fence (a run whose fence was an earlier run's has none), and nothing may
 * drain it between that pass and the first round. The keys a drain tells are kept until retirement
 * ends, but for those of the round before (this retirement's own deletions), so the memory they hold is
 * that of the writes v1 clients make meanwhile, not of the jobs retired.
 *
 * <p>A connection watches few keys because the server checks each key a WATCH adds against every key
 * that connection watches already (Redis 7.0: O(keys²) a transaction): one a job, but for a share
 * with logs or {@code :dependencies} (three a job, as many as {@link #PER_CONNECTION} allows).
 */
final class UnlinkUnwritten implements AutoCloseable {
    static final int CONNECTIONS = 32;
    /** Jobs one connection watches in a round. */
    static final int PER_CONNECTION = 32;
    private static final byte[] VERSION = Utf8.bytes("version");
    private static final byte[] TOMBSTONE = Utf8.bytes(SourceFence.TOMBSTONE);
    private static final byte[] UNLINK_UNWRITTEN = Utf8.bytes("unlink_unwritten");
    private static final byte[] SCRIPT = Utf8.bytes(Script.MIGRATE_V1_SOURCE.sha());

    private final Wire source;
    private final QueueRef queue;
    /** {@code <prefix>:<queue>:}, which every job key begins with. */
    private final Bytes base;
    /** The script's KEYS[1..10] (meta first), before those of the jobs. */
    private final List<byte[]> queueKeys;
    private final Set<Bytes> parents;
    private final SourceFeed.Watch watch;
    private final Checkpoints checkpoints;
    /** The connections opened so far: as many as the largest round needed. */
    private final List<Connection> connections = new ArrayList<>(CONNECTIONS);
    /** The keys written since the last pass, but for those of jobs this retirement handled already. */
    private final SourceFeed.Changes written = new SourceFeed.Changes(Set.of());
    /** The hash and logs keys of the round before: its deletions show in the next drain. */
    private Set<Bytes> handled = Set.of();
    private boolean unusable;

    private UnlinkUnwritten(Wire source, QueueRef queue, Set<Bytes> parents, SourceFeed.Watch watch, Checkpoints checkpoints) {
        this.source = source;
        this.queue = queue;
        this.base = queue.base();
        this.queueKeys = SourceFence.sourceKeys(queue, List.of());
        this.parents = parents;
        this.watch = watch;
        this.checkpoints = checkpoints;
    }

    /**
     * Opens its first connection to a single-server source and loads the script there (empty for a
     * cluster source, which has no feed either, or when the server refuses either); {@code parents},
     * the flow parents of the source as read, are always left to the digest check.
     */
    static Optional<UnlinkUnwritten> open(Wire source, QueueRef queue, Set<Bytes> parents, SourceFeed.Watch watch,
                                          Checkpoints checkpoints) {
        if (!(source.client() instanceof RedisClient)) {
            return Optional.empty();
        }
        UnlinkUnwritten unlinking = new UnlinkUnwritten(source, queue, parents, watch, checkpoints);
        return unlinking.opened(1) && unlinking.loaded() ? Optional.of(unlinking) : Optional.empty();
    }

    /** What a call left: the keys it deleted and, in order, the jobs left to the digest check. */
    record Unlinked(long deleted, List<Bytes> left) {
    }

    /** Unlinks the hash and logs of each of these jobs (v1 ids) that no drain since the pass named, a round at a time. */
    Unlinked unlink(List<Bytes> ids) {
        long deleted = 0;
        List<Bytes> left = new ArrayList<>();
        int size = CONNECTIONS * PER_CONNECTION;
        for (int from = 0; from < ids.size(); from += size) {
            List<Bytes> some = ids.subList(from, Math.min(ids.size(), from + size));
            Round round = unusable ? Round.NONE : unlinkRound(some);
            deleted += round.deleted();
            some.stream().filter(id -> !round.gone().contains(id)).forEach(left::add);
        }
        return new Unlinked(deleted, left);
    }

    /** What one round did: the jobs whose keys it unlinked, and how many keys it deleted. */
    private record Round(Set<Bytes> gone, long deleted) {
        static final Round NONE = new Round(Set.of(), 0);
    }

    /** A job's keys, each built once: its id, hash, logs and {@code :dependencies}. */
    private record Job(Bytes id, Bytes hash, Bytes logs, Bytes dependencies) {
    }

    /** One connection's jobs in a round, and whether their logs and {@code :dependencies} are watched too. */
    private static final class Share {
        final List<Job> jobs = new ArrayList<>(PER_CONNECTION);
        boolean whole;
    }

    private Round unlinkRound(List<Bytes> ids) {
        List<Share> shares = new ArrayList<>();
        for (Bytes id : ids) {
            Bytes hash = base.concat(id);
            if (!parents.contains(id) && !written.touched(hash)) {
                if (shares.isEmpty() || shares.get(shares.size() - 1).jobs.size() == PER_CONNECTION) {
                    shares.add(new Share());
                }
                shares.get(shares.size() - 1).jobs.add(new Job(id, hash, hash.concat(":logs"), hash.concat(":dependencies")));
            }
        }
        if (!opened(shares.size())) {
            unusable = true;
            return Round.NONE;
        }
        byte[] meta = queueKeys.get(0);
        for (int i = 0; i < shares.size(); i++) {
            List<byte[]> hashes = new ArrayList<>(PER_CONNECTION + 1);
            hashes.add(meta);
            shares.get(i).jobs.forEach(j -> hashes.add(j.hash().raw()));
            connections.get(i).sendCommand(Protocol.Command.WATCH, hashes.toArray(new byte[0][]));
            send(connections.get(i), Protocol.Command.EXISTS, others(shares.get(i).jobs));
        }
        boolean refused = false;
        for (int i = 0; i < shares.size(); i++) {
            List<Object> replies = connections.get(i).getMany(2);
            refused |= replies.get(0) instanceof JedisDataException || !(replies.get(1) instanceof Long);
            if (replies.get(1) instanceof Long found && found > 0) {
                shares.get(i).whole = true;
                send(connections.get(i), Protocol.Command.WATCH, others(shares.get(i).jobs));
            }
        }
        for (int i = 0; i < shares.size(); i++) {
            if (shares.get(i).whole) {
                refused |= connections.get(i).getMany(1).get(0) instanceof JedisDataException;
            }
        }
        connections.get(0).sendCommand(Protocol.Command.HGET, meta, VERSION);
        byte[] version = connections.get(0).getBinaryBulkReply();
        Optional<SourceFeed.Changes> drained = watch.drain();
        Set<Bytes> mine = handled;
        handled = keysOf(shares);
        if (refused || drained.isEmpty() || !Arrays.equals(version, TOMBSTONE)) {
            unusable = refused || drained.isEmpty();
            for (int i = 0; i < shares.size(); i++) {
                send(connections.get(i), Protocol.Command.UNWATCH, List.of());
            }
            for (int i = 0; i < shares.size(); i++) {
                connections.get(i).getMany(1);
            }
            return Round.NONE;
        }
        Set<Bytes> theirs = new HashSet<>(drained.get().written());
        theirs.removeAll(mine);
        written.absorb(new SourceFeed.Changes(theirs));
        checkpoints.hit("jobs watched");
        List<List<Job>> still = new ArrayList<>(shares.size());
        for (int i = 0; i < shares.size(); i++) {
            List<Job> quiet = shares.get(i).jobs.stream().filter(j -> !written.touched(j.hash())).toList();
            still.add(quiet);
            Connection c = connections.get(i);
            if (quiet.isEmpty()) {
                send(c, Protocol.Command.UNWATCH, List.of());
                continue;
            }
            c.sendCommand(Protocol.Command.MULTI);
            if (shares.get(i).whole) {
                List<byte[]> keys = new ArrayList<>(quiet.size() * 2);
                for (Job j : quiet) {
                    keys.add(j.hash().raw());
                    keys.add(j.logs().raw());
                }
                c.sendCommand(Protocol.Command.UNLINK, keys.toArray(new byte[0][]));
            } else {
                c.sendCommand(Protocol.Command.EVALSHA, unlinkUnwritten(quiet));
            }
            send(c, Protocol.Command.EXEC, List.of());
        }
        Set<Bytes> gone = new HashSet<>();
        long deleted = 0;
        for (int i = 0; i < shares.size(); i++) {
            if (still.get(i).isEmpty()) {
                connections.get(i).getMany(1);
                continue;
            }
            List<Object> replies = connections.get(i).getMany(3);
            for (Object r : replies.subList(0, 2)) {
                if (r instanceof RuntimeException failed) {
                    throw failed;
                }
            }
            if (replies.get(2) instanceof List<?> done && done.get(0) instanceof Long keys && keys >= 0) {
                deleted += keys;
                still.get(i).forEach(j -> gone.add(j.id()));
            }
        }
        return new Round(gone, deleted);
    }

    /** The logs and {@code :dependencies} keys of these jobs. */
    private static List<byte[]> others(List<Job> jobs) {
        List<byte[]> keys = new ArrayList<>(jobs.size() * 2);
        for (Job j : jobs) {
            keys.add(j.logs().raw());
            keys.add(j.dependencies().raw());
        }
        return keys;
    }

    /** The arguments of {@code EVALSHA migrate_v1_source unlink_unwritten} for these jobs. */
    private byte[][] unlinkUnwritten(List<Job> jobs) {
        int keys = queueKeys.size() + jobs.size() * 2;
        List<byte[]> args = new ArrayList<>(keys + 5);
        args.add(SCRIPT);
        args.add(Utf8.bytes(Integer.toString(keys)));
        args.addAll(queueKeys);
        for (Job j : jobs) {
            args.add(j.hash().raw());
            args.add(j.logs().raw());
        }
        args.add(UNLINK_UNWRITTEN);
        args.add(TOMBSTONE);
        return args.toArray(new byte[0][]);
    }

    /** Whether the script is loaded on the server (false when the server refuses it). */
    private boolean loaded() {
        try {
            connections.get(0).sendCommand(Protocol.Command.SCRIPT, Utf8.bytes("LOAD"), Script.MIGRATE_V1_SOURCE.source());
            return connections.get(0).getBulkReply().equals(Script.MIGRATE_V1_SOURCE.sha());
        } catch (RuntimeException refused) {
            return false;
        }
    }

    /** Whether {@code needed} connections are open, opening those missing (false when the server refuses one). */
    private boolean opened(int needed) {
        try {
            while (connections.size() < needed) {
                connections.add(DedicatedConnection.to(source.client(), queue.key(QueueStructure.META).raw()));
            }
            return true;
        } catch (RuntimeException refused) {
            return false;
        }
    }

    /** Sends one command and flushes it, so every connection's command is on its way before any reply is read. */
    private static void send(Connection c, Protocol.Command command, List<byte[]> args) {
        c.sendCommand(command, args.toArray(new byte[0][]));
        c.getMany(0);
    }

    /** The keys this round's deletions write: each job's hash and logs. */
    private static Set<Bytes> keysOf(List<Share> shares) {
        Set<Bytes> keys = new HashSet<>();
        for (Share share : shares) {
            for (Job j : share.jobs) {
                keys.add(j.hash());
                keys.add(j.logs());
            }
        }
        return keys;
    }

    @Override
    public void close() {
        connections.forEach(Connection::close);
    }
}
