package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.plan.Rebrand;
import java.util.Optional;

/**
 * The ids a journal minted: {@code JOB} ids of its id base with a rank from 1 to its high-water mark
 * ({@link Rebrand}); none without an id base.
 */
record MintedRanks(Optional<Long> base, long hwm) {
    /** A journal's minted ids: its id base and high-water mark as they are now. */
    static MintedRanks of(Journal journal) {
        return new MintedRanks(journal.header().get(JournalHeader.ID_BASE), journal.ids().highWaterMark());
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
