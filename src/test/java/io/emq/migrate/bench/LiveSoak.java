package io.emq.migrate.bench;

import io.emq.migrate.keyspace.Keys;
import io.emq.migrate.keyspace.Slots;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.MigrationState;
import io.emq.migrate.migrate.Checkpoints;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.migrate.LeastPrivilegeTest;
import io.emq.migrate.migrate.LiveV1;
import io.emq.migrate.migrate.MigrationOptions;
import io.emq.migrate.migrate.MigrationRefused;
import io.emq.migrate.migrate.MigrationResult;
import io.emq.migrate.migrate.Migrator;
import io.emq.migrate.migrate.V1QueueGenerator;
import io.emq.migrate.server.LocalCluster;
import io.emq.migrate.server.LocalServer;
import io.emq.migrate.wire.Endpoint;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import redis.clients.jedis.UnifiedJedis;

/**
 * The live-source soak (never run by the test suite; see bench/README.md): many randomized
 * interleavings of a migration with a BullMQ-shaped v1 producer and a v1 worker (both at random
 * checkpoints of the migrator, and as threads started at random moments), sometimes a second
 * migrator racing the first (into the same target, or into another: one of the two targets serves the jobs, the
 * other's copy stays paused), sometimes a crash of the first at a random checkpoint (its lease then
 * lapses, and it is run again at once, the v1 side still live); at a checkpoint some adds are LIFO (v1 serves
 * them next: an out-of-order refusal, unless v1 served them before the copy), some jobs are finished with
 * removeOnComplete (hash gone), and an operator pauses or resumes the v1 queue (inside the migration's pause
 * window too); a quarter of the runs start with anomalies that migrate with a warning (opts that are no JSON, a negative
 * attempts counter, a stalled job, an id delayed without a hash, the logs list and lock of a job whose hash is gone), and a
 * quarter hold three job hashes listed nowhere (orphans) and migrate with {@code --accept-anomalies}, each orphan then one
 * dead v2 row; about half the adds are deduplicated (a dedup key per job, deleted by the worker that finishes it). Each run migrates until retired
 * (re-running after refusals, as an operator would, once the producer and worker were stopped, accepting the
 * order's drift after an out-of-order refusal), and is
 * then checked: every job added and not completed by the v1 worker is exactly one v2 row, and every
 * deduplicated one among them has its v2 dedup key, no v2 dedup key pointing at a job v2 does not hold; v2 registers
 * exactly the schedulers v1 held at its tombstone, each with the template v1 held then (half the runs have some, added,
 * edited and removed at checkpoints); every delayed job is scheduled at the due time v1 held at its tombstone (half
 * the runs start with some; jobs are added delayed and their delays changed at checkpoints, half the time to the
 * delay they had). A run that fails with an error the migrator did not expect (kind
 * {@code error}, which asks the operator for a repair) counts as a problem too. Prints
 * {@code N runs, L lost, D doubled, S stale dedup keys, schedulers, settings or due times}.
 */
public final class LiveSoak {
    static final String QUEUE = "soak";
    /** The delay of the delayed jobs the soak adds: none comes due during a run. */
    static final long DELAY_MS = 3_600_000L;

