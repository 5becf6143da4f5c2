package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.plan.Rebrand;
import io.emq.migrate.wire.Replies;
import java.util.List;
import java.util.Optional;

/**
 * The ids a journal minted: {@code JOB} ids of its id base with a rank from 1 to its high-water mark
 * ({@link Rebrand}); none without an id base.
 */
record MintedRanks(Optional<Long> base, long hwm) {
    /** The journal fields that tell a journal's minted ids, in the order {@link #of(byte[], byte[])} takes them. */
    static final List<byte[]> FIELDS = List.of(Utf8.bytes(JournalHeader.ID_BASE.name()), Utf8.bytes(IdentityMap.HWM));

    /** A journal's minted ids: its id base and high-water mark as they are now (one {@code HMGET} of both). */
    static MintedRanks of(Journal journal) {
        List<byte[]> read = journal.read(FIELDS);
        return of(read.get(0), read.get(1));
    }

    /** The minted ids of a journal whose {@link #FIELDS} were read as these values (null where absent). */
    static MintedRanks of(byte[] idBase, byte[] hwm) {
        return new MintedRanks(Optional.ofNullable(idBase).flatMap(v -> JournalHeader.ID_BASE.parse().apply(Replies.asText(v))),
                hwm == null ? 0 : Long.parseLong(Replies.asText(hwm)));
    }

    /** The rank of a minted {@code JOB} id, else 0. */
    long rank(BrandedId id) {
        return id.namespace().equals(BrandedId.JOB) ? rank(id.value()) : 0;
    }

    /** The rank of a minted id's value (its namespace not asked), else 0. */
    long rank(long value) {
        long rank = value & Rebrand.MAX_RANK;
        return base.isPresent() && value >> Rebrand.RANK_BITS == base.get() && rank >= 1 && rank <= hwm ? rank : 0;
    }

    /** The id minted at this rank (the journal has an id base). */
    BrandedId id(long rank) {
        return BrandedId.job(base.orElseThrow() << Rebrand.RANK_BITS | rank);
    }
}
