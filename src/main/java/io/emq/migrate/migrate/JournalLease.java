package io.emq.migrate.migrate;

import io.emq.migrate.wire.Replies;
import io.emq.migrate.wire.Script;
import io.emq.migrate.wire.ScriptCall;
import io.emq.migrate.wire.Wire;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The lease on one queue's journal ({@code migrate_journal_lock}): one migrator at a time, and a
 * fencing token that every write of the migration carries, so a migrator whose lease lapsed is refused.
 * The {@link Migrator} renews the leases of its queues together ({@link ManyJournals}).
 */
public final class JournalLease {
    /** The shortest lease a migrator may take. */
    public static final long MIN_LEASE_MS = 300;

    private final Wire wire;
    private final byte[] key;
    private volatile String token = "";
    private volatile String sourceToken = "";

    JournalLease(Wire wire, byte[] key) {
        this.wire = wire;
        this.key = key;
    }

    /** Why a lease of this length cannot be taken (empty when it can): the one rule, for the CLI and {@link #acquire}. */
    public static Optional<String> problem(Duration lease) {
        if (lease.toMillis() >= MIN_LEASE_MS) {
            return Optional.empty();
        }
        return Optional.of("a lease of " + lease.toMillis() + " ms is too short: it is renewed every third of it, and must"
                + " be at least " + MIN_LEASE_MS + " ms (three renewals of 100 ms); the default is "
                + MigrationOptions.DEFAULT_LEASE.toSeconds() + " s");
    }

    /**
     * Takes the lease; refused ({@code EMQLOCK}) while another migrator's lease is alive, and refused
     * ({@code lease-too-short}) for a lease under {@link #MIN_LEASE_MS}: the lease is renewed every third of
     * it, at most every 100 ms, and a shorter one lapses between renewals, handing a live migrator's queue over.
     */
    public long acquire(String owner, long leaseMs) {
        problem(Duration.ofMillis(leaseMs)).ifPresent(problem -> {
            throw new MigrationRefused(MigrationRefused.Kind.LEASE_TOO_SHORT, problem);
        });
        List<?> reply = wire.eval(call("acquire", owner, "", leaseMs, Replies::asList));
        long taken = Replies.asLong(reply.get(0));
        token = Long.toString(taken);
        sourceToken = Replies.asText(reply.get(1)) + ":" + taken;
        return taken;
    }

    public void release() {
        wire.eval(call("release", "", token, 0, Replies::asLong));
    }

    /**
     * Checks that the target still holds this lease (refused, {@code EMQLOCK}, when another migrator took it or the journal
     * is gone: a target restarted without its data): before writes to another server that no target write fences.
     */
    public void hold() {
        wire.eval(call("hold", "", token, 0, Replies::asLong));
    }

    /** The fencing token of this lease ("" before {@link #acquire}). */
    String token() {
        return token;
    }

    /**
     * The token this lease fences the v1 side with ({@link SourceToken}): the journal's uid and the fencing
     * token, so a token of this journal is told from one of another journal (another target) on v1's meta.
     */
    String sourceToken() {
        return sourceToken;
    }

    private <T> ScriptCall<T> call(String op, String owner, String token, long leaseMs, Function<Object, T> reply) {
        return new ScriptCall<>(Script.MIGRATE_JOURNAL_LOCK, List.of(key),
                List.of(Utf8.bytes(op), Utf8.bytes(owner), Utf8.bytes(token), Utf8.bytes(Long.toString(leaseMs))), reply);
    }
}