    public static void main(String[] args) throws Exception {
        String target = null;
        int runs = 60;
        int jobs = 300;
        long seed = System.nanoTime();
        boolean withoutFeed = false;
        boolean cluster = false;
        boolean replicas = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--without-feed" -> withoutFeed = true;
                case "--cluster" -> cluster = true;
                case "--replicas" -> replicas = true;
                case "--target" -> target = args[++i];
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (cluster && withoutFeed) {
            throw new IllegalArgumentException("--cluster reads v1 with the change feed: not with --without-feed");
        }
        if (replicas && target != null) {
            throw new IllegalArgumentException("--replicas gives the soak's own server a replica: not with --target");
        }
        LocalServer server = target == null ? LocalServer.start() : null;
        LocalServer replica = replicas ? LocalServer.startReplicaOf(server) : null;
        LocalServer elsewhere = LocalServer.start(); // the target of a rival that migrates the queue into another one
        LocalCluster v1Cluster = cluster ? LocalCluster.start(3, replicas ? 1 : 0) : null;
        // the replicas a run may stall: the server's; on a cluster, that of the master serving v1's slot too
        List<LocalServer> stallable = replica == null ? List.of() : cluster
                ? List.of(replica, v1Cluster.replicasOf(v1Cluster.givenSlot(Slots.slot("{bull}"))).get(0)) : List.of(replica);
        String uri = target == null ? server.uri() : target;
        V1 v1 = cluster ? new V1("redis+cluster://" + v1Cluster.uri().substring("redis://".length()), "{bull}") : new V1(uri, "bull");
        String sourceUri = v1.uri();
        if (withoutFeed) {
            try (UnifiedJedis admin = Endpoint.parse(uri).open()) {
                sourceUri = LeastPrivilegeTest.userWithoutFeed(admin, uri);
            }
        }
        long lost = 0;
        long doubled = 0;
        long stale = 0;
        long refusals = 0;
        long crashes = 0;
        long exitZeroWithoutRetire = 0;
        long unexpected = 0;
        long stalls = 0;
        long behind = 0;
        Map<String, Long> withoutFeedBecause = new TreeMap<>();
        System.out.println("live-source soak: " + runs + " runs of " + jobs + " jobs, seed " + seed + ", server " + uri
                + (cluster ? ", v1 on a local cluster of 3 masters (prefix " + v1.prefix() + ")" : "")
                + (withoutFeed ? ", v1 read without the change feed" : "")
                + (replicas ? ", the server (and each cluster master) with a replica; one run in two stalls (SIGSTOP) the server's"
                + (cluster ? " or v1's master's" : "") + " for 0.5-8 s at a random checkpoint" : ""));
        try {
            for (int run = 1; run <= runs; run++) {
                Run r = new Run(v1, uri, sourceUri, elsewhere.uri(), new Random(seed + run), jobs, stallable);
                r.execute();
                lost += r.lost;
                doubled += r.doubled;
                stale += r.stale;
                refusals += r.refusals;
                crashes += r.crashes;
                r.withoutFeed.forEach((why, n) -> withoutFeedBecause.merge(why, n, Long::sum));
                exitZeroWithoutRetire += r.exitZeroWithoutRetire;
                unexpected += r.unexpected;
                stalls += r.stalls;
                behind += r.behind;
                System.out.printf("run %2d: %s%n", run, r.summary());
            }
        } finally {
            if (replica != null) {
                replica.close();
            }
            if (server != null) {
                server.close();
            }
            elsewhere.close();
            if (v1Cluster != null) {
                v1Cluster.close();
            }
        }
        System.out.println(refusals + " refusals along the way (each re-run after the v1 side was stopped), " + crashes
                + " crashes (each run again at once)"
                + (exitZeroWithoutRetire > 0 ? ", " + exitZeroWithoutRetire + " exit 0 without retirement" : "")
                + (unexpected > 0 ? ", " + unexpected + " failures with an unexpected error (a repair asked)" : ""));
        System.out.println("migrate runs that read v1 without the change feed, by why: " + withoutFeedBecause);
        if (replicas) {
            System.out.println(stalls + " replica stalls, " + behind + " runs refused replicas-behind");
        }
        System.out.println(runs + " runs, " + lost + " lost, " + doubled + " doubled, " + stale + " stale dedup keys, schedulers, settings or due times");
        if (lost + doubled + stale + exitZeroWithoutRetire + unexpected > 0) {
            System.exit(1);
        }
    }

    /** Where the v1 queue is: the server (or cluster) its clients reach, and its prefix. */
    private record V1(String uri, String prefix) {
        /** {@code <prefix>:<queue>:}, which every key of the queue begins with. */
        String base() {
            return prefix + ":" + QUEUE + ":";
        }
    }

