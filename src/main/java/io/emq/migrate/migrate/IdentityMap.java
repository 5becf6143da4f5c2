package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

/**
 * The identity map of one queue's journal, both ways, minted by {@code migrate_assign_ids} (or, for a
 * clean batch, the same fields by {@link ClientMint}) from the queue's id base and the rank high-water mark {@code hwm}, so ids are never reused and a re-run gives
 * the same answer: {@code v1:<v1 id>} = branded id; back, {@code v2:<branded id>} = v1 id for an id kept
 * from v1 (and for every id a journal begun by an earlier release minted), and for the ids it mints one
 * field a block of {@link #BLOCK} ranks, {@code v2r:<block>} = an entry a rank from the block's first up
 * to {@code hwm}: {@code <length>:<v1 id>}, or {@code -} for a rank it did not mint so (see the script).
 * The script also writes {@code kept} once it kept a v1 id as its own branded id (only then can an id it
 * would mint be taken already, so only then does it look).
 */
public final class IdentityMap {
    static final String V1 = "v1:";
    private static final byte[] V1_BYTES = Utf8.bytes(V1);
    static final String V2 = "v2:";
    /** The v2 direction of minted ids, a field a block of {@link #BLOCK} ranks. */
    static final String V2_BLOCK = "v2r:";
    /** Ranks a {@link #V2_BLOCK} field holds (the script's BLOCK). */
    static final int BLOCK = 1000;
    /** The last rank minted ({@code migrate_assign_ids} writes it). */
    static final String HWM = "hwm";
    /** Blocks read at once by {@link #forEach}. */
    private static final int BLOCKS_READ = 50;

    private final Journal journal;

    IdentityMap(Journal journal) {
        this.journal = journal;
    }

    /** Mints (or finds) the branded ids of these v1 ids, in order; a re-run gives the same answer. */
    public List<BrandedId> assign(List<byte[]> v1Ids) {
        return assign(v1Ids, false);
    }

    /** As {@link #assign(List)}; with {@code keepBranded}, v1 ids that are JOB branded ids keep themselves. */
    public List<BrandedId> assign(List<byte[]> v1Ids, boolean keepBranded) {
        List<byte[]> args = new ArrayList<>(v1Ids.size() + 2);
        args.add(Utf8.bytes(journal.token()));
        args.add(Utf8.bytes(keeps(v1Ids, keepBranded)));
        args.addAll(v1Ids);
        List<Object> reply = journal.eval(Script.MIGRATE_ASSIGN_IDS, args, Replies::asList);
        List<BrandedId> out = new ArrayList<>(reply.size());
        for (Object id : reply) {
            out.add(BrandedId.of(Replies.asText(id)));
        }
        return out;
    }

    /** One flag a v1 id, the script's: '1' for an id kept as itself (with {@code keepBranded}, a JOB branded id), else '0'. */
    static String keeps(List<byte[]> v1Ids, boolean keepBranded) {
        StringBuilder flags = new StringBuilder(v1Ids.size());
        for (byte[] id : v1Ids) {
            flags.append(keepBranded && BrandedId.isJobId(id) ? '1' : '0');
        }
        return flags.toString();
    }

    /** The branded ids of these v1 ids, without minting; empty entries for ids the journal lacks. */
    public List<Optional<BrandedId>> lookupV1(List<byte[]> v1Ids) {
        return brandedIds(journal.read(v1Ids.stream().map(IdentityMap::v1Field).toList()));
    }

    /** The branded ids the {@code v1:} fields of some v1 ids were read as (empty where a value is nil), in order. */
    static List<Optional<BrandedId>> brandedIds(List<?> values) {
        List<Optional<BrandedId>> out = new ArrayList<>(values.size());
        for (Object v : values) {
            out.add(v == null ? Optional.empty() : Optional.of(BrandedId.of(Replies.asText(v))));
        }
        return out;
    }

    /** Whether each of these (branded id) strings is mapped. */
    public List<Boolean> mapsV2(List<String> ids) {
        return lookupV2Text(ids).stream().map(Optional::isPresent).toList();
    }

    /** The v1 id a branded id was minted (or kept) for. */
    public Optional<byte[]> lookupV2(BrandedId id) {
        return lookupV2Text(List.of(id.toString())).get(0);
    }

