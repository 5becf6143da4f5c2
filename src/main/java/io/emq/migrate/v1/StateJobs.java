package io.emq.migrate.v1;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The facts of the jobs of one state, column by column, in v1 serve order: ids live in the
 * snapshot's {@link ListedIds} (a job keeps only how many listed entries before it were skipped),
 * numbers in {@link PackedColumn}s (a few bytes a job, none where every job has the same value),
 * the payload digest as 32 raw bytes, names in a shared {@link NameTable}, flow parents and
 * scheduler ids in {@link SparseBytes}. {@link #facts} materialises one job.
 */
final class StateJobs {
    private static final int LIFO = 1 << 2;
    private static final int JSON = 1 << 3;
    private static final JobLayout[] LAYOUTS = JobLayout.values();

    private final V1State state;
    private final ListedIds ids;
    private final NameTable names;
    /** Per job: its arena entry minus its index (the listed entries skipped before it), beside the state's first entry. */
    private final PackedColumn entry;
    private final PackedColumn created;
    private final PackedColumn priority;
    private final PackedColumn delay;
    private final PackedColumn attempts;
    private final PackedColumn attemptsMade;
    private final PackedColumn finishedOn;
    private final PackedColumn lockTtl;
    private final PackedColumn flags;
    private final PackedColumn payloadBytes;
    private final byte[] sha256;
    private final PackedColumn name;
    private final SparseBytes parentKey;
    private final SparseBytes repeatJobKey;
    private int[] skipped = new int[0];
    private int skippedCount;
    private int size;

    /**
     * The jobs of {@code same}, listed now in this state at {@code ids}' entries one after the other, none
     * skipped: every column but the entries is {@code same}'s (not copied; neither changes once read).
     */
    StateJobs(V1State state, ListedIds ids, StateJobs same) {
        this.state = state;
        this.ids = ids;
        this.names = same.names;
        this.entry = new PackedColumn(same.size, ids.from(state));
        this.created = same.created;
        this.priority = same.priority;
        this.delay = same.delay;
        this.attempts = same.attempts;
        this.attemptsMade = same.attemptsMade;
        this.finishedOn = same.finishedOn;
        this.lockTtl = same.lockTtl;
        this.flags = same.flags;
        this.payloadBytes = same.payloadBytes;
        this.sha256 = same.sha256;
        this.name = same.name;
        this.parentKey = same.parentKey;
        this.repeatJobKey = same.repeatJobKey;
        this.size = same.size;
    }

    /** Room for {@code capacity} jobs; {@code digests}: whether payload digests are kept. */
    StateJobs(V1State state, ListedIds ids, NameTable names, int capacity, boolean digests) {
        this.state = state;
        this.ids = ids;
        this.names = names;
        this.entry = new PackedColumn(capacity, ids.from(state));
        this.created = new PackedColumn(capacity);
        this.priority = new PackedColumn(capacity);
        this.delay = new PackedColumn(capacity);
        this.attempts = new PackedColumn(capacity);
        this.attemptsMade = new PackedColumn(capacity);
        this.finishedOn = new PackedColumn(capacity);
        this.lockTtl = new PackedColumn(capacity);
        this.flags = new PackedColumn(capacity);
        this.payloadBytes = new PackedColumn(capacity);
        this.sha256 = digests ? new byte[capacity * 32] : null;
        this.name = new PackedColumn(capacity);
        this.parentKey = new SparseBytes();
        this.repeatJobKey = new SparseBytes();
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
        entry.set(i, at - i);
        created.set(i, createdAt);
        priority.set(i, priorityValue);
        delay.set(i, delayMs);
        attempts.set(i, attemptsStarted);
        attemptsMade.set(i, made);
        finishedOn.set(i, finished);
        lockTtl.set(i, lockTtlMs);
        flags.set(i, layout.ordinal() | (lifo ? LIFO : 0) | (payload.json() ? JSON : 0));
        payloadBytes.set(i, payload.bytes());
        if (sha256 != null && payload.digest() != null) {
            System.arraycopy(payload.digest(), 0, sha256, i * 32, 32);
        }
        name.set(i, names.ref(jobName));
        parentKey.put(i, parent);
        repeatJobKey.put(i, schedulerId);
    }

    /** Appends job {@code i} of {@code from} (a snapshot read before, its hash not written since) at arena entry {@code at}. */
    void copy(int at, StateJobs from, int i) {
        int j = size++;
        entry.set(j, at - j);
        created.set(j, from.created.get(i));
        priority.set(j, from.priority.get(i));
        delay.set(j, from.delay.get(i));
        attempts.set(j, from.attempts.get(i));
        attemptsMade.set(j, from.attemptsMade.get(i));
        finishedOn.set(j, from.finishedOn.get(i));
        lockTtl.set(j, from.lockTtl.get(i));
        flags.set(j, from.flags.get(i));
        payloadBytes.set(j, from.payloadBytes.get(i));
        if (sha256 != null) {
            System.arraycopy(from.sha256, i * 32, sha256, j * 32, 32);
        }
        name.set(j, names.ref(from.names.name((int) from.name.get(i))));
        parentKey.put(j, from.parentKey.get(i));
        repeatJobKey.put(j, from.repeatJobKey.get(i));
    }

    /** Whether this holds the columns of {@code other} (one was made from the other as it is: see the constructor). */
    boolean sharesColumnsOf(StateJobs other) {
        return created == other.created;
    }

    ListedIds ids() {
        return ids;
    }

    Bytes id(int i) {
        return ids.id(entryOf(i));
    }

    /** Hands on the id of each job that has a parent (a flow child), in serve order. */
    void forEachChild(Consumer<Bytes> each) {
        parentKey.forEachIndex(i -> each.accept(id(i)));
    }

    /** Whether job {@code i}'s id is entry {@code j} of {@code other}. */
    boolean idEquals(int i, ByteArena other, int j) {
        return ids.arena().equalsAt(entryOf(i), other, j);
    }

    /** The hash of job {@code i}'s id ({@link Bytes#hashCode()} of {@link #id}). */
    int idHash(int i) {
        return ids.arena().hashAt(entryOf(i));
    }

    /** The arena entry of job {@code i}'s listed id. */
    int entryOf(int i) {
        return (int) entry.get(i) + i;
    }

    /**
     * The job listed at arena entry {@code at}, or -1 when that entry has none (its id is listed first in another
     * state, or its hash was gone when read): {@code at}'s place among the state's entries when none before it lacks
     * one, as in a read that met no anomaly, else found by bisection (jobs are held in entry order).
     */
    int jobAt(int at) {
        int guess = at - ids.from(state);
        if (guess >= 0 && guess < size && entryOf(guess) == at) {
            return guess;
        }
        int low = 0;
        int high = size - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int entryThere = entryOf(mid);
            if (entryThere == at) {
                return mid;
            }
            if (entryThere < at) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return -1;
    }

    /** Job {@code i} as a record; {@code rank} is its place in the queue's rebrand order. */
    JobFacts facts(int i, long rank) {
        int at = entryOf(i);
        double score = ids.score(at, state);
        long dueAt = state == V1State.DELAYED ? ScoreCodec.dueAt(score) : -1;
        int local = at - ids.from(state);
        long position = local - countSkippedBefore(local);
        int f = (int) flags.get(i);
        long bytes = payloadBytes.get(i);
        String digest = bytes < 0 ? "" : sha256 == null ? null
                : PayloadDigest.hex(sha256, i * 32);
        return new JobFacts(id(i), state, rank, position, score, LAYOUTS[f & 3], names.name((int) name.get(i)), created.get(i),
                priority.get(i), delay.get(i), dueAt, (f & LIFO) != 0, attempts.get(i), attemptsMade.get(i), bytes,
                digest, (f & JSON) != 0, lockTtl.get(i), parentKey.get(i), repeatJobKey.get(i), finishedOn.get(i));
    }

    private int countSkippedBefore(int local) {
        int at = Arrays.binarySearch(skipped, 0, skippedCount, local);
        return at >= 0 ? at : -at - 1;
    }
}