    /** One randomized interleaving and its verdict. */
    private static final class Run {
        /** The v1 queue, and the target its migration writes (on one server, the same as v1's). */
        final V1 v1;
        final String uri;
        /** The address the migrator reads v1 through: {@code uri}, or as a user without the change feed's commands. */
        final String sourceUri;
        /** Another target, where a rival migrates the queue in some runs. */
        final String otherUri;
        final Random random;
        final int jobs;
        /** The replicas one of which a run may stall (none without {@code --replicas}). */
        final List<LocalServer> replicas;
        final Set<String> added = Collections.synchronizedSet(new TreeSet<>());
        final Set<String> completed = Collections.synchronizedSet(new TreeSet<>());
        final Set<String> deduplicated = Collections.synchronizedSet(new TreeSet<>());
        /** The job hashes listed nowhere the run starts with (orphans), checked apart: v1 never serves them. */
        final Set<String> orphans = new TreeSet<>();
        /** The jobs whose dedup key v1 deleted alone before the tombstone: v2 must not hold it. */
        final Set<String> dedupDeletedAlone = Collections.synchronizedSet(new TreeSet<>());
        /** The v1 queue's global concurrency as the soak last set it before the tombstone (0: none). */
        volatile int concurrency;
        /** The v1 queue's schedulers and their data versions, as the soak upserted and removed them before the tombstone. */
        final Map<String, Integer> schedulers = Collections.synchronizedMap(new TreeMap<>());
        /** The v1 queue's delayed jobs and their due times, as the soak added and moved them before the tombstone. */
        final Map<String, Long> dues = Collections.synchronizedMap(new TreeMap<>());
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong hits = new AtomicLong();
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<String> problems = new ArrayList<>();
        long lost;
        long doubled;
        long stale;
        long refusals;
        long crashes;
        long exitZeroWithoutRetire;
        /** Runs that failed with an error the migrator did not expect (kind {@code error}: it asks for a repair). */
        long unexpected;
        long stalls;
        long behind;
        /** The migrate runs that read v1 without the change feed, by why (a resumed run, a feed broken, ...). */
        final Map<String, Long> withoutFeed = Collections.synchronizedMap(new TreeMap<>());
        int passes;
        /** Whether a run was refused out-of-order: the operator's re-runs then accept the drift. */
        volatile boolean outOfOrder;
        /** The message of the last run that did not retire the queue (printed when none ever does). */
        volatile String lastRefusal = "";

        Run(V1 v1, String uri, String sourceUri, String otherUri, Random random, int jobs, List<LocalServer> replicas) {
            this.replicas = replicas;
            this.v1 = v1;
            this.uri = uri;
            this.sourceUri = sourceUri;
            this.otherUri = otherUri;
            this.random = random;
            this.jobs = jobs;
        }

