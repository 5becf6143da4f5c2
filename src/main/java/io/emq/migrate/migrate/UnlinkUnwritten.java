package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
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
 * {@link #PER_CONNECTION} jobs of the round, opened when a round first needs it: one for a small queue): each {@code WATCH}es
 * the queue's meta and, for its share of the jobs, every key a job's digest reads that a write can
 * create (its hash, its logs, its {@code :dependencies}); the tombstone is read; the feed is drained (a
 * write before a WATCH shows in the drain, one after it dirties the WATCH); then each connection runs
 * {@code MULTI; UNLINK <hash> <logs> ...; EXEC} for its jobs that no drain since the pass named, in
 * the same write as the {@code WATCH} of its share of the next round: one round trip a round on each
 * connection, besides the drain. A job a drain named, a flow parent (its digest counts its children),
 * a job whose EXEC was refused twice (a write after the WATCH: the first time its share is watched
 * again in the next round, where the drain names the job written), and every job once the feed broke
 * or the server refused WATCH (an ACL without {@code @transaction}), is left to the digest check
 * ({@code retire_jobs}), which copies an edited job again.
 *
 * <p>Sound only while every key written since the last pass's drain is told here: the watch must be
 * intact since this run's fence (a run whose fence was an earlier run's has none), and nothing may
 * drain it between that pass and the first round. The keys a drain tells are kept until retirement
 * ends, but for those this retirement deleted since the drain before, so the memory they hold is that
 * of the writes v1 clients make meanwhile, not of the jobs retired.
 *
 * <p>A connection watches few keys because the server checks each key a WATCH adds against every key
 * that connection watches already (Redis 7.0: O(keys²) a transaction).
 */
final class UnlinkUnwritten implements AutoCloseable {
    static final int CONNECTIONS = 64;
    /** Jobs one connection watches in a round. */
    static final int PER_CONNECTION = 16;
    private static final byte[] VERSION = Utf8.bytes("version");
    private static final byte[] TOMBSTONE = Utf8.bytes(SourceFence.TOMBSTONE);

    private final Wire source;
    private final QueueRef queue;
    private final byte[] meta;
    private final Set<Bytes> parents;
    private final SourceFeed.Watch watch;
    private final Checkpoints checkpoints;
    /** The connections opened so far: as many as the largest round needed. */
    private final List<Connection> connections = new ArrayList<>(CONNECTIONS);
    /** The keys written since the last pass, but for those of jobs this retirement deleted. */
    private final SourceFeed.Changes written = new SourceFeed.Changes(Set.of());
    /** The hash and logs keys this retirement deleted since the last drain: that drain tells them, and they are not kept. */
    private final Set<Bytes> ours = new HashSet<>();
    private boolean unusable;

    private UnlinkUnwritten(Wire source, QueueRef queue, Set<Bytes> parents, SourceFeed.Watch watch, Checkpoints checkpoints) {
        this.source = source;
        this.queue = queue;
        this.meta = queue.key(QueueStructure.META).raw();
        this.parents = parents;
        this.watch = watch;
        this.checkpoints = checkpoints;
    }

    /**
     * Opens its first connection to a single-server source (empty for a cluster one, which has no feed
     * either, or when the server refuses the connection); {@code parents}, the flow parents of the source
     * as read, are always left to the digest check.
     */
    static Optional<UnlinkUnwritten> open(Wire source, QueueRef queue, Set<Bytes> parents, SourceFeed.Watch watch,
                                          Checkpoints checkpoints) {
        if (!(source.client() instanceof RedisClient)) {
            return Optional.empty();
        }
        UnlinkUnwritten unlinking = new UnlinkUnwritten(source, queue, parents, watch, checkpoints);
        return unlinking.opened(1) ? Optional.of(unlinking) : Optional.empty();
    }

    /** What a call left: the keys it deleted and, in order, the jobs left to the digest check. */
    record Unlinked(long deleted, List<Bytes> left) {
    }

    /** A job's keys: its hash and logs (unlinked) and its {@code :dependencies} (watched too); {@code again} once its EXEC was refused. */
    private record Job(Bytes id, Bytes hash, Bytes logs, Bytes dependencies, boolean again) {
        Job retried() {
            return new Job(id, hash, logs, dependencies, true);
        }
    }

    /** The jobs one connection watches in a round, and of those, once the round's drain came, the ones no drain named. */
    private static final class Share {
        final List<Job> jobs = new ArrayList<>(PER_CONNECTION);
        List<Job> quiet = List.of();
    }

