package io.emq.migrate.drain;

import io.emq.migrate.keyspace.V2State;
import io.emq.migrate.migrate.JournalHeader;
import io.emq.migrate.migrate.Expectation;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.migrate.Journal;
import io.emq.migrate.payload.PayloadPolicy;
import io.emq.migrate.v1.PayloadDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a queue's migration journal promises about each migrated job that has a v2 row: its
 * state, the v1 attempts it was migrated with and the SHA-256 of its v1 data. Loaded once, before
 * a drain, so workers can judge each delivery without a round trip.
 */
final class MigratedJobs {
    static final int BATCH = 500;

    private final Journal journal;
    private final PayloadPolicy policy;
    private final Map<String, Expectation> byId;

    private MigratedJobs(Journal journal, PayloadPolicy policy, Map<String, Expectation> byId) {
        this.journal = journal;
        this.policy = policy;
        this.byId = byId;
    }

    /** Reads every mapping and expectation of the journal (empty when the queue has no journal). */
    static MigratedJobs load(Journal journal) {
        PayloadPolicy policy = journal.header().get(JournalHeader.POLICY).orElse(PayloadPolicy.ENVELOPE);
        Map<String, Expectation> byId = new HashMap<>();
        journal.ids().inBatches(BATCH, (id, v1) -> id, batch -> journal.expectations().of(batch).forEach((k, v) -> byId.put(k.toString(), v)));
        return new MigratedJobs(journal, policy, byId);
    }

    /** The expectation of a v2 id; empty for fresh v2 work. */
    Optional<Expectation> expected(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    Map<String, Expectation> all() {
        return byId;
    }

    long count(V2State state) {
        return byId.values().stream().filter(e -> e.is(state)).count();
    }

    /** Empty when the payload carries the journaled v1 data, else what is wrong with it. */
    Optional<String> digestProblem(Expectation expected, byte[] payload) {
        Optional<byte[]> data = policy.v1Data(payload);
        if (data.isEmpty()) {
            return Optional.of("payload is not in the " + policy.wireName() + " form; its v1 data cannot be recovered");
        }
        String sha = PayloadDigest.sha256(data.get());
        return sha.equals(expected.sha256()) ? Optional.empty()
                : Optional.of("v1 data sha256 " + abbreviate(sha) + ", journal says " + abbreviate(expected.sha256()));
    }

    /** The v1 id of a migrated job, for messages ({@code ?} when the journal lacks it). */
    String v1Id(String id) {
        return journal.ids().lookupV2(BrandedId.of(id)).map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8))
                .orElse("?");
    }

    static String abbreviate(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) + "…" : sha;
    }
}
