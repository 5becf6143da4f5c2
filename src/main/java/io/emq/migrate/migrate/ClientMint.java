package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Replies;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
        List<byte[]> fields = new ArrayList<>(v1Ids.size() + 4);
        fields.addAll(List.of(ID_BASE, HWM, KEPT, Utf8.bytes(IdentityMap.V2_BLOCK + block)));
        v1Ids.forEach(id -> fields.add(IdentityMap.field(IdentityMap.V1, id)));
        Optional<List<Object>> done = tx.write(fields, values -> {
            long last = before + v1Ids.size();
            if (values.get(0) == null || !Arrays.equals(values.get(2), Utf8.bytes("0")) || last > Rebrand.MAX_RANK
                    || before != (values.get(1) == null ? 0 : Long.parseLong(Replies.asText(values.get(1))))
                    || values.subList(4, values.size()).stream().anyMatch(v -> v != null)) {
                return List.of();
            }
            long base = Long.parseLong(Replies.asText(values.get(0)));
            List<byte[]> hset = new ArrayList<>(2 * v1Ids.size() + 2 * (v1Ids.size() / IdentityMap.BLOCK + 2) + 2);
            for (int i = 0; i < v1Ids.size(); i++) {
                hset.add(fields.get(i + 4));
                hset.add(Utf8.bytes(BrandedId.job(base << Rebrand.RANK_BITS | (first + i)).toString()));
            }
            blocks(first, v1Ids, values.get(3), hset);
            hset.add(HWM);
            hset.add(Utf8.bytes(Long.toString(last)));
            return List.of(new JournalTransaction.Write(Protocol.Command.HSET, hset.toArray(byte[][]::new)));
        });
        hwm = done.isPresent() ? before + v1Ids.size() : -1;
        return done.isPresent();
    }

    private static boolean distinct(List<byte[]> v1Ids) {
        Set<ByteBuffer> seen = new HashSet<>();
        for (byte[] id : v1Ids) {
            if (!seen.add(ByteBuffer.wrap(id))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds to {@code hset} the {@code v2r:} fields and values that add ranks {@code first}, {@code first + 1}, ...
     * (minted for {@code v1Ids}) to their blocks: the first rank's block extends {@code had} (that block as read;
     * when absent and the block began before {@code first}, one {@code -} for each of its earlier ranks).
     */
    private static void blocks(long first, List<byte[]> v1Ids, byte[] had, List<byte[]> hset) {
        int k = 0;
        long r = first;
        while (k < v1Ids.size()) {
            long block = (r - 1) / IdentityMap.BLOCK;
            long start = block * IdentityMap.BLOCK + 1;
            ByteArrayOutputStream parts = new ByteArrayOutputStream();
            if (r > start) {
                if (had != null) {
                    parts.writeBytes(had);
                } else {
                    for (long skipped = start; skipped < r; skipped++) {
                        parts.write('-');
                    }
                }
            }
            for (; k < v1Ids.size() && r < start + IdentityMap.BLOCK; k++, r++) {
                parts.writeBytes(Utf8.bytes(v1Ids.get(k).length + ":"));
                parts.writeBytes(v1Ids.get(k));
            }
            hset.add(Utf8.bytes(IdentityMap.V2_BLOCK + block));
            hset.add(parts.toByteArray());
        }
    }
}