        void execute() throws Exception {
            try (UnifiedJedis client = Endpoint.parse(uri).open(); UnifiedJedis other = Endpoint.parse(otherUri).open();
                 UnifiedJedis source = Endpoint.parse(v1.uri()).open()) {
                BenchSetup.empty(client);
                BenchSetup.empty(other);
                source.keys(v1.base() + "*").forEach(source::del); // on a cluster: what the run before left there
                V1QueueGenerator.addWaiting(source, v1.prefix(), QUEUE, 1, jobs, 100);
                for (int n = 1; n <= jobs; n++) {
                    added.add(Integer.toString(n));
                    if (n % 3 == 0) { // deduplicated as LiveV1.addDeduplicated adds: the worker that finishes it deletes the key
                        source.hset(v1.base() + n, "deid", "d" + n);
                        source.set(v1.base() + "de:d" + n, Integer.toString(n));
                        deduplicated.add(Integer.toString(n));
                    }
                }
                if (random.nextBoolean()) { // delayed jobs, some of whose delays the checkpoints change
                    for (int i = 0; i < 5; i++) {
                        LiveV1.addDelayed(source, v1.prefix(), QUEUE, DELAY_MS).ifPresent(job -> {
                            added.add(job.getKey());
                            dues.put(job.getKey(), job.getValue());
                        });
                    }
                }
                if (random.nextBoolean() && LiveV1.setConcurrency(source, v1.prefix(), QUEUE, 5)) {
                    concurrency = 5;
                }
                if (random.nextBoolean()) { // schedulers: no refresh stands for them either
                    for (String sid : List.of("s1", "s2")) {
                        LiveV1.schedule(source, v1.prefix(), QUEUE, sid, 1);
                        schedulers.put(sid, 1);
                    }
                }
                if (random.nextInt(4) == 0) { // a job with a logs list: no refresh stands for it, every pass under the pause reads it all
                    source.rpush(v1.base() + (1 + random.nextInt(jobs)) + ":logs", "a line");
                }
                if (random.nextInt(4) == 0) { // anomalies production queues hold, each migrated with a warning; the refresh carries them
                    List<Integer> picked = new ArrayList<>(IntStream.rangeClosed(1, jobs).boxed().toList());
                    Collections.shuffle(picked, random);
                    source.hset(v1.base() + picked.get(0), "opts", "not json");
                    source.hset(v1.base() + picked.get(1), "attemptsMade", "-3");
                    source.lrem(v1.base() + "wait", 0, picked.get(2).toString()); // stalled: a worker that crashed holding it
                    source.lpush(v1.base() + "active", picked.get(2).toString());
                    source.hset(v1.base() + picked.get(2), "processedOn", "1");
                    source.zadd(v1.base() + "delayed", (System.currentTimeMillis() + DELAY_MS) * 4096.0, "evicted"); // no hash
                    source.rpush(v1.base() + "gone:logs", "a line"); // the keys of a job whose hash was evicted
                    source.set(v1.base() + "gone:lock", "a worker's token");
                    events.add("anomalies: opts of " + picked.get(0) + ", attempts of " + picked.get(1) + ", " + picked.get(2)
                            + " stalled, an evicted id delayed, a job gone's logs list and lock");
                }
                boolean withOrphans = random.nextInt(4) == 0;
                if (withOrphans) { // hashes listed nowhere, as v1's pause/resume wrappers leave one at each add: each one dead v2 row
                    for (int i = 1; i <= 3; i++) {
                        source.hset(v1.base() + "orphan-" + i, Map.of("name", "send", "data", "{}", "timestamp", "1"));
                        orphans.add("orphan-" + i);
                    }
                    events.add("3 orphan hashes, --accept-anomalies");
                }
                double pAct = 0.05 + random.nextDouble() * 0.25;
                long crashAt = random.nextInt(3) == 0 ? 1 + random.nextInt(120) : 0;
                long stallAt = !replicas.isEmpty() && random.nextBoolean() ? 1 + random.nextInt(120) : 0;
                long stallMs = 500 + random.nextInt(7_500);
                LocalServer replica = replicas.isEmpty() ? null : replicas.get(random.nextInt(replicas.size()));
                Thread resumer = thread(() -> {
                    sleep(stallMs);
                    replica.resume();
                });
                // one run in eight: a dedup key deleted alone in the last instant before the tombstone, the run stopped
                // right after it (the re-run follows it from the journal)
                boolean lastInstant = random.nextInt(8) == 0;
                AtomicBoolean deletedLast = new AtomicBoolean();
                AtomicBoolean stoppedAfterTheTombstone = new AtomicBoolean();
                Checkpoints checkpoints = Checkpoints.observed((version, where) -> {
                    long hit = hits.incrementAndGet();
                    if (hit == stallAt) {
                        replica.stall();
                        stalls++;
                        events.add((replica == replicas.get(0) ? "replica" : "v1 master's replica") + " stalled " + stallMs + " ms@"
                                + version + ":" + where);
                        resumer.start();
                    }
                    if (hit == crashAt) {
                        throw new Checkpoints.InjectedCrash(version + ":" + where);
                    }
                    if (lastInstant && version == 120 && where.equals("before retire") && !deletedLast.getAndSet(true)) {
                        deleteADedupKeyAlone(source, version + ":" + where);
                    }
                    if (lastInstant && version == 120 && where.equals("structures deleted") && !stoppedAfterTheTombstone.getAndSet(true)) {
                        throw new Checkpoints.InjectedCrash(version + ":" + where);
                    }
                    if (!stop.get() && random.nextDouble() < pAct) {
                        act(source, version + ":" + where);
                    }
                });
                List<Thread> threads = new ArrayList<>();
                if (random.nextBoolean()) {
                    threads.add(thread(() -> producer(random.nextInt(300), random.nextInt(3) + 1)));
                }
                if (random.nextInt(3) == 0) {
                    threads.add(thread(() -> worker(random.nextInt(300))));
                }
                threads.forEach(Thread::start);
                MigrationOptions options = MigrationOptions.defaults().withLease(Duration.ofSeconds(2))
                        .withWaitForLocks(random.nextBoolean() ? Duration.ZERO : Duration.ofSeconds(3)).withAcceptAnomalies(withOrphans);
                boolean race = random.nextInt(4) == 0;
                String rivalTarget = random.nextBoolean() ? otherUri : uri;
                Thread rival = race ? thread(() -> migrateOnce(rivalTarget, options, Checkpoints.none())) : null;
                if (rival != null) {
                    rival.start();
                }
                for (int attempt = 0; attempt < 3 && !migrateOnce(uri, options, checkpoints); attempt++) { // each crash (at most two) run again at once
                }
                if (rival != null) {
                    rival.join();
                }
                stop.set(true);
                for (Thread t : threads) {
                    t.join();
                }
                if (resumer.isAlive()) {
                    resumer.join();
                }
                if (!retired(other) && !retired(client) && new Journal(Wire.open(other), QUEUE).exists() && tombstoned(source)) {
                    // the rival into the other target may have stamped the tombstone, then been refused before its v2 queue
                    // served (v1's replicas behind it): its operator runs it again, as the refusal says (if this run
                    // stamped it, that run is refused and writes nothing of v1)
                    events.add("the rival's migration run again");
                    for (int again = 0; again < 4 && !retired(other); again++) {
                        migrateOnce(otherUri, options, Checkpoints.none());
                    }
                }
                if (retired(other)) { // the rival retired the queue into the other target: this one's copy stays paused
                    events.add("retired into the other target");
                    check(source, other, true);
                    notServed(client);
                    return;
                }
                notServed(other);
                boolean retired = retired(client);
                releaseHeldJobs(source);
                for (int again = 0; again < 4 && !retired; again++) {
                    check(source, client, false);
                    migrateOnce(uri, outOfOrder ? options.withAcceptOrderDrift(true) : options, Checkpoints.none());
                    retired = retired(client);
                }
                check(source, client, retired);
                if (!retired) {
                    problems.add("never retired: " + lastRefusal);
                    lost += 1;
                }
            }
        }

