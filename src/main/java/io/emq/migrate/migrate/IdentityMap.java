package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The identity map of one queue's journal, both ways: {@code v1:<v1 id>} = branded id and
 * {@code v2:<branded id>} = v1 id, minted by {@code migrate_assign_ids} from the queue's id base and the
 * rank high-water mark {@code hwm}, so ids are never reused and a re-run gives the same answer; the
 * script also writes {@code kept} once it kept a v1 id as its own branded id (only then can an id it
 * would mint be taken already, so only then does it look).
 */
public final class IdentityMap {
    static final String V1 = "v1:";
    static final String V2 = "v2:";
    /** The last rank minted ({@code migrate_assign_ids} writes it). */
    private static final String HWM = "hwm";

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
        StringBuilder flags = new StringBuilder(v1Ids.size());
        for (byte[] id : v1Ids) {
            boolean keep = keepBranded && BrandedId.parse(new String(id, StandardCharsets.ISO_8859_1)) instanceof BrandedId.Valid v
                    && v.id().namespace().equals(BrandedId.JOB);
            flags.append(keep ? '1' : '0');
        }
        args.add(Utf8.bytes(flags.toString()));
        args.addAll(v1Ids);
        List<Object> reply = journal.eval(Script.MIGRATE_ASSIGN_IDS, args, Replies::asList);
        List<BrandedId> out = new ArrayList<>(reply.size());
        for (Object id : reply) {
            out.add(BrandedId.of(Replies.asText(id)));
        }
        return out;
    }

    /** The branded ids of these v1 ids, without minting; empty entries for ids the journal lacks. */
    public List<Optional<BrandedId>> lookupV1(List<byte[]> v1Ids) {
        List<Optional<BrandedId>> out = new ArrayList<>(v1Ids.size());
        for (byte[] v : journal.read(v1Ids.stream().map(id -> field(V1, id)).toList())) {
            out.add(v == null ? Optional.empty() : Optional.of(BrandedId.of(Replies.asText(v))));
        }
        return out;
    }

    /** Whether each of these (branded id) strings is mapped. */
    public List<Boolean> mapsV2(List<String> ids) {
        return journal.read(ids.stream().map(id -> Utf8.bytes(V2 + id)).toList()).stream().map(Objects::nonNull).toList();
    }

    /** The v1 id a branded id was minted for. */
    public Optional<byte[]> lookupV2(BrandedId id) {
        return Optional.ofNullable(journal.read(List.of(Utf8.bytes(V2 + id))).get(0));
    }

    /** Every mapping, {@code v2 -> v1}, a page of HSCAN at a time (the map can be large). */
    public void forEach(BiConsumer<BrandedId, byte[]> visit) {
        journal.entriesStartingWith(V2, page -> page.forEach(e ->
                visit.accept(BrandedId.of(Replies.asText(e.getKey()).substring(V2.length())), e.getValue())));
    }

    /** The last rank minted (0 before any). */
    public long highWaterMark() {
        return journal.text(HWM).map(Long::parseLong).orElse(0L);
    }

    private static byte[] field(String prefix, byte[] tail) {
        byte[] p = Utf8.bytes(prefix);
        byte[] out = new byte[p.length + tail.length];
        System.arraycopy(p, 0, out, 0, p.length);
        System.arraycopy(tail, 0, out, p.length, tail.length);
        return out;
    }
}
