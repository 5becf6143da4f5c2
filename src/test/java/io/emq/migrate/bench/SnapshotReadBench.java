package io.emq.migrate.bench;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueBases;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.QueueSnapshotReader;
import io.emq.migrate.wire.Endpoint;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the exact source read under the v1 pause costs, and what an incremental one could not go
 * below (never run by the test suite; see bench/README.md): generates a v1 queue of N waiting jobs,
 * then times, alternately, the migration's exact read of it ({@link QueueSnapshotReader} without
 * payload digests: listings, key scan, every job's facts) and the baseline, a bare {@code LRANGE} of
 * the whole list 1000 ids at a time (re-reading the one listing the pause's RENAME writes), and
 * last a bare pipelined {@code HMGET} of 12 fields and {@code HSTRLEN} of the first D jobs (the facts
 * of a delta of D jobs); and a refresh under the pause of the exact read, told {@code wait} written (read again) or
 * {@code active} written (the ids of {@code wait} copied). Prints the best of R rounds of each and the ratios to the listing.
 */
public final class SnapshotReadBench {
    static final int CHUNK = 1000;
    static final int DELTA = 28_000;
    private static final byte[][] FIELDS = {bytes("name"), bytes("timestamp"), bytes("delay"), bytes("priority"),
            bytes("opts"), bytes("ats"), bytes("atm"), bytes("attemptsMade"), bytes("finishedOn"), bytes("parentKey"),
            bytes("rjk"), bytes("stalledCounter")};

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, Set.of("--target", "--jobs", "--rounds"), 1_000_000, 3);
        try (BenchSetup.Server server = BenchSetup.server(options.target());
             UnifiedJedis client = Endpoint.parse(server.uri()).open()) {
            BenchSetup.empty(client);
            double generated = BenchSetup.generateWaiting(client, "bench", options.jobs());
            System.out.printf(Locale.ROOT, "generated %d v1 jobs in %.1f s (server %s, %s; heap max %d MiB; load average %s)%n",
                    options.jobs(), generated, server.uri(), BenchSetup.version(client), BenchSetup.maxHeapMiB(),
                    BenchSetup.loadAverage());
            QueueRef q = QueueRef.of("bull", "bench");
            double bestRead = Double.MAX_VALUE;
            double bestList = Double.MAX_VALUE;
            double bestDelta = Double.MAX_VALUE;
            double bestListingWritten = Double.MAX_VALUE;
            double bestActiveWritten = Double.MAX_VALUE;
            QueueSnapshotReader reader = new QueueSnapshotReader(client, new QueueBases(Set.of(q))).withoutPayloadDigests();
            for (int round = 1; round <= options.rounds(); round++) {
                long t0 = System.nanoTime();
                QueueSnapshot snap = reader.read(q);
                double read = BenchSetup.secs(t0);
                if (snap.jobCount() != options.jobs()) {
                    throw new IllegalStateException("the read found " + snap.jobCount() + " jobs, not " + options.jobs());
                }
                double listingWritten = refreshTold(reader, snap, q.key("wait"));
                double activeWritten = refreshTold(reader, snap, q.key("active"));
                snap = null;
                t0 = System.nanoTime();
                List<byte[]> ids = listing(client, q);
                double list = BenchSetup.secs(t0);
                if (ids.size() != options.jobs()) {
                    throw new IllegalStateException("LRANGE read " + ids.size() + " ids, not " + options.jobs());
                }
                t0 = System.nanoTime();
                facts(client, q, ids.subList(0, Math.min(DELTA, ids.size())));
                double delta = BenchSetup.secs(t0);
                System.out.printf(Locale.ROOT, "round %d: exact read %.2f s, LRANGE of the list %.2f s, facts of %d jobs %.2f s,"
                        + " refresh told wait written %.3f s, told active written %.3f s%n",
                        round, read, list, Math.min(DELTA, ids.size()), delta, listingWritten, activeWritten);
                bestRead = Math.min(bestRead, read);
                bestList = Math.min(bestList, list);
                bestDelta = Math.min(bestDelta, delta);
                bestListingWritten = Math.min(bestListingWritten, listingWritten);
                bestActiveWritten = Math.min(bestActiveWritten, activeWritten);
            }
            System.out.printf(Locale.ROOT, "exact read (%d waiting jobs) %.2f s | bare LRANGE of the list %.2f s | ratio %.1f"
                    + " | facts of %d jobs %.2f s | load average %s%n", options.jobs(), bestRead, bestList, bestRead / bestList,
                    Math.min(DELTA, options.jobs()), bestDelta, BenchSetup.loadAverage());
            System.out.printf(Locale.ROOT, "refresh under the pause told wait written %.3f s, told active written %.3f s"
                    + " | bare LRANGE of the list %.2f s | ratios %.2f, %.2f%n", bestListingWritten, bestActiveWritten, bestList,
                    bestListingWritten / bestList, bestActiveWritten / bestList);
        }
    }

    /**
     * The time a refresh under the pause ({@link QueueSnapshotReader#refresh}) of {@code snap} takes when the feed told
     * {@code listing} written (nothing moved): a listing told written is read again, the others' ids copied.
     */
    static double refreshTold(QueueSnapshotReader reader, QueueSnapshot snap, Bytes listing) {
        long t0 = System.nanoTime();
        if (reader.refresh(snap, Set.of(listing)).isEmpty()) {
            throw new IllegalStateException("no refresh stood for " + listing.display() + " told written");
        }
        return BenchSetup.secs(t0);
    }

    /** Every id of {@code wait}, {@value #CHUNK} at a time. */
    static List<byte[]> listing(UnifiedJedis client, QueueRef q) {
        byte[] wait = q.key("wait").raw();
        long n = client.llen(wait);
        List<byte[]> ids = new ArrayList<>((int) n);
        for (long from = 0; from < n; from += CHUNK) {
            ids.addAll(client.lrange(wait, from, from + CHUNK - 1));
        }
        return ids;
    }

    /** The small fields and payload length of each job, one pipeline per {@value #CHUNK}. */
    static void facts(UnifiedJedis client, QueueRef q, List<byte[]> ids) {
        for (int from = 0; from < ids.size(); from += CHUNK) {
            try (AbstractPipeline p = client.pipelined()) {
                for (byte[] id : ids.subList(from, Math.min(ids.size(), from + CHUNK))) {
                    byte[] key = q.base().concat(Bytes.of(id)).raw();
                    p.hmget(key, FIELDS);
                    p.hstrlen(key, bytes("data"));
                }
                p.sync();
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
