package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.DaemonThreads;
import io.emq.migrate.wire.DedicatedConnection;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.Pool;

/**
 * The change feed of the v1 source: the server tells which keys under a watched queue's prefix were
 * written since the queue's watch began, so a re-sync pass re-reads only those jobs. Client tracking
 * in broadcast mode ({@code CLIENT TRACKING ON REDIRECT <id> BCAST PREFIX P:Q: ...}, Redis 6.0+): on each
 * server that holds a watched queue ({@link Server}), one connection holds the tracking and one RESP2
 * connection subscribed to {@code __redis__:invalidate} receives every written key (a null message on
 * FLUSHALL/FLUSHDB), whoever wrote it. One feed serves every queue of a run.
 *
 * <p>A drain is exact: the server queues the invalidations of a write to the subscriber before the
 * replies of the same event-loop turn, so once a command on the tracking connection has been answered,
 * a PING on the subscribed connection comes back after every invalidation of every write that server
 * executed before that command. On a cluster source a queue's keys share one slot (its prefix is
 * hash-tagged, as BullMQ on a cluster requires), so the master that owns the slot executes every write
 * of the queue while it keeps the slot: each drain checks, after its PING, that it still does ({@link Placement}).
 * A feed that could not start (an old server, an ACL without {@code CLIENT TRACKING}, {@code SUBSCRIBE} or, on
 * a cluster, {@code CLUSTER NODES}), or that broke (a connection dropped or was killed, a flush, a prefix
 * refused, a watched queue's slot moved or its master failed over), answers no drain: the caller makes a full pass.
 */
final class SourceFeed implements AutoCloseable {
    private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final long WAIT_SECONDS = 10;
    /**
     * The most queues one feed watches: the server compares every key any client writes with every
     * watched prefix, so a run of thousands of (small) queues watches the first ones only; the rest
     * re-sync with full passes.
     */
    static final int MOST_WATCHED = 64;
    /** Why a queue past the first {@link #MOST_WATCHED} of a run is not watched. */
    static final String PAST_MOST_WATCHED = "a run's change feed watches its first " + MOST_WATCHED + " queues";

    private final Wire source;
    /** Whether the source is a cluster: a queue's writes are told by the master of its slot, while it holds it. */
    private final boolean cluster;
    /** The feed's connections to each server that holds a watched queue, by that server's pool in the source's client. */
    private final Map<Pool<Connection>, Server> servers = new IdentityHashMap<>();
    /** The keys written since the last drain, by the prefix of the watched queue they belong to. */
    private final Map<Bytes, Set<Bytes>> written = new HashMap<>();
    private final Map<String, CompletableFuture<Void>> pongs = new ConcurrentHashMap<>();
    private final AtomicLong pings = new AtomicLong();
    private volatile String broken;

    /** The feed of this source; it opens a server's connections when the first queue it holds is watched. */
    SourceFeed(Wire source) {
        this.source = source;
        this.cluster = source.client() instanceof RedisClusterClient;
    }

    /**
     * The feed's connections to the server that holds {@code prefix} (on a cluster, the master of its slot), opened
     * when none are; empty, the feed broken with the reason, when they cannot be.
     */
    private Optional<Server> serverOf(Bytes prefix) {
        Connection tracking = null;
        Connection subscribed = null;
        try {
            Pool<Connection> pool = DedicatedConnection.serverOf(source.client(), prefix.raw());
            Server known = servers.get(pool);
            if (known != null) {
                return Optional.of(known);
            }
            tracking = DedicatedConnection.make(pool);
            subscribed = DedicatedConnection.make(pool);
            Server server = new Server(tracking.getHostAndPort().toString(), tracking, subscribed);
            servers.put(pool, server);
            return Optional.of(server);
        } catch (Exception refused) {
            breaks(refusedByAcl(refused).orElse("the change feed could not start: " + refused.getMessage()));
            close(tracking);
            close(subscribed);
            return Optional.empty();
        }
    }

