package io.emq.migrate.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.v1.plan.Rebrand;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The ids {@link ClientMint} mints rank after rank: each the branded id of the value after the one before. */
class ClientMintTest {
    private static final long BASE = 0x1F2E3D4L << Rebrand.RANK_BITS;

    /** The first rank whose value's low base62 digits, {@code mod} of them, hold {@code low}. */
    private static long rankEndingIn(long low, long mod) {
        return Math.floorMod(low - BASE, mod) + mod;
    }

    @Test
    void theNextIdIsTheBrandedIdOfTheNextValueAcrossEveryCarry() {
        long[] ranks = {1, rankEndingIn(9, 62), rankEndingIn(35, 62), rankEndingIn(61, 62), rankEndingIn(62 * 62 - 1, 62 * 62),
            rankEndingIn(62L * 62 * 62 - 1, 62L * 62 * 62), rankEndingIn(62 * 35 + 61, 62 * 62), Rebrand.MAX_RANK - 1};
        for (long rank : ranks) {
            byte[] id = Utf8.bytes(BrandedId.job(BASE | rank).toString());
            assertEquals(BrandedId.job(BASE | rank + 1).toString(), new String(ClientMint.next(id), StandardCharsets.US_ASCII),
                    "after " + new String(id, StandardCharsets.US_ASCII));
        }
    }
}