    /**
     * Unlinks the hash and logs of each of these jobs (v1 ids) that no drain since the pass named, a round
     * at a time: each connection's write carries the EXEC of its share of one round and the WATCH of its
     * share of the next.
     */
    Unlinked unlink(List<Bytes> ids) {
        Iterator<Bytes> fresh = ids.iterator();
        Deque<Job> again = new ArrayDeque<>();
        Set<Bytes> gone = new HashSet<>();
        long deleted = 0;
        List<Share> watching = List.of();
        while (true) {
            List<Share> next = unusable ? List.of() : nextRound(fresh, again);
            if (!opened(next.size())) {
                unusable = true;
                next = List.of();
            }
            int wide = Math.max(watching.size(), next.size());
            for (int i = 0; i < wide; i++) {
                Connection c = connections.get(i);
                if (i < watching.size()) {
                    sendExec(c, watching.get(i).quiet);
                }
                if (i < next.size()) {
                    c.sendCommand(Protocol.Command.WATCH, watchKeys(next.get(i)));
                }
                if (i == 0 && !next.isEmpty()) {
                    c.sendCommand(Protocol.Command.HGET, meta, VERSION);
                }
                c.getMany(0);
            }
            boolean refused = false;
            byte[] version = null;
            for (int i = 0; i < wide; i++) {
                Connection c = connections.get(i);
                if (i < watching.size()) {
                    deleted += execReply(c, watching.get(i).quiet, gone, again);
                }
                if (i < next.size()) {
                    refused |= c.getMany(1).get(0) instanceof JedisDataException;
                }
                if (i == 0 && !next.isEmpty()) {
                    version = c.getBinaryBulkReply();
                }
            }
            if (next.isEmpty()) {
                if (again.isEmpty() || unusable) {
                    return new Unlinked(deleted, ids.stream().filter(id -> !gone.contains(id)).toList());
                }
                watching = List.of();
                continue;
            }
            Optional<SourceFeed.Changes> drained = watch.drain();
            if (drained.isPresent()) {
                Set<Bytes> theirs = new HashSet<>(drained.get().written());
                theirs.removeAll(ours);
                ours.clear();
                written.absorb(new SourceFeed.Changes(theirs));
            }
            if (refused || drained.isEmpty() || !Arrays.equals(version, TOMBSTONE)) {
                unusable = refused || drained.isEmpty();
            } else {
                checkpoints.hit("jobs watched");
                for (Share share : next) {
                    share.quiet = share.jobs.stream().filter(j -> !written.touched(j.hash())).toList();
                }
            }
            watching = next;
        }
    }

    /** The next round's shares: jobs whose EXEC was refused once first, then the next of {@code fresh}; flow parents and jobs a drain named are skipped. */
    private List<Share> nextRound(Iterator<Bytes> fresh, Deque<Job> again) {
        List<Share> shares = new ArrayList<>();
        int jobs = 0;
        while (jobs < CONNECTIONS * PER_CONNECTION && (!again.isEmpty() || fresh.hasNext())) {
            Job job = again.isEmpty() ? job(fresh.next()) : again.poll();
            if (job == null) {
                continue;
            }
            if (shares.isEmpty() || shares.get(shares.size() - 1).jobs.size() == PER_CONNECTION) {
                shares.add(new Share());
            }
            shares.get(shares.size() - 1).jobs.add(job);
            jobs++;
        }
        return shares;
    }

    /** The keys of a job this retirement may unlink, or null for one it leaves to the digest check. */
    private Job job(Bytes id) {
        if (parents.contains(id)) {
            return null;
        }
        Bytes hash = queue.jobKey(id);
        if (written.touched(hash)) {
            return null;
        }
        Bytes sub = hash.concat(":");
        return new Job(id, hash, sub.concat(JobSubKind.LOGS.suffix()), sub.concat(JobSubKind.DEPENDENCIES.suffix()), false);
    }

    private byte[][] watchKeys(Share share) {
        byte[][] keys = new byte[share.jobs.size() * 3 + 1][];
        keys[0] = meta;
        int k = 1;
        for (Job j : share.jobs) {
            keys[k++] = j.hash().raw();
            keys[k++] = j.logs().raw();
            keys[k++] = j.dependencies().raw();
        }
        return keys;
    }

    /** Queues the transaction that unlinks these jobs' keys, or, with none to unlink, the UNWATCH of the connection's share. */
    private static void sendExec(Connection c, List<Job> quiet) {
        if (quiet.isEmpty()) {
            c.sendCommand(Protocol.Command.UNWATCH);
            return;
        }
        byte[][] keys = new byte[quiet.size() * 2][];
        int k = 0;
        for (Job j : quiet) {
            keys[k++] = j.hash().raw();
            keys[k++] = j.logs().raw();
        }
        c.sendCommand(Protocol.Command.MULTI);
        c.sendCommand(Protocol.Command.UNLINK, keys);
        c.sendCommand(Protocol.Command.EXEC);
    }

    /**
     * Reads what {@link #sendExec} queued: the keys deleted, the jobs unlinked added to {@code gone}
     * (their keys to {@link #ours}); for a refused EXEC, its jobs to {@code again} the first time.
     */
    private long execReply(Connection c, List<Job> quiet, Set<Bytes> gone, Deque<Job> again) {
        if (quiet.isEmpty()) {
            c.getMany(1);
            return 0;
        }
        List<Object> replies = c.getMany(3);
        for (Object r : replies) {
            if (r instanceof RuntimeException failed) {
                throw failed;
            }
        }
        if (!(replies.get(2) instanceof List<?> done)) {
            quiet.stream().filter(j -> !j.again()).map(Job::retried).forEach(again::add);
            return 0;
        }
        for (Job j : quiet) {
            gone.add(j.id());
            ours.add(j.hash());
            ours.add(j.logs());
        }
        return (Long) done.get(0);
    }

    /** Whether {@code needed} connections are open, opening those missing (false when the server refuses one). */
    private boolean opened(int needed) {
        try {
            while (connections.size() < needed) {
                connections.add(DedicatedConnection.to(source.client(), meta));
            }
            return true;
        } catch (RuntimeException refused) {
            return false;
        }
    }

    @Override
    public void close() {
        connections.forEach(Connection::close);
    }
}