    /**
     * Starts watching a queue: every key under its prefix written from now on is told to its watch.
     * Empty when the feed is broken, watches {@link #MOST_WATCHED} queues already, or the server refuses
     * the prefix (it overlaps one already watched, or the ACL refuses CLIENT TRACKING); on a cluster, the
     * feed breaks when the queue's master cannot tell where its slot is ({@link Placement}).
     */
    synchronized Optional<Watch> watch(QueueRef queue) {
        synchronized (written) {
            if (broken != null || written.size() >= MOST_WATCHED) {
                return Optional.empty();
            }
        }
        Bytes prefix = queue.base();
        if (spread(prefix)) {
            return Optional.empty();
        }
        Optional<Server> server = serverOf(prefix);
        if (server.isEmpty()) {
            return Optional.empty();
        }
        Optional<Placement> placed = Optional.empty();
        if (cluster) {
            placed = server.get().placement(Slots.slot(prefix.raw()));
            if (placed.isEmpty()) {
                breaks("the master of the queue's slot " + Slots.slot(prefix.raw()) + " cannot tell that it holds it"
                        + " (the slot is moving, or the source refuses CLUSTER NODES)");
                return Optional.empty();
            }
        }
        if (!server.get().track(prefix)) {
            return Optional.empty();
        }
        synchronized (written) {
            written.put(prefix, new HashSet<>());
        }
        return Optional.of(new Watch(prefix, server.get(), placed));
    }

    /** Why {@link #watch} just left {@code queue} unwatched. */
    String whyUnwatched(QueueRef queue) {
        if (broken != null) {
            return broken;
        }
        if (spread(queue.base())) {
            return "the queue's keys are spread over the cluster's slots (its prefix has no hash tag)";
        }
        synchronized (written) {
            if (written.size() >= MOST_WATCHED) {
                return PAST_MOST_WATCHED;
            }
        }
        return "the source refuses CLIENT TRACKING of the queue's prefix (its ACL, or a queue nested in another)";
    }

    /**
     * Why the feed cannot run when {@code failure} (or a cause of it) is the source's ACL refusing one of its commands or
     * its channel ({@code NOPERM}): what its user needs.
     */
    private static Optional<String> refusedByAcl(Throwable failure) {
        return ServerRefusal.repliesIn(failure).stream().filter(said -> said.startsWith("NOPERM")).findFirst()
                .map(said -> "the source user may not run the change feed's commands (" + said + "): it needs +client|id"
                        + " +client|tracking +client|getredir +subscribe &__redis__:invalidate (MIGRATION.md, least privilege)");
    }

    /** Whether a queue under {@code prefix} has keys in more than one slot of a cluster: one master's feed would tell only some of its writes. */
    private boolean spread(Bytes prefix) {
        return cluster && !Slots.pins(prefix.raw());
    }

    private void breaks(String why) {
        if (broken == null) {
            broken = why;
        }
    }

    /** Stops the feed: tracking off, every server's connections closed. */
    @Override
    public synchronized void close() {
        breaks("closed");
        servers.values().forEach(Server::close);
        servers.clear();
    }

    private static void close(Connection c) {
        if (c != null) {
            DedicatedConnection.close(c);
        }
    }

    /**
     * Where a cluster source's queue lives: the slot its keys share, held by the master the feed tracks, at that
     * master's config epoch ({@code CLUSTER NODES}, its own line). A master that gives a slot away and takes it back
     * bumps its config epoch on taking it (it does when it does not hold the cluster's greatest, and the master it had
     * given the slot to took the greatest, or had it); a master that failed over is a replica, or a replica promoted
     * with an epoch of its own. So a master that holds the slot, not migrating it, at the epoch it had when the watch
     * began held it all along: every write of the queue since was executed there, and told.
     */
    record Placement(int slot, long epoch) {
        /** Where the master on {@code c} holds {@code slot} now; empty when it does not (or refuses to tell). */
        static Optional<Placement> read(Connection c, int slot) {
            String nodes;
            try {
                c.sendCommand(Protocol.Command.CLUSTER, "NODES");
                nodes = c.getBulkReply();
            } catch (JedisDataException refused) {
                return Optional.empty();
            }
            return nodes.lines().map(line -> line.split(" "))
                    .filter(f -> f.length >= 8 && List.of(f[2].split(",")).containsAll(List.of("myself", "master")))
                    .filter(f -> holds(f, slot)).map(f -> new Placement(slot, Long.parseLong(f[6]))).findFirst();
        }

