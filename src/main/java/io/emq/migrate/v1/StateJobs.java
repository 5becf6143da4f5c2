package io.emq.migrate.v1;

import java.util.Arrays;

/**
 * The facts of the jobs of one state, column by column, in v1 serve order: ids live in the
 * snapshot's {@link ListedIds}, small numbers in primitive arrays (those nearly always at a default
 * in {@link LongColumn}s), the payload digest as 32 raw bytes, names in a shared {@link NameTable},
 * flow parents and scheduler ids in {@link SparseBytes}. {@link #facts} materialises one job.
 */
final class StateJobs {
    private static final int LIFO = 1 << 2;
    private static final int JSON = 1 << 3;
    private static final JobLayout[] LAYOUTS = JobLayout.values();

    private final V1State state;
    private final ListedIds ids;
    private final NameTable names;
    private final int[] entry;
    private final long[] created;
    private final LongColumn priority;
    private final LongColumn delay;
    private final LongColumn attempts;
    private final LongColumn attemptsMade;
    private final LongColumn finishedOn;
    private final LongColumn lockTtl;
    private final byte[] flags;
    private final int[] payloadBytes;
    private final byte[] sha256;
    private final int[] name;
    private final SparseBytes parentKey = new SparseBytes();
    private final SparseBytes repeatJobKey = new SparseBytes();
    private int[] skipped = new int[0];
    private int skippedCount;
    private int size;

    /** Room for {@code capacity} jobs; {@code digests}: whether payload digests are kept. */
    StateJobs(V1State state, ListedIds ids, NameTable names, int capacity, boolean digests) {
        this.state = state;
        this.ids = ids;
        this.names = names;
        this.entry = new int[capacity];
        this.created = new long[capacity];
        this.priority = new LongColumn(capacity, 0);
        this.delay = new LongColumn(capacity, 0);
        this.attempts = new LongColumn(capacity, 0);
        this.attemptsMade = new LongColumn(capacity, 0);
        this.finishedOn = new LongColumn(capacity, -1);
        this.lockTtl = new LongColumn(capacity, -2);
        this.flags = new byte[capacity];
        this.payloadBytes = new int[capacity];
        this.sha256 = digests ? new byte[capacity * 32] : null;
        this.name = new int[capacity];
    }

    V1State state() {
        return state;
    }

    int size() {
        return size;
    }

    /**
     * Records that the listed id at this local index belongs to another state (it is listed there
     * first), so it takes no serve position here. Local indexes come in increasing order.
     */
    void skip(int localIndex) {
        if (skippedCount == skipped.length) {
            skipped = Arrays.copyOf(skipped, skippedCount * 2 + 4);
        }
        skipped[skippedCount++] = localIndex;
    }

    /** Appends one job read from the hash at arena entry {@code at}. */
    void add(int at, JobLayout layout, String jobName, long createdAt, long priorityValue, long delayMs, boolean lifo,
             long attemptsStarted, long made, PayloadDigest payload, long lockTtlMs, Bytes parent,
             Bytes schedulerId, long finished) {
        int i = size++;
        entry[i] = at;
        created[i] = createdAt;
        priority.set(i, priorityValue);
        delay.set(i, delayMs);
        attempts.set(i, attemptsStarted);
        attemptsMade.set(i, made);
        finishedOn.set(i, finished);
        lockTtl.set(i, lockTtlMs);
        flags[i] = (byte) (layout.ordinal() | (lifo ? LIFO : 0) | (payload.json() ? JSON : 0));
        payloadBytes[i] = (int) payload.bytes();
        if (sha256 != null && payload.digest() != null) {
            System.arraycopy(payload.digest(), 0, sha256, i * 32, 32);
        }
        name[i] = names.ref(jobName);
        parentKey.put(i, parent);
        repeatJobKey.put(i, schedulerId);
    }

    Bytes id(int i) {
        return ids.id(entry[i]);
    }

    boolean hasId(int i, byte[] id) {
        return ids.arena().equalsAt(entry[i], id);
    }

    /** Job {@code i} as a record; {@code rank} is its place in the queue's rebrand order. */
    JobFacts facts(int i, long rank) {
        double score = ids.score(entry[i], state);
        long dueAt = state == V1State.DELAYED ? ScoreCodec.dueAt(score) : -1;
        int local = entry[i] - ids.from(state);
        long position = local - countSkippedBefore(local);
        int f = flags[i];
        long bytes = payloadBytes[i];
        String digest = bytes < 0 ? "" : sha256 == null ? null
                : PayloadDigest.hex(sha256, i * 32);
        return new JobFacts(id(i), state, rank, position, score, LAYOUTS[f & 3], names.name(name[i]), created[i],
                priority.get(i), delay.get(i), dueAt, (f & LIFO) != 0, attempts.get(i), attemptsMade.get(i), bytes,
                digest, (f & JSON) != 0, lockTtl.get(i), parentKey.get(i), repeatJobKey.get(i), finishedOn.get(i));
    }

    private int countSkippedBefore(int local) {
        int at = Arrays.binarySearch(skipped, 0, skippedCount, local);
        return at >= 0 ? at : -at - 1;
    }
}
