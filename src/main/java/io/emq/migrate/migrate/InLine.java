package io.emq.migrate.migrate;

import io.emq.migrate.v1.HeapChunks;
import io.emq.migrate.v1.JobFacts;
import io.emq.migrate.v1.QueueSnapshot;
import io.emq.migrate.v1.V1State;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The v2 state and attempts of every row-bearing job as the pass before read them: the last
 * successful pass left each job it read a row and an
 * expectation in line with what it read. A job the change feed tells untouched since (its hash and keys
 * under it unwritten) that the next pass still reads in a v1 state that becomes the same v2 state (a
 * waiting job the pause moved to paused does) with the same attempts (and, delayed, the same due time: v1 moves a
 * due time without writing the job's hash when it re-adds it to {@code delayed}) still matches its expectation, so
 * that pass need not look it up (see {@link Resync}). One table serves every pass, updated in place:
 * a job the pass before did not read holds no more. The copy ({@link Absorb}) makes it and records what each of its
 * writes recorded ({@link #wrote}): the first pass looks up only the jobs the feed tells touched or that it reads
 * otherwise (a producer writing {@code wait} moves no job already listed there).
 *
 * <p>Without the change feed nothing tells a job untouched, so a table made {@link #withDigests} holds each job's
 * digest too ({@link SourceFence#digest}, as the pass read it): a job the next pass reads with the same digest, v2
 * state and attempts still matches its expectation. A job the pass wrote holds none ({@link #unsure}): its row
 * holds what the write read, which may be newer than what the pass read. The copy makes such a table when the feed
 * does not watch the queue, only while it fits a quarter of the heap ({@link #digestsFit}).
 *
 * <p>Kept compact (ten million jobs under a 512 MiB heap beside the snapshots): one record a job end to
 * end in chunks of bytes (its id's length as a varint, its id's bytes, then one int: whether this pass read
 * it in the sign bit, whether a due time follows in the next, what the pass before read in the others; then, with
 * digests, the digest's 64 bits; then, for a job first read delayed, the due time it was last read with), and an open-addressing table of the
 * records' addresses; ids are compared byte for byte, never by hash alone. Each pass begins with a sweep of
 * the records: those the pass before did not read hold {@link #STALE} from there. A job with more
 * attempts than a record holds ({@link #MAX_ATTEMPTS}) is never held: it is looked up every pass. The record
 * after the one read last is compared first: a pass that reads the jobs in the order the pass before read them
 * (listings unmoved, or renamed whole as the v1 pause renames wait to paused) finds each there, without hashing.
 *
 * <p>No array is over 256 KiB (a record longer than a chunk has an array of its own), so none is a humongous
 * object for G1 at a heap of 512 MiB, and adding records copies none held (only a small first chunk grows by
 * copying, up to a chunk). A record never spans two chunks: one that does not fit in what is left of the last
 * chunk starts the next. A record's address is its chunk's number times 2<sup>18</sup> plus its offset there.
 */
final class InLine {
    /** The most attempts a record holds: attempts and the v2 state (5 bits) below {@link #STALE}. */
    static final long MAX_ATTEMPTS = (1L << 25) - 2;
    /** The bit of a record's int set when a due time follows its int (and digest): the job was first read delayed. */
    private static final int HAS_DUE = 1 << 30;
    /** What a record holds for a job the pass before did not read, or that is never held; no read packs to it. */
    private static final int STALE = HAS_DUE - 1;
    /** The bit of a record set when this pass read it. */
    private static final int READ_NOW = Integer.MIN_VALUE;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int CHUNK_BITS = 18;
    /** The most bytes a chunk of records holds ({@link HeapChunks}), unless its one record is longer. */
    static final int CHUNK = HeapChunks.BYTES;
    /** The most slots a chunk of the table holds. */
    private static final int SLOT_CHUNK = HeapChunks.of(Integer.BYTES);
    /** The first chunk's size (it grows up to {@link #CHUNK} by copying). */
    private final int firstChunk;
    /** The bytes a record holds after its id: the int, and with digests the digest's long. */
    private final int valueBytes;
    /** Whether the records' digests are held and compared ({@link #withoutDigests} ends it for good). */
    private boolean digestsHeld;
    private byte[][] chunks = new byte[1][];
    /** Bytes of each chunk in use. */
    private int[] used = new int[1];
    /** Chunks holding records: records are added to the last. */
    private int chunkCount;
    private int size;
    /** 1 + the address of the record in each slot, 0 when empty, in chunks; never more than three quarters full. */
    private int[][] slots;
    private int mask;
    /** 1 + the address of the record after the one read last, 0 when none: a pass reading the jobs in the order the pass before did finds each there. */
    private int following;

    /**
     * A table sized for {@code jobs} jobs whose records' ids and due times take {@code idBytes} together (the snapshot its
     * first pass reads, {@link #idBytes}: that pass rehashes nothing as it fills it).
     */
    InLine(long jobs, long idBytes) {
        this(jobs, idBytes, Integer.BYTES);
    }

    /** What the records of a snapshot's jobs hold beside their fixed part: their ids, and the due times of delayed jobs. */
    static long idBytes(QueueSnapshot snap) {
        return snap.listedIdBytes() + (long) Long.BYTES * snap.listedCount(V1State.DELAYED);
    }

    /** A table as {@link #InLine(long, long)} makes that holds each job's digest too, for passes without the change feed. */
    static InLine withDigests(long jobs, long idBytes) {
        return new InLine(jobs, idBytes, Integer.BYTES + Long.BYTES);
    }

    /** A table {@link #withDigests} for this many jobs, when it fits this JVM's heap ({@link #digestsFit}); else none. */
    static Optional<InLine> withDigestsIfTheyFit(long jobs, long idBytes) {
        return digestsFit(jobs, idBytes, Runtime.getRuntime().maxMemory()) ? Optional.of(withDigests(jobs, idBytes)) : Optional.empty();
    }

    /**
     * Whether a table {@link #withDigests} of this many jobs, whose ids and due times take {@code idBytes}, takes at most a quarter of a
     * heap of {@code heapBytes} (its records, and at most 8 bytes a job of slots). It is held through the source read
     * under the pause, beside that read's own tables: a queue too large for it (ten million jobs under 512 MiB) is
     * looked up in full, as before the table was kept.
     */
    static boolean digestsFit(long jobs, long idBytes, long heapBytes) {
        return idBytes + jobs * (1 + Integer.BYTES + Long.BYTES + 8) <= heapBytes / 4;
    }

    private InLine(long jobs, long idBytes, int valueBytes) {
        this.valueBytes = valueBytes;
        this.digestsHeld = valueBytes > Integer.BYTES;
        firstChunk = (int) Math.min(CHUNK, Math.max(1 << 12, idBytes + jobs * (1 + valueBytes)));
        int capacity = 1 << 9;
        while (jobs * 4 > capacity * 3L) {
            capacity *= 2;
        }
        slots = emptySlots(capacity);
        mask = capacity - 1;
    }

    /** Whether this table holds digests ({@link #withDigests}, until {@link #withoutDigests}). */
    boolean digests() {
        return digestsHeld;
    }

    /**
     * This table, its digests no longer held: for a pass with the change feed, which reads no digest of a job the feed
     * tells untouched and so holds a job by its v2 state and attempts alone, as a table without digests does.
     */
    InLine withoutDigests() {
        digestsHeld = false;
        return this;
    }

    /**
     * Begins a pass: from here {@link #read} tells what the pass before read. A record that pass read keeps
     * what it read; any other holds {@link #STALE}.
     */
    void nextPass() {
        for (int c = 0; c < chunkCount; c++) {
            byte[] chunk = chunks[c];
            for (int offset = 0; offset < used[c]; offset = recordEnd(chunk, offset)) {
                int value = valueAt(chunk, offset);
                int held = (int) INT.get(chunk, value);
                INT.set(chunk, value, held < 0 ? held & ~READ_NOW : held & HAS_DUE | STALE);
            }
        }
    }

    /**
     * Records that this pass read {@code job} as it is; returns whether the pass before read it in a
     * state that becomes the same v2 state, with the same attempts and due time. A job first read without a due time
     * (not delayed) has no room for one: it is never held while delayed.
     */
    boolean read(JobFacts job) {
        if (digests()) {
            throw new IllegalStateException("a table with digests reads a job with its digest");
        }
        return read(job, 0);
    }

    /**
     * Records that this pass read {@code job} as it is, with this digest ({@link SourceFence#digest}); returns whether the
     * pass before read it in a state that becomes the same v2 state, with the same attempts and digest. For a table
     * {@link #withDigests}.
     */
    boolean read(JobFacts job, String digest) {
        if (!digests()) {
            throw new IllegalStateException("a table without digests reads a job alone");
        }
        if (digest.length() == 16 && digest.chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
            return read(job, HexFormat.fromHexDigitsToLong(digest));
        }
        readHoldingNothing(job);
        return false;
    }

    /**
     * Records what the journal now expects of a job the copy wrote ({@link JobWriter}): the first pass that reads it so
     * need not look it up. One whose expectation a pass would not take as in line with those facts holds nothing.
     */
    void wrote(JobFacts job, Expectation expected) {
        if (job.state().becomes().map(expected::is).orElse(false) && expected.attempts() == job.attempts()
                && expected.due() == job.dueAt()) {
            if (digests()) {
                read(job, expected.source());
            } else {
                read(job);
            }
        } else {
            readHoldingNothing(job);
        }
    }

    /** Whether this table holds no job yet. */
    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Whether this pass read {@code job} in the v2 state, with the attempts and due time it has now, and v2 was in line
     * with it: in the copy, whether it wrote the job's row and journaled its expectation ({@link #wrote}) from these facts.
     * Changes nothing. (The digest, held for the passes without the change feed, is not compared: it is that of what
     * the write read, and those passes compare it with the source's.)
     */
    boolean holds(JobFacts job) {
        int ref = slot(find(job.id().raw()));
        if (ref == 0) {
            return false;
        }
        byte[] chunk = chunks[(ref - 1) >>> CHUNK_BITS];
        int value = valueAt(chunk, (ref - 1) & ((1 << CHUNK_BITS) - 1));
        int held = (int) INT.get(chunk, value);
        boolean sameDue = (held & HAS_DUE) != 0 ? (long) LONG.get(chunk, value + valueBytes) == job.dueAt() : job.dueAt() < 0;
        int read = packed(job);
        return held < 0 && read != STALE && (held & STALE) == read && sameDue;
    }

    /** Records that this pass read {@code job}, holding nothing of it: the next pass looks it up. */
    private void readHoldingNothing(JobFacts job) {
        read(job, 0);
        unsure(job);
    }

    /** Records that v2 may not hold what this pass read of {@code job} (the pass wrote it): the next pass looks it up. */
    void unsure(JobFacts job) {
        int at = find(job.id().raw());
        int ref = slot(at);
        if (ref != 0) {
            byte[] chunk = chunks[(ref - 1) >>> CHUNK_BITS];
            int value = valueAt(chunk, (ref - 1) & ((1 << CHUNK_BITS) - 1));
            INT.set(chunk, value, (int) INT.get(chunk, value) & HAS_DUE | STALE | READ_NOW);
        }
    }

    private boolean read(JobFacts job, long digest) {
        byte[] id = job.id().raw();
        int read = packed(job);
        int at = -1;
        int ref = following != 0 && sameId(following - 1, id) ? following : slot(at = find(id));
        if (ref != 0) {
            int c = (ref - 1) >>> CHUNK_BITS;
            byte[] chunk = chunks[c];
            int value = valueAt(chunk, (ref - 1) & ((1 << CHUNK_BITS) - 1));
            int before = (int) INT.get(chunk, value);
            INT.set(chunk, value, read | READ_NOW | before & HAS_DUE);
            boolean sameDigest = true;
            if (digests()) {
                sameDigest = (long) LONG.get(chunk, value + Integer.BYTES) == digest;
                LONG.set(chunk, value + Integer.BYTES, digest);
            }
            boolean sameDue = job.dueAt() < 0; // a record without a due time holds a job read with none
            if ((before & HAS_DUE) != 0) {
                sameDue = (long) LONG.get(chunk, value + valueBytes) == job.dueAt();
                LONG.set(chunk, value + valueBytes, job.dueAt());
            }
            following = followingOf(c, value + valueBytes + ((before & HAS_DUE) != 0 ? Long.BYTES : 0));
            return read != STALE && (before & ~HAS_DUE) == read && sameDigest && sameDue;
        }
        int address = append(id, read | READ_NOW, digest, job.dueAt());
        setSlot(at, address + 1);
        following = 0;
        if (++size * 4L > (mask + 1) * 3L) {
            grow();
        }
        return false;
    }

    /** 1 + the address of the record at {@code offset} of chunk {@code c} (or the next chunk's first, past its end); 0 past the last. */
    private int followingOf(int c, int offset) {
        if (offset < used[c]) {
            return (c << CHUNK_BITS | offset) + 1;
        }
        return c + 1 < chunkCount && used[c + 1] > 0 ? ((c + 1) << CHUNK_BITS) + 1 : 0;
    }

    /** Adds a record at the end of the last chunk, or of a new one, with a due time when {@code due} is one; returns its address. */
    private int append(byte[] id, int value, long digest, long due) {
        boolean hasDue = due >= 0;
        int length = varintLength(id.length) + id.length + valueBytes + (hasDue ? Long.BYTES : 0);
        int c = chunkCount - 1;
        if (c < 0 || used[c] + length > (c == 0 && length <= CHUNK ? CHUNK : chunks[c].length)) {
            c = newChunk(length);
        } else if (used[c] + length > chunks[c].length) {
            chunks[c] = Arrays.copyOf(chunks[c], (int) Math.min(CHUNK, Math.max(used[c] + length, chunks[c].length * 2L)));
        }
        byte[] chunk = chunks[c];
        int offset = used[c];
        int p = offset;
        for (int n = id.length; ; n >>>= 7) {
            if (n < 0x80) {
                chunk[p++] = (byte) n;
                break;
            }
            chunk[p++] = (byte) (n & 0x7f | 0x80);
        }
        System.arraycopy(id, 0, chunk, p, id.length);
        INT.set(chunk, p + id.length, hasDue ? value | HAS_DUE : value);
        if (digests()) {
            LONG.set(chunk, p + id.length + Integer.BYTES, digest);
        }
        if (hasDue) {
            LONG.set(chunk, p + id.length + valueBytes, due);
        }
        used[c] += length;
        return c << CHUNK_BITS | offset;
    }

    /** Starts a chunk for a record of {@code length} bytes: a chunk's size, or the record's when longer. */
    private int newChunk(int length) {
        int c = chunkCount++;
        if (c >= (Integer.MAX_VALUE >>> CHUNK_BITS)) {
            throw new IllegalStateException("more than 2 GiB of records");
        }
        if (c == chunks.length) {
            chunks = Arrays.copyOf(chunks, c * 2);
            used = Arrays.copyOf(used, c * 2);
        }
        chunks[c] = new byte[length > CHUNK ? length : c == 0 ? Math.max(firstChunk, length) : CHUNK];
        return c;
    }

    /** The slot that holds this id, or the empty slot where it would go. */
    private int find(byte[] id) {
        for (int at = spread(Arrays.hashCode(id)) & mask; ; at = (at + 1) & mask) {
            int ref = slot(at);
            if (ref == 0 || sameId(ref - 1, id)) {
                return at;
            }
        }
    }

    private boolean sameId(int address, byte[] id) {
        byte[] chunk = chunks[address >>> CHUNK_BITS];
        int offset = address & ((1 << CHUNK_BITS) - 1);
        return Arrays.equals(chunk, idStart(chunk, offset), valueAt(chunk, offset), id, 0, id.length);
    }

    /** Where the id of the record at {@code offset} of {@code chunk} starts (past its length). */
    private static int idStart(byte[] chunk, int offset) {
        int p = offset;
        while (chunk[p] < 0) {
            p++;
        }
        return p + 1;
    }

    /** Where the int of the record at {@code offset} of {@code chunk} is (right after its id). */
    private static int valueAt(byte[] chunk, int offset) {
        int length = 0;
        int p = offset;
        for (int shift = 0; ; shift += 7) {
            byte b = chunk[p++];
            length |= (b & 0x7f) << shift;
            if (b >= 0) {
                return p + length;
            }
        }
    }

    /** Where the record at {@code offset} of {@code chunk} ends: past its int, its digest when held, its due time when it has one. */
    private int recordEnd(byte[] chunk, int offset) {
        int value = valueAt(chunk, offset);
        return value + valueBytes + (((int) INT.get(chunk, value) & HAS_DUE) != 0 ? Long.BYTES : 0);
    }

    private void grow() {
        slots = emptySlots(Math.multiplyExact(mask + 1, 2));
        mask = mask * 2 + 1;
        for (int c = 0; c < chunkCount; c++) {
            byte[] chunk = chunks[c];
            for (int offset = 0; offset < used[c]; offset = recordEnd(chunk, offset)) {
                int at = spread(hash(chunk, idStart(chunk, offset), valueAt(chunk, offset))) & mask;
                while (slot(at) != 0) {
                    at = (at + 1) & mask;
                }
                setSlot(at, (c << CHUNK_BITS | offset) + 1);
            }
        }
    }

    /** {@code capacity} empty slots (a power of two), in chunks. */
    private static int[][] emptySlots(int capacity) {
        int[][] chunked = new int[(capacity + SLOT_CHUNK - 1) / SLOT_CHUNK][];
        for (int c = 0; c < chunked.length; c++) {
            chunked[c] = new int[Math.min(SLOT_CHUNK, capacity - c * SLOT_CHUNK)];
        }
        return chunked;
    }

    private int slot(int at) {
        return slots[at / SLOT_CHUNK][at % SLOT_CHUNK];
    }

    private void setSlot(int at, int ref) {
        slots[at / SLOT_CHUNK][at % SLOT_CHUNK] = ref;
    }

    /** {@link Arrays#hashCode(byte[])} of {@code chunk[from..to)}. */
    private static int hash(byte[] chunk, int from, int to) {
        int h = 1;
        for (int p = from; p < to; p++) {
            h = 31 * h + chunk[p];
        }
        return h;
    }

    private static int varintLength(int n) {
        return n < 1 << 7 ? 1 : n < 1 << 14 ? 2 : n < 1 << 21 ? 3 : n < 1 << 28 ? 4 : 5;
    }

    private static int spread(int h) {
        return h ^ (h >>> 16) ^ (h >>> 7);
    }

    /** Attempts and the v2 state (31 when none) in a non-negative int below {@link #STALE}; {@link #STALE} past {@link #MAX_ATTEMPTS}. */
    private static int packed(JobFacts job) {
        if (job.attempts() < 0 || job.attempts() > MAX_ATTEMPTS) {
            return STALE;
        }
        return (int) job.attempts() << 5 | job.state().becomes().map(Enum::ordinal).orElse(31);
    }
}