        /** Whether the {@code CLUSTER NODES} line {@code f} names {@code slot} among its slots, and not as one it is migrating. */
        private static boolean holds(String[] f, int slot) {
            boolean held = false;
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    if (f[i].startsWith("[" + slot + "->")) {
                        return false; // migrating to another master: keys may be written there
                    }
                    continue;
                }
                int dash = f[i].indexOf('-');
                int from = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(f[i].substring(dash + 1));
                held |= from <= slot && slot <= to;
            }
            return held;
        }
    }

    /**
     * The feed's two connections to one server: the tracking one, which tracks every watched prefix the server
     * holds, and the subscribed one it redirects to, read by a thread of its own.
     */
    private final class Server {
        private final String address;
        private final Connection tracking;
        private final Connection subscribed;
        private final long subscriberId;
        private final Listener listener = new Listener();

        Server(String address, Connection tracking, Connection subscribed) throws Exception {
            this.address = address;
            this.tracking = tracking;
            this.subscribed = subscribed;
            subscribed.sendCommand(Protocol.Command.CLIENT, "ID");
            this.subscriberId = subscribed.getIntegerReply();
            listen();
        }

        private void listen() throws Exception {
            CompletableFuture<Void> ready = new CompletableFuture<>();
            listener.ready = ready;
            Thread thread = DaemonThreads.named("emq-migrate-source-feed").newThread(() -> {
                try {
                    listener.proceed(subscribed, CHANNEL);
                    breaks("the subscriber connection to " + address + " closed");
                } catch (RuntimeException dropped) {
                    breaks(refusedByAcl(dropped).orElse(lost(dropped)));
                } finally {
                    ready.completeExceptionally(new IllegalStateException(broken));
                    pongs.values().forEach(p -> p.complete(null));
                }
            });
            thread.start();
            ready.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        /** Tracks {@code prefix} on this server; false when it refuses (the feed breaks when the connection dropped). */
        boolean track(Bytes prefix) {
            try {
                tracking.sendCommand(Protocol.Command.CLIENT, Utf8.bytes("TRACKING"), Utf8.bytes("ON"), Utf8.bytes("REDIRECT"),
                        Utf8.bytes(Long.toString(subscriberId)), Utf8.bytes("BCAST"), Utf8.bytes("PREFIX"), prefix.raw());
                tracking.getStatusCodeReply();
                return true;
            } catch (RuntimeException refused) {
                if (!tracking.isConnected() || tracking.isBroken()) {
                    breaks(lost(refused));
                }
                return false;
            }
        }

        /**
         * Waits until every write this server executed before this call has been told: a command answered on the
         * tracking connection (which also proves tracking still redirects to the subscriber), then a PING answered
         * on the subscribed connection. False when the feed broke.
         */
        boolean barrier() {
            if (broken != null) {
                return false;
            }
            try {
                tracking.sendCommand(Protocol.Command.CLIENT, "GETREDIR");
                if (tracking.getIntegerReply() != subscriberId) {
                    breaks("tracking on " + address + " no longer redirects to the subscriber");
                    return false;
                }
                String token = Long.toString(pings.incrementAndGet());
                CompletableFuture<Void> pong = new CompletableFuture<>();
                pongs.put(token, pong);
                listener.ping(Utf8.bytes(token));
                pong.get(WAIT_SECONDS, TimeUnit.SECONDS);
                pongs.remove(token);
            } catch (RuntimeException dropped) {
                breaks(lost(dropped));
            } catch (Exception unanswered) {
                breaks("the change feed from " + address + " did not answer within " + WAIT_SECONDS + " s");
            }
            return broken == null;
        }

        /** Where this server holds {@code slot} now ({@link Placement#read}); empty, the feed broken, when the connection dropped. */
        Optional<Placement> placement(int slot) {
            try {
                return Placement.read(tracking, slot);
            } catch (RuntimeException dropped) {
                breaks(lost(dropped));
                return Optional.empty();
            }
        }

        /** Why the feed broke when a connection to this server was lost: as a run tells a lost connection ({@link ConnectionLoss}). */
        private String lost(RuntimeException lost) {
            return "the change feed broke: " + ConnectionLoss.of(lost, "the source " + address);
        }

        void close() {
            if (listener.isSubscribed()) {
                try {
                    listener.unsubscribe();
                } catch (RuntimeException gone) {
                    // the connection closes below either way
                }
            }
            SourceFeed.close(tracking);
            SourceFeed.close(subscribed);
        }
    }

    /** One queue's view of the feed. */
    final class Watch {
        private final Bytes prefix;
        private final Server server;
        /** On a cluster source, where the queue was when the watch began; empty on a single server. */
        private final Optional<Placement> placed;
        private boolean ended;
        /** The job hashes a drain since the watch began told a logs list or flow key of ({@link SourceFence#EXTRAS}). */
        private final Set<Bytes> withExtras = new HashSet<>();

        private Watch(Bytes prefix, Server server, Optional<Placement> placed) {
            this.prefix = prefix;
            this.server = server;
            this.placed = placed;
        }

        /**
         * Waits until every write of this queue executed before this call has been told ({@link Server#barrier}); on
         * a cluster, then checks that its master held its slot all along ({@link Placement}), or breaks the feed.
         */
        private boolean barrier() {
            synchronized (SourceFeed.this) {
                if (!server.barrier()) {
                    return false;
                }
                if (placed.isPresent() && !server.placement(placed.get().slot()).equals(placed)) {
                    breaks("the queue's slot " + placed.get().slot() + " moved, or its master " + server.address
                            + " failed over, during the run: the feed of one master cannot tell what another wrote");
                    return false;
                }
                return true;
            }
        }

        /**
         * The keys of this queue written since the previous drain (since the watch began, the first
         * time); empty when the feed broke or this watch ended, and from then on.
         */
        Optional<Changes> drain() {
            return drainKeys().map(Changes::new);
        }

        /**
         * As {@link #drain}, the keys left for the next drain to tell again: a pass's read of the whole source takes
         * what v1 wrote since the pass drained (not in its changes, maybe not as its read saw it), and the next pass
         * or the retirement is still told it.
         */
        Optional<Changes> peek() {
            Optional<Set<Bytes>> keys = drainKeys();
            keys.ifPresent(this::tellAgain);
            return keys.map(Changes::new);
        }

        /**
         * Has the next drain tell these keys again, as written since it: a pass that failed after its drain gives back what
         * it drained (it may not have acted on all of it), so the pass tried after it acts on those keys too, from the
         * snapshot the failed pass left (read after that drain, or the one before it, read before).
         */
        void tellAgain(Set<Bytes> keys) {
            synchronized (written) {
                written.computeIfPresent(prefix, (p, since) -> {
                    since.addAll(keys);
                    return since;
                });
            }
        }

        /** As {@link #drain}, the keys alone, in a set of the caller's own (no {@link Changes} built of them). */
        Optional<Set<Bytes>> drainKeys() {
            if (ended || !barrier()) {
                return Optional.empty();
            }
            Set<Bytes> keys;
            synchronized (written) {
                keys = written.put(prefix, new HashSet<>());
            }
            if (keys == null) {
                return Optional.empty();
            }
            for (Bytes key : keys) {
                for (JobSubKind kind : SourceFence.EXTRAS) {
                    if (key.endsWith(kind.colonSuffix())) {
                        withExtras.add(key.dropSuffix(kind.colonSuffix()));
                    }
                }
            }
            return Optional.of(keys);
        }

        /**
         * Whether a drain since the watch began told a logs list or flow key of the job at this hash
         * (one of {@link SourceFence#EXTRAS}; the job may still have one the key scan before the watch met).
         */
        boolean toldExtras(Bytes jobHash) {
            return withExtras.contains(jobHash);
        }

        /** Why {@link #drain} tells nothing: the feed broke, or this watch ended. */
        String whyNot() {
            return broken != null ? broken : "the change feed's watch of this queue ended";
        }

        /** Ends this watch (a retired queue's deletions are not kept); the last one to end closes the feed. */
        void end() {
            ended = true;
            boolean last;
            synchronized (written) {
                written.remove(prefix);
                last = written.isEmpty();
            }
            if (last) {
                close();
            }
        }
    }

    /** The keys of one queue written between two drains (or more, see {@link #absorb}). */
    static final class Changes {
        private final Set<Bytes> written = new HashSet<>();
        /** Every written key, and each of its beginnings that ends before a colon. */
        private final Set<Bytes> stems = new HashSet<>();
        /** The stems under one queue's base with the base taken off (see {@link #touchedJob}), built on first use. */
        private final Map<Bytes, Set<Bytes>> idStems = new HashMap<>();
        private boolean unknown;

        Changes(Set<Bytes> written) {
            add(written);
        }

        private void add(Set<Bytes> keys) {
            idStems.clear();
            written.addAll(keys);
            for (Bytes k : keys) {
                stems.add(k);
                byte[] raw = k.raw();
                for (int i = 0; i < raw.length; i++) {
                    if (raw[i] == ':') {
                        stems.add(k.slice(0, i));
                    }
                }
            }
        }

        /** Adds the keys written between the next two drains. */
        void absorb(Changes later) {
            add(later.written);
        }

        /** From now on tells every key touched: what was written after the drain is unknown (the feed broke before the next). */
        void lost() {
            unknown = true;
        }

        /** Whether {@link #written} is every key written (false once the feed broke before the next drain: see {@link #lost}). */
        boolean complete() {
            return !unknown;
        }

        /** How many keys were written. */
        int keys() {
            return written.size();
        }

        /** The keys written. */
        Set<Bytes> written() {
            return Collections.unmodifiableSet(written);
        }

        /** Whether this key, or a key under it (a job hash's logs, lock or flow keys), was written. */
        boolean touched(Bytes key) {
            return unknown || stems.contains(key);
        }

        /** As {@link #touched} of the job hash {@code base + id}, without building the key. */
        boolean touchedJob(Bytes base, Bytes id) {
            return unknown || touchedUnder(base).contains(id);
        }

        /**
         * The ids {@link #touchedJob} is true of under {@code base}, when the feed is {@link #complete}: each key written
         * and each of its stems (up to a colon) that begins with the base, the base taken off.
         */
        Set<Bytes> touchedUnder(Bytes base) {
            if (unknown) {
                throw new IllegalStateException("the feed cannot tell what was written");
            }
            return Collections.unmodifiableSet(idStems.computeIfAbsent(base, b -> {
                Set<Bytes> under = new HashSet<>();
                stems.stream().filter(k -> k.startsWith(b)).forEach(k -> under.add(k.dropPrefix(b)));
                return under;
            }));
        }
    }

    private final class Listener extends BinaryJedisPubSub {
        private CompletableFuture<Void> ready;

        @Override
        public void onSubscribe(byte[] channel, int subscribedChannels) {
            ready.complete(null);
        }

        @Override
        public void onMessage(byte[] channel, byte[] key) {
            if (key == null) {
                breaks("the source was flushed");
                return;
            }
            Bytes k = Bytes.of(key);
            synchronized (written) {
                for (int i = 0; i < key.length; i++) {
                    if (key[i] == ':') {
                        Set<Bytes> keys = written.get(k.slice(0, i + 1));
                        if (keys != null) {
                            keys.add(k);
                            return;
                        }
                    }
                }
            }
        }

        @Override
        public void onPong(byte[] token) {
            CompletableFuture<Void> pong = pongs.get(new String(token, StandardCharsets.UTF_8));
            if (pong != null) {
                pong.complete(null);
            }
        }
    }
}
