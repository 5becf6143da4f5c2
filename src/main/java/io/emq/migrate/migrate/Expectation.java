package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.V2State;
import java.util.HexFormat;

/**
 * What the journal expects of one migrated job: its v2 state, attempts and v1 data digest, the
 * digest of the v1 job it was copied from ({@code migrate_v1_source} digest; empty in older journals), by
 * which a re-sync sees a job that changed since, and the SHA-1 of the payload bytes written into its
 * row ({@link #payloadSha1(byte[])}), which verification compares with the digest of the payload it reads; and, of a
 * scheduled row, its due time ({@code schedule}'s score, Unix ms; -1 for the others and in older journals). Stored as
 * {@code r:<branded id>} = {@code <state> <attempts> <sha256> <source> <payload sha1>[ <due>]} (see {@link Expectations}).
 */
public record Expectation(String state, long attempts, String sha256, String source, String payload, long due) {
    /** The digits of {@link #payloadSha1}'s hex, lowercase. */
    private static final String HEX = "0123456789abcdef";

    /** Whether the row is expected in state {@code s}. */
    public boolean is(V2State s) {
        return state.equals(s.wireName());
    }

    /** The digest of a row's payload the journal records: lowercase hex SHA-1, as the server's {@code redis.sha1hex}. */
    static String payloadSha1(byte[] payload) {
        return HexFormat.of().formatHex(Sha1.digester().digest(payload));
    }

    /**
     * Whether these payload bytes are the ones written: their {@link #payloadSha1} is the one recorded,
     * compared digit by digit with the digest's bytes (no hex text made).
     */
    boolean payloadIs(byte[] bytes) {
        byte[] sha1 = Sha1.digester().digest(bytes);
        if (payload.length() != 2 * sha1.length) {
            return false;
        }
        for (int i = 0; i < sha1.length; i++) {
            if (payload.charAt(2 * i) != HEX.charAt(sha1[i] >> 4 & 15) || payload.charAt(2 * i + 1) != HEX.charAt(sha1[i] & 15)) {
                return false;
            }
        }
        return true;
    }

    static Expectation parse(String text) {
        String[] p = text.split(" ", 6);
        return new Expectation(p[0], Long.parseLong(p[1]), p.length > 2 ? p[2] : "", p.length > 3 ? p[3] : "",
                p.length > 4 ? p[4] : "", p.length > 5 ? Long.parseLong(p[5]) : -1);
    }

    String render() {
        return state + " " + attempts + " " + sha256 + " " + source + " " + payload + (due >= 0 ? " " + due : "");
    }
}
