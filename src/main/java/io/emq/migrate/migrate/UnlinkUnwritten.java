package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueStructure;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Retires the v1 jobs of a tombstoned queue that the change feed tells unwritten since the last re-sync
 * pass, without digesting them: what they hold is what that pass (or one before it) left v2 holding.
 * A round of {@link #ROUND} jobs at a time, spread over connections of its own (opened when a round first needs
 * them: one for a small queue), each with a share of the round's jobs: each {@code WATCH}es
 * the queue's meta and, for its share of the jobs, every key a job's digest reads that a write can
 * create (its hash, its logs, its {@code :dependencies}), or all but its logs for a job that has no logs
 * list and no flow key (this run's fence read met no flow key of the queue's and no logs list of the job's, nor did
 * a read since, and no drain since told one of the job's; a flow starts with {@code :dependencies}, so a child added
 * to it still dirties the WATCH); the tombstone is read (in the first
 * connection's write, after its WATCH; in a round whose every job is left, alone); the feed is drained (a write before a WATCH shows in the drain,
 * one after it dirties the WATCH); then each connection runs
 * {@code MULTI; UNLINK <hash> <logs> ...; EXEC} for its jobs that no drain since the pass named (the
 * hash alone of a job watched without its logs). A
 * job a drain named, a flow parent (its digest counts its children), every job of a connection whose
 * EXEC was refused (a write after the WATCH), and every job once the feed broke or the server refused
 * WATCH (an ACL without {@code @transaction}), is left to the digest check ({@code retire_jobs}), which
 * copies an edited job again. A logs list (or a flow key other than {@code :dependencies}, which no BullMQ
 * script writes first) written between the WATCH and the EXEC of a job watched without its logs is not
 * watched: the next round's drain (or {@link #finish}'s) tells it, and
 * the caller copies that job's logs (v1 adds none to a job whose hash is gone) or refuses the flow key
 * ({@link Unlinked#late}); so it does for every such job of the round before a drain that found the feed broken.
 *
 * <p>Sound only while every key written since the last pass's drain is told here: the watch must be
 * intact since this run's fence (a run whose fence was an earlier run's has none), and nothing may
 * drain it between that pass and the first round. The keys a drain tells are kept until retirement
 * ends, but for those of the round before (this retirement's own deletions), so the memory they hold is
 * that of the writes v1 clients make meanwhile, not of the jobs retired.
 *
 * <p>How many jobs a connection takes is a trade: each transaction costs both sides its socket calls
 * and commands whatever it holds, but the server checks each key a WATCH adds against every key that
 * connection watches already (Redis 7.0: O(keys²) a transaction), and a refused EXEC leaves its whole
 * share to the digest check. So a connection watches at most {@link #MOST_WATCHED} job keys while no
 * EXEC is refused ({@link #PER_CONNECTION} jobs watched by their hash alone, a round over
 * {@link #CONNECTIONS} connections); a round with a refused EXEC (a source written meanwhile) halves
 * that for the next round, down to {@link #LEAST_WATCHED}, and a round without one doubles it back.
 */
final class UnlinkUnwritten implements AutoCloseable {
    /** Jobs one connection watches in a round while no EXEC is refused, each watched by its hash alone (and its {@code :dependencies}). */
    static final int PER_CONNECTION = 48;
    /** Connections a round of jobs watched by their hash alone takes while no EXEC is refused. */
    static final int CONNECTIONS = 10;
    /** Jobs a round: the feed is drained and the tombstone read once a round. */
    static final int ROUND = CONNECTIONS * PER_CONNECTION;
    /** The most job keys one connection watches (meta aside): {@link #PER_CONNECTION} jobs by their hash alone, 32 with their logs. */
    static final int MOST_WATCHED = 2 * PER_CONNECTION;
    /** The fewest a refused EXEC shrinks that to: 16 jobs watched with their logs, so a round takes at most 30 connections. */
    static final int LEAST_WATCHED = 48;
    private static final byte[] VERSION = Utf8.bytes("version");
    private static final byte[] TOMBSTONE = Utf8.bytes(SourceFence.TOMBSTONE);

    private final Wire source;
    private final QueueRef queue;
    /** {@code <prefix>:<queue>:}, which every job's keys begin with. */
    private final Bytes base;
    private final Set<Bytes> parents;
    private final SourceFeed.Watch watch;
    private final Checkpoints checkpoints;
    /** The connections opened so far: as many as the largest round needed. */
    private final List<Connection> connections = new ArrayList<>();
    /** The keys written since the last pass, but for those of jobs this retirement handled already. */
    private final SourceFeed.Changes written = new SourceFeed.Changes(Set.of());
    /** The hash and logs keys of the round before: its deletions show in the next drain. */
    private Set<Bytes> handled = Set.of();
    /** The jobs of the round before unlinked by their hash alone: a logs list or flow key written before their EXEC shows in the next drain. */
    private List<Job> unlinkedByHash = List.of();
    /** Whether a job (by id) may have a logs list or flow key the feed did not tell ({@link #open}): if not, and the feed told none since, it has none. */
    private final Predicate<Bytes> mayHaveExtras;
    /** The most job keys a connection watches in the next round: {@link #MOST_WATCHED}, less after a round with a refused EXEC. */
    private int watchedPerConnection = MOST_WATCHED;
    private boolean unusable;

    private UnlinkUnwritten(Wire source, QueueRef queue, Set<Bytes> parents, SourceFeed.Watch watch, Predicate<Bytes> mayHaveExtras,
                            Checkpoints checkpoints) {
        this.mayHaveExtras = mayHaveExtras;
        this.source = source;
        this.queue = queue;
        this.base = queue.base();
        this.parents = parents;
        this.watch = watch;
        this.checkpoints = checkpoints;
    }

    /**
     * Opens its first connection to the server that holds the queue (on a cluster, the master of the slot its keys
     * share: a watched queue's prefix pins it, {@link SourceFeed}); empty when the server refuses the connection.
     * {@code parents}, the flow parents of the source as read, are always left to the digest check;
     * {@code mayHaveExtras}: whether a job (by id) may have a logs list or flow key that {@code watch} did not tell: this
     * run's fence read, after {@code watch} began, met a flow key (then every job may), or a read since met its logs list.
     * On a cluster a slot moved away between a round's drain and its {@code EXEC} deleted the watched keys from
     * this master ({@code MIGRATE}): the {@code EXEC} is refused and its jobs go to the digest check.
     */
    static Optional<UnlinkUnwritten> open(Wire source, QueueRef queue, Set<Bytes> parents, SourceFeed.Watch watch,
                                          Predicate<Bytes> mayHaveExtras, Checkpoints checkpoints) {
        UnlinkUnwritten unlinking = new UnlinkUnwritten(source, queue, parents, watch, mayHaveExtras, checkpoints);
        return unlinking.opened(1) ? Optional.of(unlinking) : Optional.empty();
    }

    /**
     * What a call left: the keys it deleted; in order, the jobs left to the digest check; and the jobs
     * unlinked by their hash alone (in this call or the one before) that may have had a logs list or
     * flow key written between their WATCH and their EXEC (the feed told one, or broke before it could
     * tell): the caller copies their logs and refuses a flow key ({@code RetireSource}).
     */
    record Unlinked(long deleted, List<Bytes> left, List<Bytes> late) {
    }

    /**
     * Unlinks the keys of each of these jobs (v1 ids) that no drain since the pass named, a round at a
     * time: its hash and logs, or its hash alone when the feed tells it has no logs list or flow key.
     */
    Unlinked unlink(List<Bytes> ids) {
        long deleted = 0;
        List<Bytes> left = new ArrayList<>();
        List<Bytes> late = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += ROUND) {
            List<Bytes> some = ids.subList(from, Math.min(ids.size(), from + ROUND));
            Round round = unusable ? Round.NONE : unlinkRound(some);
            deleted += round.deleted();
            late.addAll(round.late());
            some.stream().filter(id -> !round.gone().contains(id)).forEach(left::add);
        }
        return new Unlinked(deleted, left, late);
    }

    /**
     * The jobs of the last round unlinked by their hash alone that may have had a logs list or flow key
     * written before their EXEC (see {@link Unlinked#late}): one more drain tells. Called once the
     * last round is done.
     */
    List<Bytes> finish() {
        return unlinkedByHash.isEmpty() ? List.of() : late(watch.drainKeys(), handled);
    }

    /**
     * Of the jobs of the round before unlinked by their hash alone, those that may have had a logs list
     * or flow key written before their EXEC: those under whose hash {@code drained} tells a key (the
     * round's own deletions, {@code mine}, aside), or all of them when the feed broke. The drained keys
     * join {@link #written}.
     */
    private List<Bytes> late(Optional<Set<Bytes>> drained, Set<Bytes> mine) {
        List<Job> before = unlinkedByHash;
        unlinkedByHash = List.of();
        if (drained.isEmpty()) {
            return before.stream().map(Job::id).toList();
        }
        Set<Bytes> theirs = drained.get();
        theirs.removeAll(mine);
        written.absorb(new SourceFeed.Changes(theirs));
        return before.stream().filter(j -> written.touched(j.hash())).map(Job::id).toList();
    }

    /** What one round did: the jobs whose keys it unlinked, how many keys it deleted, and those of the round before found late ({@link #late}). */
    private record Round(Set<Bytes> gone, long deleted, List<Bytes> late) {
        static final Round NONE = new Round(Set.of(), 0, List.of());
    }

    /**
     * A job's keys, each built once: its id, hash, logs and {@code :dependencies}; {@code hashOnly} when
     * it has no logs list and no flow key (the reads met none and the feed told none since): its
     * logs are then neither watched nor unlinked, its hash alone unlinked.
     */
    private record Job(Bytes id, Bytes hash, Bytes logs, Bytes dependencies, boolean hashOnly) {
        /** Hands on the keys its share's {@code WATCH} covers: its hash, its {@code :dependencies}, and its logs unless it is watched by its hash alone. */
        void watched(Consumer<Bytes> keys) {
            keys.accept(hash);
            keys.accept(dependencies);
            if (!hashOnly) {
                keys.accept(logs);
            }
        }

        /** How many keys {@link #watched} hands on. */
        int watchedKeys() {
            return hashOnly ? 2 : 3;
        }

        /** Hands on the keys its {@code UNLINK} deletes: its hash, and its logs unless it is unlinked by its hash alone. */
        void unlinked(Consumer<Bytes> keys) {
            keys.accept(hash);
            if (!hashOnly) {
                keys.accept(logs);
            }
        }
    }

    /**
     * The jobs of {@code ids} to watch, in shares of one connection each, in order: every one but the flow parents and
     * those a drain since the pass named, a share watching at most {@link #watchedPerConnection} job keys.
     */
    private List<List<Job>> shares(List<Bytes> ids) {
        List<List<Job>> shares = new ArrayList<>();
        int watched = 0;
        for (Bytes id : ids) {
            Bytes hash = base.concat(id);
            if (!parents.contains(id) && !written.touched(hash)) {
                Job job = new Job(id, hash, hash.concat(JobSubKind.LOGS.colonSuffix()), hash.concat(JobSubKind.DEPENDENCIES.colonSuffix()),
                        !mayHaveExtras.test(id) && !watch.toldExtras(hash));
                if (shares.isEmpty() || watched + job.watchedKeys() > watchedPerConnection) {
                    shares.add(new ArrayList<>());
                    watched = 0;
                }
                shares.get(shares.size() - 1).add(job);
                watched += job.watchedKeys();
            }
        }
        return shares;
    }

    private Round unlinkRound(List<Bytes> ids) {
        List<List<Job>> shares = shares(ids);
        byte[] meta = queue.key(QueueStructure.META).raw();
        if (!opened(shares.size())) {
            unusable = true;
            return Round.NONE;
        }
        for (int i = 0; i < Math.max(1, shares.size()); i++) {
            Connection c = connections.get(i);
            if (i < shares.size()) {
                List<byte[]> keys = new ArrayList<>(watchedPerConnection + 1);
                keys.add(meta);
                shares.get(i).forEach(j -> j.watched(key -> keys.add(key.raw())));
                c.sendCommand(Protocol.Command.WATCH, keys.toArray(new byte[0][]));
            }
            if (i == 0) {
                c.sendCommand(Protocol.Command.HGET, meta, VERSION);
            }
            c.getMany(0);
        }
        boolean refused = false;
        Object version = null;
        for (int i = 0; i < Math.max(1, shares.size()); i++) {
            List<Object> replies = connections.get(i).getMany((i < shares.size() ? 1 : 0) + (i == 0 ? 1 : 0));
            refused |= i < shares.size() && replies.get(0) instanceof JedisDataException;
            if (i == 0) {
                version = replies.get(replies.size() - 1);
            }
        }
        Optional<Set<Bytes>> drained = watch.drainKeys();
        List<Bytes> late = late(drained, handled);
        handled = keysOf(shares);
        if (refused || drained.isEmpty() || !(version instanceof byte[] v && Arrays.equals(v, TOMBSTONE))) {
            unusable = refused || drained.isEmpty();
            for (int i = 0; i < shares.size(); i++) {
                send(connections.get(i), Protocol.Command.UNWATCH, List.of());
            }
            for (int i = 0; i < shares.size(); i++) {
                connections.get(i).getMany(1);
            }
            return new Round(Set.of(), 0, late);
        }
        checkpoints.hit("jobs watched");
        List<List<Job>> still = new ArrayList<>(shares.size());
        for (int i = 0; i < shares.size(); i++) {
            List<Job> quiet = shares.get(i).stream().filter(j -> !written.touched(j.hash())).toList();
            still.add(quiet);
            Connection c = connections.get(i);
            if (quiet.isEmpty()) {
                send(c, Protocol.Command.UNWATCH, List.of());
                continue;
            }
            List<byte[]> keys = new ArrayList<>(quiet.size() * 2);
            quiet.forEach(j -> j.unlinked(key -> keys.add(key.raw())));
            c.sendCommand(Protocol.Command.MULTI);
            c.sendCommand(Protocol.Command.UNLINK, keys.toArray(new byte[0][]));
            send(c, Protocol.Command.EXEC, List.of());
        }
        Set<Bytes> gone = new HashSet<>();
        List<Job> byHash = new ArrayList<>();
        long deleted = 0;
        boolean execRefused = false;
        for (int i = 0; i < shares.size(); i++) {
            if (still.get(i).isEmpty()) {
                connections.get(i).getMany(1);
                continue;
            }
            List<Object> replies = connections.get(i).getMany(3);
            for (Object r : replies) {
                if (r instanceof RuntimeException failed) {
                    throw failed;
                }
            }
            if (replies.get(2) instanceof List<?> done) {
                deleted += (Long) done.get(0);
                still.get(i).forEach(j -> gone.add(j.id()));
                still.get(i).stream().filter(Job::hashOnly).forEach(byHash::add);
            } else {
                execRefused = true;
            }
        }
        unlinkedByHash = byHash;
        watchedPerConnection = execRefused ? Math.max(LEAST_WATCHED, watchedPerConnection / 2)
                : Math.min(MOST_WATCHED, watchedPerConnection * 2);
        return new Round(gone, deleted, late);
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

    /** The keys this round's deletions write: each watched job's hash, and its logs unless it is unlinked by its hash alone. */
    private static Set<Bytes> keysOf(List<List<Job>> shares) {
        Set<Bytes> keys = new HashSet<>();
        for (List<Job> share : shares) {
            share.forEach(j -> j.unlinked(keys::add));
        }
        return keys;
    }

    @Override
    public void close() {
        connections.forEach(DedicatedConnection::close);
    }
}