        /** A dedup key deleted alone (BullMQ's removeDeduplicationKey), unless the tombstone is there. */
        private void deleteADedupKeyAlone(UnifiedJedis client, String where) {
            List<String> ids = new ArrayList<>(deduplicated);
            String id = ids.isEmpty() ? null : ids.get(random.nextInt(ids.size()));
            if (id != null && LiveV1.deleteDedupKey(client, v1.prefix(), QUEUE, "d" + id)) {
                deduplicated.remove(id);
                dedupDeletedAlone.add(id);
                events.add("undedup d" + id + "@" + where);
            }
        }

        private Thread thread(Runnable body) {
            Thread t = new Thread(body, "soak-v1");
            t.setDaemon(true);
            return t;
        }

        /** One action of the live v1 side at a checkpoint of the migrator. */
        private void act(UnifiedJedis client, String where) {
            switch (random.nextInt(13)) {
                case 0 -> {
                    int n = 1 + random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        LiveV1.add(client, v1.prefix(), QUEUE, false).ifPresent(added::add);
                    }
                    events.add("+" + n + "@" + where);
                }
                case 1 -> {
                    int n = 1 + random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        addDeduplicated(client);
                    }
                    events.add("+" + n + " dedup@" + where);
                }
                case 2 -> LiveV1.take(client, v1.prefix(), QUEUE, true, 30_000).ifPresent(id -> {
                    if (LiveV1.complete(client, v1.prefix(), QUEUE, id)) {
                        completed.add(id);
                        events.add("done " + id + "@" + where);
                    }
                });
                case 3 -> LiveV1.take(client, v1.prefix(), QUEUE, true, 200 + random.nextInt(600)).ifPresent(id ->
                        events.add("held " + id + "@" + where));
                case 4 -> LiveV1.addAhead(client, v1.prefix(), QUEUE).ifPresent(id -> {
                    added.add(id);
                    events.add("lifo " + id + "@" + where);
                });
                case 5 -> LiveV1.take(client, v1.prefix(), QUEUE, true, 30_000).ifPresent(id -> {
                    if (LiveV1.completeAndRemove(client, v1.prefix(), QUEUE, id)) {
                        completed.add(id);
                        events.add("removed " + id + "@" + where);
                    }
                });
                case 6 -> {
                    LiveV1.pause(client, v1.prefix(), QUEUE);
                    events.add("operator pause@" + where);
                }
                case 8 -> deleteADedupKeyAlone(client, where);
                case 7 -> { // a scheduler added, its template edited (its next run kept) or removed, unless the tombstone is there
                    String sid = "s" + (1 + random.nextInt(3));
                    Integer had = schedulers.get(sid);
                    int data = had == null ? 1 : random.nextBoolean() ? had + 1 : 0;
                    if (LiveV1.schedule(client, v1.prefix(), QUEUE, sid, data)) {
                        if (data == 0) {
                            schedulers.remove(sid);
                        } else {
                            schedulers.put(sid, data);
                        }
                        events.add((data == 0 ? "unscheduled " : "scheduled v" + data + " ") + sid + "@" + where);
                    }
                }
                case 9 -> { // the global concurrency set or removed (meta is not watched), unless the tombstone is there
                    int limit = random.nextInt(4);
                    if (LiveV1.setConcurrency(client, v1.prefix(), QUEUE, limit)) {
                        concurrency = limit;
                        events.add("concurrency " + limit + "@" + where);
                    }
                }
                case 10 -> LiveV1.addDelayed(client, v1.prefix(), QUEUE, DELAY_MS).ifPresent(job -> {
                    added.add(job.getKey());
                    dues.put(job.getKey(), job.getValue());
                    events.add("delayed " + job.getKey() + "@" + where);
                });
                case 11 -> { // BullMQ's changeDelay, half the time to the delay the job has (its hash left as it was)
                    List<String> delayed = List.copyOf(dues.keySet());
                    if (!delayed.isEmpty()) {
                        String id = delayed.get(random.nextInt(delayed.size()));
                        long delay = random.nextBoolean() ? DELAY_MS : DELAY_MS + 1 + random.nextInt(60_000);
                        long due = System.currentTimeMillis() + delay;
                        if (LiveV1.changeDelay(client, v1.prefix(), QUEUE, id, due, delay)) {
                            dues.put(id, due);
                            events.add("moved " + id + "@" + where);
                        }
                    }
                }
                default -> {
                    LiveV1.resume(client, v1.prefix(), QUEUE);
                    events.add("operator resume@" + where);
                }
            }
        }

        private void producer(int startMs, int perBurst) {
            try (UnifiedJedis client = Endpoint.parse(v1.uri()).open()) {
                sleep(startMs);
                while (!stop.get()) {
                    for (int i = 0; i < perBurst; i++) {
                        if (random.nextBoolean()) {
                            addDeduplicated(client);
                        } else {
                            LiveV1.add(client, v1.prefix(), QUEUE, false).ifPresent(added::add);
                        }
                    }
                    sleep(5 + random.nextInt(20));
                }
            }
        }

        private void addDeduplicated(UnifiedJedis client) {
            LiveV1.add(client, v1.prefix(), QUEUE, true).ifPresent(id -> {
                deduplicated.add(id);
                added.add(id);
            });
        }

        private void worker(int startMs) {
            try (UnifiedJedis client = Endpoint.parse(v1.uri()).open()) {
                sleep(startMs);
                while (!stop.get()) {
                    LiveV1.take(client, v1.prefix(), QUEUE, random.nextBoolean(), 5_000).ifPresent(id -> {
                        sleep(random.nextInt(10));
                        if (LiveV1.complete(client, v1.prefix(), QUEUE, id)) {
                            completed.add(id);
                        }
                    });
                    sleep(5 + random.nextInt(20));
                }
            }
        }

        /** Jobs left held by an action are finished, as a stopped worker's would be (or lapse, and stall). */
        private void releaseHeldJobs(UnifiedJedis client) {
            for (String id : client.lrange(v1.base() + "active", 0, -1)) {
                if (random.nextBoolean() && LiveV1.complete(client, v1.prefix(), QUEUE, id)) {
                    completed.add(id);
                } else {
                    client.del(v1.base() + id + ":lock");
                }
            }
        }

        /** Whether the v1 queue holds a migration's tombstone. */
        private boolean tombstoned(UnifiedJedis source) {
            return QueueSnapshot.TOMBSTONE.equals(source.hget(v1.base() + "meta", "version"));
        }

        /** Whichever migrator did it: the journal says whether the queue is retired. */
        private static boolean retired(UnifiedJedis client) {
            return new Journal(Wire.open(client), QUEUE).header().get(JournalHeader.STATE).map(s -> s == MigrationState.RETIRED).orElse(false);
        }

        /** One migrate run into {@code target}; false when it crashed (injected), its lease then made to lapse. */
        private boolean migrateOnce(String target, MigrationOptions options, Checkpoints checkpoints) {
            passes++;
            try (UnifiedJedis client = Endpoint.parse(target).open(); UnifiedJedis source = Endpoint.parse(sourceUri).open()) {
                List<MigrationResult> results = new Migrator(Wire.unfenced(source), Wire.open(client), v1.uri(), options, checkpoints)
                        .migrate(List.of(v1.prefix()), List.of(QUEUE));
                MigrationResult r = results.get(0);
                boolean retired = r.outcome() == MigrationResult.Outcome.RETIRED;
                r.withoutFeed().ifPresent(why -> withoutFeed.merge(why.replaceAll("\\b[0-9]+\\b", "N"), 1L, Long::sum));
                if (r.ok() && !retired) {
                    exitZeroWithoutRetire++;
                }
                if (r.refusalKind().equals(Optional.of(MigrationRefused.Kind.ERROR))) {
                    synchronized (problems) { // a rival's run ends on its own thread
                        unexpected++;
                        problems.add("unexpected failure: " + r.message());
                    }
                }
                if (!retired) {
                    refusals++;
                    events.add(r.outcome().wireName() + "/" + r.refusalKind().map(MigrationRefused.Kind::wireName).orElse(""));
                    lastRefusal = r.message();
                    outOfOrder |= r.refusalKind().equals(Optional.of(MigrationRefused.Kind.OUT_OF_ORDER));
                    behind += r.refusalKind().equals(Optional.of(MigrationRefused.Kind.REPLICAS_BEHIND)) ? 1 : 0;
                }
                return true;
            } catch (Checkpoints.InjectedCrash crash) {
                crashes++;
                events.add(crash.getMessage());
                try (UnifiedJedis client = Endpoint.parse(target).open()) {
                    client.hdel(new Journal(Wire.open(client), QUEUE).key(), "lock_owner");
                }
                return false;
            }
        }

        /** The verdict of the run, v1 on {@code source}, its jobs in v2 on {@code target}. */
        private void check(UnifiedJedis source, UnifiedJedis target, boolean retired) {
            // a queue refused past its tombstone (v1's replicas behind it) holds its jobs in v2, paused until a re-run
            List<String> found = new ArrayList<>(LiveV1.problems(source, v1.prefix(), target, QUEUE, Set.copyOf(added), Set.copyOf(completed),
                    retired || tombstoned(source)));
            found.addAll(orphanProblems(source, target, retired || tombstoned(source)));
            if (retired) {
                found.addAll(LiveV1.dedupProblems(target, QUEUE, Set.copyOf(deduplicated), Set.copyOf(completed)));
                found.addAll(LiveV1.schedulerProblems(target, QUEUE, Map.copyOf(schedulers)));
                found.addAll(LiveV1.concurrencyProblems(target, QUEUE, concurrency));
                found.addAll(LiveV1.dueProblems(target, QUEUE, Map.copyOf(dues)));
                for (String id : Set.copyOf(dedupDeletedAlone)) {
                    String held = target.get(Keys.queue(QUEUE).dedup("d" + id));
                    if (held != null) {
                        found.add("stale dedup key: de:d" + id + " holds " + held + ", though v1 deleted it before its tombstone");
                    }
                }
            }
            for (String problem : found) {
                if (problem.startsWith("lost") || problem.startsWith("dedup key lost")) {
                    lost++;
                } else if (problem.startsWith("stale")) {
                    stale++;
                } else {
                    doubled++;
                }
                problems.add(problem);
            }
        }

        /**
         * Each orphan the run started with is one dead v2 row once v1 is retired, and its hash is still in v1 until then (a
         * row listed twice is counted by {@link LiveV1#problems}).
         */
        private List<String> orphanProblems(UnifiedJedis source, UnifiedJedis target, boolean retired) {
            List<String> found = new ArrayList<>();
            Journal journal = new Journal(Wire.open(target), QUEUE);
            for (String id : orphans) {
                Optional<String> row = journal.ids().lookupV1(List.of(id.getBytes())).get(0).map(Object::toString);
                if (retired && row.map(r -> target.zscore(Keys.queue(QUEUE).dead(), r) == null).orElse(true)) {
                    found.add("lost: orphan " + id + " is no dead v2 row (" + row.orElse("no id") + ")");
                } else if (!retired && !source.exists(v1.base() + id)) {
                    found.add("lost: orphan " + id + " left v1 though the queue was not retired");
                }
            }
            return found;
        }

        /** A target whose migration did not retire the queue serves none of its copy: its v2 queue stays paused. */
        private void notServed(UnifiedJedis target) {
            Keys keys = Keys.queue(QUEUE);
            if (target.zcard(keys.pending()) > 0 && !"1".equals(target.hget(keys.meta(), "paused"))
                    && !retired(target)) {
                problems.add("doubled: a target whose migration did not retire the queue serves its copy");
                doubled++;
            }
        }

        String summary() {
            List<String> shown = events.size() > 8 && problems.isEmpty() ? events.subList(0, 8) : events;
            return added.size() + " added, " + completed.size() + " completed by the v1 worker, " + passes
                    + " migrate runs, " + hits.get() + " checkpoints; " + shown + (events.size() > 8 ? " …" : "")
                    + (problems.isEmpty() ? "" : "\n        PROBLEMS " + problems);
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
