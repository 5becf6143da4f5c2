package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.V2State;

/**
 * What the journal expects of one migrated job: its v2 state, attempts and v1 data digest, and the
 * digest of the v1 job it was copied from ({@code migrate_v1_source} digest; empty in older journals), by
 * which a re-sync sees a job that changed since. Stored as {@code r:<branded id>} =
 * {@code <state> <attempts> <sha256>[ <source>]} (see {@link Expectations}).
 */
public record Expectation(String state, long attempts, String sha256, String source) {
    /** Whether the row is expected in state {@code s}. */
    public boolean is(V2State s) {
        return state.equals(s.wireName());
    }

    static Expectation parse(String text) {
        String[] p = text.split(" ", 4);
        return new Expectation(p[0], Long.parseLong(p[1]), p.length > 2 ? p[2] : "", p.length > 3 ? p[3] : "");
    }

    String render() {
        return state + " " + attempts + " " + sha256 + (source.isEmpty() ? "" : " " + source);
    }
}
