package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Base62;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Replies;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.Protocol;

/**
 * Mints the ids of a batch in the client, in a {@link JournalTransaction}, when the batch is the clean
 * case of {@code migrate_assign_ids}: at least {@link #LEAST} distinct v1 ids, none kept as itself, none
 * mapped yet, in a journal with an id base that never kept an id ({@code kept} is {@code 0}, so no id it
 * mints can be held already). It reads under {@code WATCH} the id base, {@code hwm}, {@code kept}, the
 * block of the first rank and each id's {@code v1:} field, and writes in one {@code HSET} what the
 * script writes for such a batch: {@code v1:<v1 id>} = the branded id of the next rank
 * ({@code JOB} + base62 of id base * 2^36 + rank, {@link BrandedId#job}), the {@code v2r:} blocks the
 * ranks fall in ({@code <length>:<v1 id>} a rank, after the entries of a block begun before, or
 * {@code -} for each of its earlier ranks when it was begun by an earlier release), and {@code hwm}.
 * Any other batch, and one whose transaction wrote nothing, is the script's.
 */
final class ClientMint {
    /** The fewest ids it mints at once: below that, the connection it opens costs more than the script saves. */
    static final int LEAST = 64;
    private static final byte[] ID_BASE = Utf8.bytes(JournalHeader.ID_BASE.name());
    private static final byte[] HWM = Utf8.bytes(IdentityMap.HWM);
    private static final byte[] KEPT = Utf8.bytes(JournalHeader.KEPT_IDS.name());

    private final Journal journal;
    private final JournalTransaction tx;
    /** The high-water mark as this minter's last transaction left it; -1 when it is to be read. */
    private long hwm = -1;
    /** The id base and the first rank its first transaction minted; -1 before that. */
    private long base = -1;
    private long firstRank = -1;

    ClientMint(Journal journal, JournalTransaction tx) {
        this.journal = journal;
        this.tx = tx;
    }

    /** Whether it minted the ids of these v1 ids (else none: the script's batch). */
    boolean minted(List<byte[]> v1Ids) {
        if (v1Ids.size() < LEAST || !distinct(v1Ids)) {
            return false;
        }
        long before = hwm >= 0 ? hwm : journal.ids().highWaterMark();
        long first = before + 1;
        long block = (first - 1) / IdentityMap.BLOCK;
        long[] idBase = {-1};
        List<byte[]> fields = new ArrayList<>(v1Ids.size() + 4);
        fields.addAll(List.of(ID_BASE, HWM, KEPT, Utf8.bytes(IdentityMap.V2_BLOCK + block)));
        for (byte[] id : v1Ids) {
            fields.add(IdentityMap.v1Field(id));
        }
        Optional<List<Object>> done = tx.write(fields, values -> {
            long last = before + v1Ids.size();
            if (values.get(0) == null || !Arrays.equals(values.get(2), Utf8.bytes("0")) || last > Rebrand.MAX_RANK
                    || before != (values.get(1) == null ? 0 : Long.parseLong(Replies.asText(values.get(1))))
                    || values.subList(4, values.size()).stream().anyMatch(v -> v != null)) {
                return List.of();
            }
            idBase[0] = Long.parseLong(Replies.asText(values.get(0)));
            byte[][] hset = new byte[2 * v1Ids.size() + 2 * (v1Ids.size() / IdentityMap.BLOCK + 2) + 2][];
            int at = 0;
            byte[] id = Utf8.bytes(BrandedId.job(idBase[0] << Rebrand.RANK_BITS | first).toString());
            for (int i = 0; i < v1Ids.size(); i++) {
                hset[at++] = fields.get(i + 4);
                hset[at++] = id;
                id = next(id);
            }
            at = blocks(first, v1Ids, values.get(3), hset, at);
            hset[at++] = HWM;
            hset[at++] = Utf8.bytes(Long.toString(last));
            return List.of(new JournalTransaction.Write(Protocol.Command.HSET, Arrays.copyOf(hset, at)));
        });
        hwm = done.isPresent() ? before + v1Ids.size() : -1;
        if (done.isPresent() && firstRank < 0) {
            base = idBase[0];
            firstRank = first;
        }
        return done.isPresent();
    }

    /**
     * The ids of its first {@code minted} ids, when they are one run of ranks from its first transaction's first
     * (every batch of them minted here, one after the other: each transaction minted from the mark the one before left).
     */
    FreshIds fresh(long minted) {
        if (firstRank < 0) {
            throw new IllegalStateException("nothing was minted in the client");
        }
        return new FreshIds(base, firstRank, minted);
    }

    /** Whether no two of these ids are equal (sorted, then each beside the next). */
    private static boolean distinct(List<byte[]> v1Ids) {
        byte[][] sorted = v1Ids.toArray(byte[][]::new);
        Arrays.sort(sorted, Arrays::compareUnsigned);
        for (int i = 1; i < sorted.length; i++) {
            if (Arrays.equals(sorted[i - 1], sorted[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * The branded id of the next rank: {@code id}'s base62 body plus one (a rank's ids differ only in the
     * body's low digits; the rank never carries into the id base, as the last rank is at most
     * {@link Rebrand#MAX_RANK}), in a new array.
     */
    static byte[] next(byte[] id) {
        byte[] out = id.clone();
        for (int i = out.length - 1; i >= out.length - Base62.WIDTH; i--) {
            int digit = (Base62.digit((char) out[i]) + 1) % Base62.ALPHABET.length();
            out[i] = (byte) Base62.ALPHABET.charAt(digit);
            if (digit != 0) {
                break; // no carry into the digit before
            }
        }
        return out;
    }

    /**
     * Puts into {@code hset} from {@code at} the {@code v2r:} fields and values that add ranks {@code first},
     * {@code first + 1}, ... (minted for {@code v1Ids}) to their blocks: the first rank's block extends {@code had}
     * (that block as read; when absent and the block began before {@code first}, one {@code -} for each of its
     * earlier ranks). Returns the position after them.
     */
    private static int blocks(long first, List<byte[]> v1Ids, byte[] had, byte[][] hset, int at) {
        int k = 0;
        long r = first;
        while (k < v1Ids.size()) {
            long block = (r - 1) / IdentityMap.BLOCK;
            long start = block * IdentityMap.BLOCK + 1;
            int before = r == start ? 0 : had != null ? had.length : (int) (r - start);
            int end = (int) Math.min(v1Ids.size(), k + start + IdentityMap.BLOCK - r);
            int size = before;
            for (int j = k; j < end; j++) {
                size += SourceFence.digits(v1Ids.get(j).length) + 1 + v1Ids.get(j).length;
            }
            byte[] parts = new byte[size];
            if (had != null && before > 0) {
                System.arraycopy(had, 0, parts, 0, before);
            } else {
                Arrays.fill(parts, 0, before, (byte) '-');
            }
            int p = before;
            for (; k < end; k++, r++) {
                byte[] v1 = v1Ids.get(k);
                p = SourceFence.length(parts, p, v1.length, SourceFence.digits(v1.length));
                System.arraycopy(v1, 0, parts, p, v1.length);
                p += v1.length;
            }
            hset[at++] = Utf8.bytes(IdentityMap.V2_BLOCK + block);
            hset[at++] = parts;
        }
        return at;
    }
}
