package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.JobSubKind;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.Wire;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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
import redis.clients.jedis.RedisClient;

/**
 * The change feed of the v1 source: the server tells which keys under a watched queue's prefix were
 * written since the queue's watch began, so a re-sync pass re-reads only those jobs. Client tracking
 * in broadcast mode ({@code CLIENT TRACKING ON REDIRECT <id> BCAST PREFIX P:Q: ...}, Redis 6.0+): one
 * connection holds the tracking, one RESP2 connection subscribed to {@code __redis__:invalidate}
 * receives every written key (a null message on FLUSHALL/FLUSHDB), whoever wrote it. One feed serves
 * every queue of a run.
 *
 * <p>A drain is exact: the server queues the invalidations of a write to the subscriber before the
 * replies of the same event-loop turn, so once a command on the tracking connection has been answered,
 * a PING on the subscribed connection comes back after every invalidation of every write that server
 * executed before that command. A feed that could not start (a cluster source, an old server, an ACL
 * without {@code CLIENT TRACKING} or {@code SUBSCRIBE}), or that broke (either connection dropped or
 * was killed, a flush, a prefix refused), answers no drain: the caller makes a full pass.
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
    private Connection tracking;
    private Connection subscribed;
    private long subscriberId;
    private final Listener listener = new Listener();
    /** The keys written since the last drain, by the prefix of the watched queue they belong to. */
    private final Map<Bytes, Set<Bytes>> written = new HashMap<>();
    private final Map<String, CompletableFuture<Void>> pongs = new ConcurrentHashMap<>();
    private final AtomicLong pings = new AtomicLong();
    private volatile String broken;

    /** The feed of this source; it opens when the first queue is watched. */
    SourceFeed(Wire source) {
        this.source = source;
    }

    /** Opens both connections and subscribes; a feed that cannot start is broken, with the reason. */
    private void open() {
        if (!(source.client() instanceof RedisClient client)) {
            breaks("a cluster source has no single change feed");
            return;
        }
        try {
            tracking = client.getPool().getFactory().makeObject().getObject();
            subscribed = client.getPool().getFactory().makeObject().getObject();
            subscribed.sendCommand(Protocol.Command.CLIENT, "ID");
            subscriberId = subscribed.getIntegerReply();
            listen();
        } catch (Exception refused) {
            breaks("the change feed could not start: " + refused.getMessage());
            close(tracking);
            close(subscribed);
        }
    }

    private void listen() throws Exception {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        listener.ready = ready;
        Thread thread = new Thread(() -> {
            try {
                listener.proceed(subscribed, CHANNEL);
                breaks("the subscriber connection closed");
            } catch (RuntimeException dropped) {
                breaks("the subscriber connection dropped: " + dropped.getMessage());
            } finally {
                ready.completeExceptionally(new IllegalStateException(broken));
                pongs.values().forEach(p -> p.complete(null));
            }
        }, "emq-migrate-source-feed");
        thread.setDaemon(true);
        thread.start();
        ready.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Starts watching a queue: every key under its prefix written from now on is told to its watch.
     * Empty when the feed is broken, watches {@link #MOST_WATCHED} queues already, or the server refuses
     * the prefix (it overlaps one already watched, or the ACL refuses CLIENT TRACKING).
     */
    synchronized Optional<Watch> watch(QueueRef queue) {
        if (tracking == null && broken == null) {
            open();
        }
        synchronized (written) {
            if (broken != null || written.size() >= MOST_WATCHED) {
                return Optional.empty();
            }
        }
        Bytes prefix = queue.base();
        try {
            tracking.sendCommand(Protocol.Command.CLIENT, Utf8.bytes("TRACKING"), Utf8.bytes("ON"), Utf8.bytes("REDIRECT"),
                    Utf8.bytes(Long.toString(subscriberId)), Utf8.bytes("BCAST"), Utf8.bytes("PREFIX"), prefix.raw());
            tracking.getStatusCodeReply();
        } catch (RuntimeException refused) {
            if (!tracking.isConnected() || tracking.isBroken()) {
                breaks("the tracking connection dropped: " + refused.getMessage());
            }
            return Optional.empty();
        }
        synchronized (written) {
            written.put(prefix, new HashSet<>());
        }
        return Optional.of(new Watch(prefix));
    }

    /**
     * Why a run reading {@code source} would re-sync {@code queue} without the feed (it cannot start, or the server
     * refuses to track the queue's prefix); empty when it would watch it. Opens a feed, watches the queue and closes it:
     * no key is written.
     */
    static Optional<String> refusal(Wire source, QueueRef queue) {
        try (SourceFeed feed = new SourceFeed(source)) {
            return feed.watch(queue).isPresent() ? Optional.empty() : Optional.of(feed.whyUnwatched());
        }
    }

    /** Why {@link #watch} just left a queue unwatched. */
    String whyUnwatched() {
        if (broken != null) {
            return broken;
        }
        synchronized (written) {
            if (written.size() >= MOST_WATCHED) {
                return PAST_MOST_WATCHED;
            }
        }
        return "the source refuses CLIENT TRACKING of the queue's prefix (its ACL, or a queue nested in another)";
    }

    private void breaks(String why) {
        if (broken == null) {
            broken = why;
        }
    }

    /**
     * Waits until every write the server executed before this call has been told: a command answered
     * on the tracking connection (which also proves tracking still redirects to the subscriber), then
     * a PING answered on the subscribed connection. False when the feed broke.
     */
    private synchronized boolean barrier() {
        if (broken != null) {
            return false;
        }
        try {
            tracking.sendCommand(Protocol.Command.CLIENT, "GETREDIR");
            if (tracking.getIntegerReply() != subscriberId) {
                breaks("tracking no longer redirects to the subscriber");
                return false;
            }
            String token = Long.toString(pings.incrementAndGet());
            CompletableFuture<Void> pong = new CompletableFuture<>();
            pongs.put(token, pong);
            listener.ping(Utf8.bytes(token));
            pong.get(WAIT_SECONDS, TimeUnit.SECONDS);
            pongs.remove(token);
        } catch (Exception dropped) {
            breaks("the change feed dropped: " + dropped.getMessage());
        }
        return broken == null;
    }

    /** Stops the feed: tracking off, both connections closed. */
    @Override
    public synchronized void close() {
        breaks("closed");
        if (tracking == null) {
            return;
        }
        if (listener.isSubscribed()) {
            try {
                listener.unsubscribe();
            } catch (RuntimeException gone) {
                // the connection closes below either way
            }
        }
        close(tracking);
        close(subscribed);
    }

    private static void close(Connection c) {
        if (c != null) {
            c.close();
        }
    }

    /** One queue's view of the feed. */
    final class Watch {
        private final Bytes prefix;
        private boolean spoiled;
        /** The job hashes a drain since the watch began told a logs list or flow key of ({@link SourceFence#EXTRAS}). */
        private final Set<Bytes> withExtras = new HashSet<>();

        private Watch(Bytes prefix) {
            this.prefix = prefix;
        }

        /**
         * The keys of this queue written since the previous drain (since the watch began, the first
         * time); empty when the feed broke or this watch was spoiled, and from then on.
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
            keys.ifPresent(told -> {
                synchronized (written) {
                    written.computeIfPresent(prefix, (p, since) -> {
                        since.addAll(told);
                        return since;
                    });
                }
            });
            return keys.map(Changes::new);
        }

        /** As {@link #drain}, the keys alone, in a set of the caller's own (no {@link Changes} built of them). */
        Optional<Set<Bytes>> drainKeys() {
            if (spoiled || !barrier()) {
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

        /** Why {@link #drain} tells nothing: the feed broke, or a pass failed ({@link #spoil}). */
        String whyNot() {
            return broken != null ? broken : "a re-sync pass failed after a drain of the change feed, so only full passes follow";
        }

        /** Tells no more: what was drained was not acted on in full (a pass that failed), so only a full pass is sure. */
        void spoil() {
            spoiled = true;
        }

        /** Ends this watch (a retired queue's deletions are not kept); the last one to end closes the feed. */
        void end() {
            spoiled = true;
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