    /**
     * The v1 id each of these strings was minted or kept for: its {@code v2:} field, else the entry of its
     * rank in its block when it is one of the ranks minted (one {@code HMGET} of both fields, the id base
     * and the high-water mark read first).
     */
    private List<Optional<byte[]>> lookupV2Text(List<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        MintedRanks minted = MintedRanks.of(journal);
        List<byte[]> fields = new ArrayList<>(2 * ids.size());
        long[] ranks = new long[ids.size()];
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            fields.add(Utf8.bytes(V2 + id));
            ranks[i] = BrandedId.parse(id) instanceof BrandedId.Valid v ? minted.rank(v.id()) : 0;
            fields.add(ranks[i] == 0 ? Utf8.bytes(V2 + id) : Utf8.bytes(V2_BLOCK + (ranks[i] - 1) / BLOCK));
        }
        List<byte[]> read = journal.read(fields);
        List<Optional<byte[]>> out = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            byte[] direct = read.get(2 * i);
            byte[] block = read.get(2 * i + 1);
            out.add(direct != null ? Optional.of(direct)
                    : ranks[i] == 0 || block == null ? Optional.empty() : entry(block, (int) ((ranks[i] - 1) % BLOCK)));
        }
        return out;
    }

    /**
     * Every mapping, {@code v2 -> v1}: the {@code v2:} fields a page of HSCAN at a time (the map can be
     * large), then the minted ranks' blocks in rank order, {@link #BLOCKS_READ} an {@code HMGET}.
     */
    public void forEach(BiConsumer<BrandedId, byte[]> visit) {
        journal.entriesStartingWith(V2, page -> page.forEach(e ->
                visit.accept(BrandedId.of(Replies.asText(e.getKey()).substring(V2.length())), e.getValue())));
        MintedRanks minted = MintedRanks.of(journal);
        long blocks = (minted.hwm() + BLOCK - 1) / BLOCK;
        for (long from = 0; minted.base().isPresent() && from < blocks; from += BLOCKS_READ) {
            List<byte[]> fields = new ArrayList<>(BLOCKS_READ);
            for (long b = from; b < Math.min(blocks, from + BLOCKS_READ); b++) {
                fields.add(Utf8.bytes(V2_BLOCK + b));
            }
            List<byte[]> read = journal.read(fields);
            for (int k = 0; k < read.size(); k++) {
                long first = (from + k) * BLOCK + 1;
                if (read.get(k) != null) {
                    entries(read.get(k), (v1, at) -> {
                        if (v1 != null) {
                            visit.accept(minted.id(first + at), v1);
                        }
                    });
                }
            }
        }
    }

    /**
     * Every mapping as {@link #forEach} visits them, each as {@code pick} makes it of its v2 and v1 ids, handed to
     * {@code work} {@code size} at a time (the last batch may be smaller; none is empty; a batch is valid during its call only).
     */
    public <T> void inBatches(int size, BiFunction<BrandedId, byte[], T> pick, Consumer<List<T>> work) {
        List<T> batch = new ArrayList<>(size);
        forEach((id, v1) -> {
            batch.add(pick.apply(id, v1));
            if (batch.size() == size) {
                work.accept(batch);
                batch.clear();
            }
        });
        if (!batch.isEmpty()) {
            work.accept(batch);
        }
    }

    /** The v1 id of the {@code at}-th entry of a block (from 0); empty for a rank the block does not hold as minted. */
    private static Optional<byte[]> entry(byte[] block, int at) {
        byte[][] found = {null};
        entries(block, (v1, k) -> {
            if (k == at) {
                found[0] = v1;
            }
        });
        return Optional.ofNullable(found[0]);
    }

    /** Each entry of a block in rank order, with its position from 0: its v1 id, null for a rank not minted so ({@code -}). */
    private static void entries(byte[] block, ObjIntConsumer<byte[]> each) {
        int p = 0;
        for (int at = 0; p < block.length; at++) {
            if (block[p] == '-') {
                each.accept(null, at);
                p++;
                continue;
            }
            int colon = p;
            while (block[colon] != ':') {
                colon++;
            }
            int end = colon + 1 + Integer.parseInt(new String(block, p, colon - p, StandardCharsets.US_ASCII));
            each.accept(Arrays.copyOfRange(block, colon + 1, end), at);
            p = end;
        }
    }

    /** The last rank minted (0 before any). */
    public long highWaterMark() {
        return journal.text(HWM).map(Long::parseLong).orElse(0L);
    }

    /** The field {@code v1:<v1 id>}. */
    static byte[] v1Field(byte[] v1Id) {
        byte[] out = new byte[V1_BYTES.length + v1Id.length];
        System.arraycopy(V1_BYTES, 0, out, 0, V1_BYTES.length);
        System.arraycopy(v1Id, 0, out, V1_BYTES.length, v1Id.length);
        return out;
    }
}
